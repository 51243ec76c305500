import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files so a reader sees the old or the new contents, never a mix: a temporary
/// file beside the target, `fsync`, `rename`, then `fsync` of the directory.
enum AtomicFile {
    static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).tmp-\(UUID().uuidString)")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ioError(url, "can't create temporary file: \(errnoText())") }
        var ok = false
        defer {
            if !ok { unlink(temporary.path) }
        }
        let written = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
        guard written, fsync(fd) == 0 else {
            let text = errnoText()
            close(fd)
            throw ioError(url, "can't write: \(text)")
        }
        close(fd)
        guard rename(temporary.path, url.path) == 0 else { throw ioError(url, "can't rename into place: \(errnoText())") }
        ok = true
        syncDirectory(directory)
    }

    static func syncDirectory(_ directory: URL) {
        let dfd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            _ = fsync(dfd)
            close(dfd)
        }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }

    private static func ioError(_ url: URL, _ reason: String) -> DeckError {
        DeckError(path: url.path, reason: reason, kind: errno == EROFS || errno == EACCES || errno == EPERM ? .readOnly : .io)
    }
}
