import Foundation
internal import CSQLite

extension Database {
    /// Copies this database into `destination` with SQLite's online backup API.
    ///
    /// The copy is a consistent snapshot even while other connections write: a write from
    /// another connection restarts the copy. `progress` receives (pages remaining, page count)
    /// after each step of `pagesPerStep` pages.
    /// - Throws: ``DatabaseError`` from the backup steps (`busy`, `readOnly`, `full`, …).
    public func backup(to destination: Database, pagesPerStep: Int32 = 1024,
                       progress: ((_ remaining: Int, _ total: Int) -> Void)? = nil) throws(DatabaseError) {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw DatabaseError(handle: destination.handle, code: sqlite3_errcode(destination.handle), sql: nil)
        }
        var code: Int32
        repeat {
            code = sqlite3_backup_step(backup, pagesPerStep)
            progress?(Int(sqlite3_backup_remaining(backup)), Int(sqlite3_backup_pagecount(backup)))
            if code == SQLITE_BUSY || code == SQLITE_LOCKED { sqlite3_sleep(5) }
        } while code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED
        let finish = sqlite3_backup_finish(backup)
        if code != SQLITE_DONE { throw DatabaseError(handle: destination.handle, code: code, sql: nil) }
        try DatabaseError.check(finish, destination.handle)
    }

    /// Writes a compact, consistent snapshot of the database to a new file at `path`.
    ///
    /// Uses `VACUUM INTO`; the target must not exist, and no transaction may be open on
    /// this connection.
    public func vacuum(into path: String) throws(DatabaseError) {
        try execute("VACUUM INTO " + SQLValue.text(path).description)
    }
}
