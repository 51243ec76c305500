import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Opening files whose names come from untrusted input (a shared package, an archive, a
/// store's rows) without ever following a symbolic link or blocking on a special file.
///
/// Every open adds `O_NOFOLLOW` (a link at the last component is refused, not followed) and
/// `O_NONBLOCK` (opening a FIFO returns at once instead of waiting for a writer), then checks
/// with `fstat` on the descriptor, so the file checked is the file read, and clears
/// `O_NONBLOCK` again. Directories on the way are checked by the caller (open them with
/// ``openDirectory(_:)`` and pass the descriptor to ``openForReading(_:in:)``).
///
/// ```swift
/// let media = try UntrustedFile.openDirectory(package + "/Media")
/// defer { close(media) }
/// let fd = try UntrustedFile.openForReading(name, in: media)
/// ```
public enum UntrustedFile {
    /// The type of what is at `path`, not following a symbolic link; nil when nothing is there.
    /// - Throws: ``FileSafetyError`` `.system` when `lstat` fails for another reason.
    public static func type(atPath path: String) throws(FileSafetyError) -> FileType? {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw FileSafetyError.system(errno, path: path, doing: "cannot look at it")
        }
        return FileType(mode: status.st_mode)
    }

    /// Requires what is at `path` to be of `type` (a link is never followed).
    /// - Throws: ``FileSafetyError`` `.missing`, `.wrongType` (reason "is a symbolic link, not a
    ///   regular file"), `.system`.
    public static func require(_ type: FileType, atPath path: String) throws(FileSafetyError) {
        guard let found = try Self.type(atPath: path) else {
            throw FileSafetyError(.missing, path: path, reason: "is missing")
        }
        guard found == type else { throw wrongType(found, expected: type, path: path) }
    }

    /// Opens the regular file `path` (relative to the directory open on `directory`, or to the
    /// working directory) for reading, refusing a symbolic link and any special file before
    /// a byte is read. The descriptor is close-on-exec and blocking; the caller closes it.
    /// - Throws: ``FileSafetyError`` `.missing`, `.wrongType`, `.system`.
    public static func openForReading(_ path: String, in directory: Int32 = AT_FDCWD) throws(FileSafetyError) -> Int32 {
        try open(path, in: directory, flags: O_RDONLY)
    }

    /// Opens (creating when missing, with `mode`) the regular file `path` for reading and
    /// writing, refusing a symbolic link (a dangling one is not created through) and any
    /// special file. For lock files.
    /// - Throws: ``FileSafetyError`` `.wrongType`, `.system`.
    public static func openOrCreate(_ path: String, mode: mode_t = 0o644) throws(FileSafetyError) -> Int32 {
        try open(path, in: AT_FDCWD, flags: O_RDWR | O_CREAT, mode: mode)
    }

    /// Opens the directory `path` (not a symbolic link to one) for use with `openat`-style
    /// calls; the caller closes the descriptor.
    /// - Throws: ``FileSafetyError`` `.missing`, `.wrongType`, `.system`.
    public static func openDirectory(_ path: String, in directory: Int32 = AT_FDCWD) throws(FileSafetyError) -> Int32 {
        let fd = openat(directory, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let number = errno
            if number == ENOENT { throw FileSafetyError(.missing, path: path, reason: "is missing") }
            if number == ELOOP || number == ENOTDIR, let found = try? typeAt(path, in: directory) {
                throw wrongType(found, expected: .directory, path: path)
            }
            throw FileSafetyError.system(number, path: path, doing: "cannot open the folder")
        }
        return fd
    }

    /// Reads the whole regular file `path` (at most `limit` bytes).
    /// - Throws: as ``openForReading(_:in:)``; `.system(EFBIG)` past `limit`.
    public static func read(_ path: String, in directory: Int32 = AT_FDCWD, limit: Int = Int.max) throws(FileSafetyError) -> Data {
        let fd = try openForReading(path, in: directory)
        defer { close(fd) }
        return try read(descriptor: fd, path: path, limit: limit)
    }

    /// Reads what is left of the file open on `fd` (at most `limit` bytes).
    public static func read(descriptor fd: Int32, path: String, limit: Int = Int.max) throws(FileSafetyError) -> Data {
        var data = Data()
        var status = stat()
        if fstat(fd, &status) == 0, status.st_size > 0 { data.reserveCapacity(Int(min(Int64(status.st_size), Int64(limit)))) }
        let chunk = 1 << 16
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, chunk) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileSafetyError.system(errno, path: path, doing: "cannot read")
            }
            if count == 0 { break }
            guard data.count + count <= limit else {
                throw FileSafetyError(.system(EFBIG), path: path, reason: "is larger than \(limit) bytes")
            }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    // MARK: Internals

    private static func open(_ path: String, in directory: Int32, flags: Int32, mode: mode_t = 0) throws(FileSafetyError) -> Int32 {
        // Looked at before opening too: opening a device can have effects of its own.
        var before = stat()
        if fstatat(directory, path, &before, AT_SYMLINK_NOFOLLOW) == 0 {
            let found = FileType(mode: before.st_mode)
            if found != .regular { throw wrongType(found, expected: .regular, path: path) }
        }
        let fd = openat(directory, path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode)
        guard fd >= 0 else {
            let number = errno
            if number == ENOENT { throw FileSafetyError(.missing, path: path, reason: "is missing") }
            if number == ELOOP || number == EISDIR || number == ENXIO || number == EWOULDBLOCK,
               let found = try? typeAt(path, in: directory), found != .regular {
                throw wrongType(found, expected: .regular, path: path)
            }
            throw FileSafetyError.system(number, path: path, doing: "cannot open")
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let number = errno
            close(fd)
            throw FileSafetyError.system(number, path: path, doing: "cannot look at it")
        }
        let found = FileType(mode: status.st_mode)
        guard found == .regular else {
            close(fd)
            throw wrongType(found, expected: .regular, path: path)
        }
        let current = fcntl(fd, F_GETFL)
        if current >= 0 { _ = fcntl(fd, F_SETFL, current & ~O_NONBLOCK) }
        return fd
    }

    private static func typeAt(_ path: String, in directory: Int32) throws -> FileType {
        var status = stat()
        guard fstatat(directory, path, &status, AT_SYMLINK_NOFOLLOW) == 0 else { throw FileSafetyError.system(errno, path: path, doing: "lstat") }
        return FileType(mode: status.st_mode)
    }

    static func wrongType(_ found: FileType, expected: FileType, path: String) -> FileSafetyError {
        FileSafetyError(.wrongType(found), path: path, reason: "is \(found.rawValue), not \(expected.rawValue)")
    }
}
