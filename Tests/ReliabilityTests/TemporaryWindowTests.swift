import DeckDocument
@testable import FileSafety
import Foundation
import SQLite
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The windows in which a signal could leave a temporary behind although every temporary is
/// registered (issue 17, item 5): a file made between the handler's last look and the end of
/// the process, and the files SQLite makes and unlinks itself. Each runs in a child process
/// (an exit test), since it installs the signal handlers, ends by a signal or changes
/// process-wide SQLite settings.
@Suite(.tags(.reliability))
struct TemporaryWindowTests {
    /// Once a signal is being handled, no registered temporary is created: the thread making
    /// one waits to be ended with the process. Before, a thread that had registered its
    /// `.name.partial-…` created it whenever it was next scheduled, which on a loaded machine
    /// could be after the handler's last round (SignalTests once found such a file).
    @Test func noTemporaryIsCreatedWhileASignalIsHandled() async throws {
        let scratch = try Scratch("window")
        let folder = scratch.url.path
        await #expect(processExitsWith: .success) { [folder = folder as String] in
            CleanupRegistry.installSignalHandlers()
            // What the handler sets first, on whichever thread the signal landed.
            CleanupRegistry.handling.store(true, ordering: .sequentiallyConsistent)
            let creator = Thread {
                _ = try? TemporaryFile(beside: folder + "/out.json")
                _ = try? StagingDirectory(in: folder, for: "out.json")
            }
            creator.start()
            usleep(500_000)
            let made = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? ["unreadable"]
            // _exit: the atexit hook would wait for the (pretended) handler to end the process.
            _exit(made.isEmpty ? 0 : 1)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    /// SQLite's own temporaries (`etilqs_*`, unlinked by SQLite right after it creates them)
    /// are made in the process's registered private folder in `TMPDIR`, so the handler removes
    /// them even when the signal lands between SQLite's `open` and `unlink`. Here the handler
    /// runs while such a file is open, and `TMPDIR` is empty once the process has ended by the
    /// signal. Before, they went straight into `TMPDIR`: a `migrate` stopped by a signal once
    /// left one there.
    @Test func sqliteTemporariesAreMadeInTheRegisteredFolder() async throws {
        let scratch = try Scratch("sqlite-temporaries")
        let tmp = scratch.url.appendingPathComponent("tmp").path
        let store = scratch.url.appendingPathComponent("store.sqlite").path
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        await #expect(processExitsWith: .signal(SIGTERM)) { [tmp = tmp as String, store = store as String] in
            setenv("TMPDIR", tmp, 1)
            // As a `deck` process starts: SIGTERM neither ignored nor blocked (the test host may do either).
            signal(SIGTERM, SIG_DFL)
            var unblock = sigset_t()
            sigemptyset(&unblock)
            sigaddset(&unblock, SIGTERM)
            pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
            CleanupRegistry.installSignalHandlers()
            SQLiteScratch.install()
            guard let ownFolder = SQLiteScratch.path, ownFolder.hasPrefix(tmp + "/.deck-sqlite.staging-") else { _exit(2) }
            let db = try Database(path: store, mode: .create)
            // A TEMP table bigger than its cache: SQLite spills it to a temporary file.
            try db.execute("PRAGMA temp_store = FILE")
            try db.execute("CREATE TEMP TABLE spill (x BLOB)")
            try db.execute("PRAGMA temp.cache_size = 4")
            try db.execute("BEGIN")
            try db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO spill SELECT randomblob(1000) FROM n")
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            let open = descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
            guard open.contains(where: { $0.hasPrefix(ownFolder + "/etilqs_") }) else { _exit(3) }
            raise(SIGTERM)
            _exit(4)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty, "nothing left in TMPDIR")
    }
}
