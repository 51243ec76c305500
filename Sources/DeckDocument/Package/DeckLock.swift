import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on the package's lock file, held while a deck is open for writing.
///
/// The kernel drops the lock when the process exits, so a crashed writer never blocks the
/// next one. Locks are per open file, so two documents of one process exclude each other too.
final class DeckLock {
    static let fileName = ".lock"
    private var fd: Int32

    /// Takes the lock or throws ``DeckError`` (`inUse` when someone else holds it).
    init(package: URL) throws {
        let path = package.appendingPathComponent(Self.fileName).path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let reason = AtomicFile.errnoText()
            throw DeckError(path: package.path, reason: "can't create lock file \(Self.fileName): \(reason)",
                            kind: errno == EROFS || errno == EACCES ? .readOnly : .io)
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let busy = errno == EWOULDBLOCK
            let reason = AtomicFile.errnoText()
            close(fd)
            fd = -1
            throw DeckError(path: package.path,
                            reason: busy ? "deck is open for writing by another process" : "can't lock: \(reason)",
                            kind: busy ? .inUse : .io)
        }
    }

    func release() {
        guard fd >= 0 else { return }
        _ = flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    deinit { release() }
}
