import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a reader's bytes come from: a file descriptor read in large chunks, or bytes that are
/// already in memory; in UTF-8, transcoded from the input's encoding when it is another.
final class CSVInput {
    private enum Kind {
        case descriptor(Int32, closesOnDeinit: Bool)
        case memory
    }

    private let kind: Kind
    /// The path used in error messages (`-` for standard input), if any.
    let path: String?
    /// The bytes of a memory input, handed over to the parser's buffer once (UTF-8), or
    /// transcoded through ``read(into:count:)`` (another encoding).
    private(set) var initialBytes: [UInt8]
    /// The encoding asked for; `nil` detects UTF-16 by its byte order mark, else UTF-8. Set
    /// before the first read.
    var encoding: CSVEncoding?
    /// The encoding in use, once the first bytes have been seen.
    private(set) var resolvedEncoding: CSVEncoding?
    private var transcoder: CSVTranscoder?
    /// Raw bytes read ahead to see a byte order mark, served before the descriptor's.
    private var head: [UInt8] = []
    /// UTF-8 not yet handed out (transcoding only).
    private var decoded: [UInt8] = []
    private var decodedStart = 0
    private var rawEOF = false
    /// Raw bytes read from the input so far.
    private(set) var rawBytesRead = 0

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

    /// Takes the in-memory bytes when they are UTF-8 (empty for a file input, and for memory
    /// in another encoding, which ``read(into:count:)`` then transcodes).
    func takeInitialBytes() -> [UInt8] {
        guard case .memory = kind else { return [] }
        let resolved = Self.resolve(encoding, announced: CSVEncoding.announced(by: initialBytes.prefix(3)))
        guard resolved == .utf8 else { return [] }
        resolvedEncoding = .utf8
        rawBytesRead = initialBytes.count
        defer { initialBytes = [] }
        return initialBytes
    }

    /// The encoding to use: the one asked for (UTF-16 in the order its mark says, else
    /// little-endian), else the one a byte order mark announces, else UTF-8.
    private static func resolve(_ asked: CSVEncoding?, announced: CSVEncoding?) -> CSVEncoding {
        switch asked {
        case nil: announced ?? .utf8
        case .utf16?: announced == .utf16BigEndian ? .utf16BigEndian : .utf16LittleEndian
        case let asked?: asked
        }
    }

    /// Reads up to `count` UTF-8 bytes into `destination`; returns 0 at the end of the input.
    /// - Throws: ``CSVError`` for a read error or input that is not valid in its encoding.
    func read(into destination: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        guard count > 0 else { return 0 }
        if resolvedEncoding == nil { try resolveEncoding() }
        guard transcoder != nil else { return try readRaw(into: destination, count: count) }
        while decodedStart == decoded.count && !rawEOF {
            decoded.removeAll(keepingCapacity: true)
            decodedStart = 0
            var chunk = [UInt8](repeating: 0, count: max(count / 2, 4096))
            let got = try chunk.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                return try readRaw(into: base, count: buffer.count)
            }
            if got == 0 {
                rawEOF = true
                try transcoder?.finish(into: &decoded, path: path)
            } else {
                try chunk.withUnsafeBufferPointer { buffer in
                    try transcoder?.decode(UnsafeBufferPointer(rebasing: buffer[..<got]), into: &decoded, path: path)
                }
            }
        }
        let served = min(count, decoded.count - decodedStart)
        guard served > 0 else { return 0 }
        decoded.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { destination.update(from: base + decodedStart, count: served) }
        }
        decodedStart += served
        return served
    }

    /// Looks at the first bytes for a byte order mark and sets up the transcoder.
    private func resolveEncoding() throws {
        if case .memory = kind {
            head = initialBytes
            initialBytes = []
        } else if encoding == nil || encoding == .utf16 {
            var bytes = [UInt8](repeating: 0, count: 3)
            var filled = 0
            while filled < 3 {
                let got = try bytes.withUnsafeMutableBufferPointer { buffer in
                    guard let base = buffer.baseAddress else { return 0 }
                    return try readDescriptor(into: base + filled, count: 3 - filled)
                }
                if got == 0 { break }
                filled += got
            }
            head = Array(bytes[..<filled])
        }
        let resolved = Self.resolve(encoding, announced: CSVEncoding.announced(by: head.prefix(3)))
        resolvedEncoding = resolved
        if resolved != .utf8 { transcoder = CSVTranscoder(encoding: resolved) }
    }

    /// Reads raw bytes: those read ahead first, then the descriptor's.
    private func readRaw(into destination: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        if !head.isEmpty {
            let served = min(count, head.count)
            head.withUnsafeBufferPointer { buffer in
                if let base = buffer.baseAddress { destination.update(from: base, count: served) }
            }
            head.removeFirst(served)
            rawBytesRead += served
            return served
        }
        let got = try readDescriptor(into: destination, count: count)
        rawBytesRead += got
        return got
    }

    private func readDescriptor(into destination: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
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
