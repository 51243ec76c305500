import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a writer's bytes go: a file descriptor written in large chunks, or memory.
final class CSVOutput {
    private let descriptor: Int32?
    /// The path used in error messages (`-` for standard output), if any.
    let path: String?
    /// Bytes not yet written to the descriptor (or, for memory, everything written).
    var pending: [UInt8] = []
    /// When `pending` grows past this, it goes to the descriptor.
    let chunkSize: Int

    init(descriptor: Int32?, path: String?, chunkSize: Int = 256 << 10) {
        self.descriptor = descriptor
        self.path = path
        self.chunkSize = chunkSize
        pending.reserveCapacity(descriptor == nil ? 4096 : chunkSize + 4096)
    }

    /// Writes pending bytes out when a chunk is full.
    @inline(__always)
    func flushIfFull() throws {
        if descriptor != nil && pending.count >= chunkSize { try flush() }
    }

    /// Writes every pending byte to the descriptor (nothing to do for memory).
    func flush() throws {
        guard let descriptor, !pending.isEmpty else { return }
        try pending.withUnsafeBytes { bytes in
            guard var cursor = bytes.baseAddress else { return }
            var remaining = bytes.count
            while remaining > 0 {
                #if canImport(Darwin)
                let written = Darwin.write(descriptor, cursor, remaining)
                #elseif canImport(Glibc)
                let written = Glibc.write(descriptor, cursor, remaining)
                #else
                let written = Musl.write(descriptor, cursor, remaining)
                #endif
                if written < 0 {
                    if errno == EINTR { continue }
                    throw CSVError(.io("write failed: \(String(cString: strerror(errno)))"), path: path)
                }
                cursor += written
                remaining -= written
            }
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// The bytes of a memory output.
    var data: Data { descriptor == nil ? Data(pending) : Data() }
}
