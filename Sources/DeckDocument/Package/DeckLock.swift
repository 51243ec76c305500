import FileSafety
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How long opening a deck for writing waits while another writer holds its lock.
///
/// A command-line tool waits a few seconds, so two scripts writing one deck at once both
/// finish; an app that would rather tell its user at once does not wait. Readers never take
/// the lock and never wait.
public enum DeckLockWait: Sendable, Equatable {
    /// Fail at once when the deck is in use.
    case none
    /// Wait up to this many seconds for the writer to finish, then fail.
    case seconds(Double)
}

/// An exclusive `flock` on the package's lock file, held while a deck is open for writing.
///
/// The kernel drops the lock when the process exits, so a crashed writer never blocks the
/// next one. Locks are per open file, so two documents of one process exclude each other too.
final class DeckLock {
    static let fileName = ".lock"
    private var fd: Int32

    /// Takes the lock, waiting as `wait` allows while someone else holds it, or throws
    /// ``DeckError`` (`inUse` when someone else still holds it).
    init(package: URL, wait: DeckLockWait = .none) throws {
        let path = package.appendingPathComponent(Self.fileName).path
        // Never through a link (a dangling one would make us create its target) and never a
        // special file: the lock is a regular file of the package.
        do {
            fd = try UntrustedFile.openOrCreate(path)
        } catch {
            if case .wrongType = error.kind { throw DeckDocument.refusal(error, entry: Self.fileName, package: package) }
            let number = error.errorNumber ?? EIO
            throw DeckError(path: package.path, reason: "can't create lock file \(Self.fileName): \(String(cString: strerror(number)))",
                            kind: number == EROFS || number == EACCES ? .readOnly : .io)
        }
        let limit: Double = if case .seconds(let seconds) = wait { max(0, seconds) } else { 0 }
        let deadline = Date().addingTimeInterval(limit)
        // Poll with a growing pause (5 ms to 100 ms): a blocking flock could not be given up
        // after a time without a timer signal.
        var pause = 0.005
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let busy = errno == EWOULDBLOCK
            let left = deadline.timeIntervalSinceNow
            if busy, left > 0 {
                usleep(useconds_t(min(pause, left) * 1_000_000))
                pause = min(pause * 2, 0.1)
                continue
            }
            let reason = AtomicFile.errnoText()
            close(fd)
            fd = -1
            let waited = limit > 0 ? " (waited \(limit.formatted(.number.precision(.fractionLength(0...1)))) s)" : ""
            throw DeckError(path: package.path,
                            reason: busy ? "deck is open for writing by another process\(waited)" : "can't lock: \(reason)",
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
