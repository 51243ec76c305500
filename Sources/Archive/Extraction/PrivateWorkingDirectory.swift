internal import CArchive
import Foundation

/// Runs work on a new thread whose working directory is its own (Linux `unshare(CLONE_FS)`),
/// so that it can `chdir` into a directory without touching the rest of the process.
enum PrivateWorkingDirectory {
    /// Runs `body` on a fresh thread and waits for it. `body` receives whether the thread's
    /// working directory is now `directory` (`false` when the system refuses a private
    /// working directory, e.g. under a container's seccomp profile; the process's working
    /// directory is then left alone).
    static func run<T>(in directory: URL, _ body: @escaping (_ changed: Bool) throws -> T) throws -> T {
        let box = Box(body)
        let thread = Thread {
            box.run(changed: enter(directory))
            box.done.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
        box.done.wait()
        return try box.result()
    }

    /// Gives the calling thread its own working directory and moves it to `directory`.
    private static func enter(_ directory: URL) -> Bool {
        #if os(Linux)
        guard unshare(carchive_clone_fs) == 0 else { return false }
        return chdir(directory.path) == 0
        #else
        return false
        #endif
    }

    /// Carries the work and its result across the thread boundary. The caller waits on
    /// `done` while the thread runs, so the two never touch the box at the same time.
    private final class Box<T>: @unchecked Sendable {
        private let body: (Bool) throws -> T
        private var outcome: Result<T, any Error>?
        let done = DispatchSemaphore(value: 0)

        init(_ body: @escaping (Bool) throws -> T) { self.body = body }

        func run(changed: Bool) { outcome = Result { try body(changed) } }

        func result() throws -> T {
            guard let outcome else {
                throw ArchiveError(.io, path: "-", reason: "the extraction thread ended without a result")
            }
            return try outcome.get()
        }
    }
}
