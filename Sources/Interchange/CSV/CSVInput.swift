import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a reader's bytes come from: a file descriptor read in large chunks, or bytes that are
/// already in memory.
final class CSVInput {
    private enum Kind {
        case descriptor(Int32, closesOnDeinit: Bool)
        case memory
    }

    private let kind: Kind
    /// The path used in error messages (`-` for standard input), if any.
    let path: String?
    /// The bytes of a memory input, handed over to the parser's buffer once.
    private(set) var initialBytes: [UInt8]

    private init(kind: Kind, path: String?, initialBytes: [UInt8]) {
        self.kind = kind
        self.path = path
        self.initialBytes = initialBytes
    }

    deinit {
        if case .descriptor(let descriptor, true) = kind {
            _ = close(descriptor)
        }
    }

    /// Opens a file for reading.
    static func file(at url: URL) throws -> CSVInput {
        let path = url.path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CSVError(.io("cannot open: \(String(cString: strerror(errno)))"), path: path)
        }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            _ = close(descriptor)
            throw CSVError(.io("is a directory"), path: path)
        }
        return CSVInput(kind: .descriptor(descriptor, closesOnDeinit: true), path: path, initialBytes: [])
    }

    /// Reads from an open file handle, which the caller keeps and closes.
    static func handle(_ handle: FileHandle, path: String?) -> CSVInput {
        CSVInput(kind: .descriptor(handle.fileDescriptor, closesOnDeinit: false), path: path, initialBytes: [])
    }

    /// Reads bytes already in memory.
    static func memory(_ bytes: [UInt8], path: String?) -> CSVInput {
        CSVInput(kind: .memory, path: path, initialBytes: bytes)
    }

    /// Takes the in-memory bytes (empty for a file input).
    func takeInitialBytes() -> [UInt8] {
        defer { initialBytes = [] }
        return initialBytes
    }

    /// Reads up to `count` bytes into `destination`; returns 0 at the end of the input.
    func read(into destination: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        guard case .descriptor(let descriptor, _) = kind, count > 0 else { return 0 }
        while true {
            #if canImport(Darwin)
            let result = Darwin.read(descriptor, destination, count)
            #elseif canImport(Glibc)
            let result = Glibc.read(descriptor, destination, count)
            #else
            let result = Musl.read(descriptor, destination, count)
            #endif
            if result >= 0 { return result }
            if errno == EINTR { continue }
            throw CSVError(.io("read failed: \(String(cString: strerror(errno)))"), path: path)
        }
    }
}
