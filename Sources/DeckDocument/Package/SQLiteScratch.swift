import FileSafety
import Foundation
import SQLite

/// A process's private folder for SQLite's own temporary files.
///
/// SQLite makes statement journals, sorter spills (an index built over many rows, a large
/// `ORDER BY`) and TEMP tables as `etilqs_*` files in `TMPDIR` and unlinks each right after
/// creating it. A signal between the two (delivered on return from the `open`) ended the
/// process with the file still there: a `migrate` interrupted once left one in `TMPDIR`.
/// ``install()`` points SQLite at `.deck-sqlite.staging-<pid>-XXXXXX` in `TMPDIR`, a
/// ``StagingDirectory`` the signal handler removes with whatever is in it, removed at exit,
/// and swept by a later run if the process was SIGKILLed (its base name begins with `deck-`).
public enum SQLiteScratch {
    nonisolated(unsafe) private static var folder: StagingDirectory?

    /// Creates the folder and makes SQLite use it. Call once at start-up, after
    /// ``CleanupRegistry/installSignalHandlers()`` and before any store is opened. Where
    /// `TMPDIR` can't be written, SQLite keeps its own choice (and reports what fails later).
    public static func install() {
        guard folder == nil else { return }
        let staging: StagingDirectory
        do {
            staging = try StagingDirectory(in: Leftovers.temporaryDirectory, for: "deck-sqlite")
        } catch {
            return
        }
        do {
            try Database.setTemporaryDirectory(staging.path)
        } catch {
            staging.remove()
            return
        }
        folder = staging
        atexit { SQLiteScratch.folder?.remove() }
    }

    /// The folder SQLite's temporary files go to, when ``install()`` made one.
    public static var path: String? { folder?.path }
}
