import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain POSIX file descriptor for chunked reads and writes, with errors that name the file.
///
/// Foundation's `FileHandle` allocates a `Data` per read; bulk copies here reuse one buffer.
final class FileStream {
    private var descriptor: Int32
    private let path: String

    /// Opens an existing file for reading.
    init(reading url: URL, path: String) throws {
        self.path = path
        descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 { throw FileStream.error(path, "cannot open for reading") }
    }

    /// Creates a new file for writing; fails if it exists.
    init(creating url: URL, path: String) throws {
        self.path = path
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if descriptor < 0 { throw FileStream.error(path, "cannot create") }
    }

    deinit { close() }

    /// Reads up to `buffer.count` bytes; returns 0 at end of file.
    func read(into buffer: inout [UInt8], maxCount: Int = .max) throws -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { posixRead(descriptor, $0.baseAddress, min($0.count, maxCount)) }
            if count >= 0 { return count }
            if errno != EINTR { throw FileStream.error(path, "read failed") }
        }
    }

    /// Moves the read position to `offset` bytes from the start.
    func seek(to offset: Int64) throws {
        if lseek(descriptor, off_t(offset), SEEK_SET) < 0 { throw FileStream.error(path, "seek failed") }
    }

    /// Writes all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let count = posixWrite(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                throw FileStream.error(path, "write failed")
            }
            offset += count
        }
    }

    /// Writes all of `data`.
    func write(_ data: Data) throws {
        try data.withUnsafeBytes { try write($0) }
    }

    /// Closes the file, reporting a failed close (which can lose buffered writes).
    func finish() throws {
        guard descriptor >= 0 else { return }
        let status = posixClose(descriptor)
        descriptor = -1
        if status != 0 { throw FileStream.error(path, "close failed") }
    }

    /// Closes the file, ignoring errors (for cleanup paths).
    func close() {
        if descriptor >= 0 {
            _ = posixClose(descriptor)
            descriptor = -1
        }
    }

    private static func error(_ path: String, _ what: String) -> AnkiError {
        AnkiError(.io, path: path, reason: "\(what): \(String(cString: strerror(errno)))")
    }
}

private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
private func posixClose(_ fd: Int32) -> Int32 { close(fd) }
