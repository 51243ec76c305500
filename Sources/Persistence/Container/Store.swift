import Foundation
import SQLite

/// One open store of a container: its configuration, its connection and the entities it holds.
///
/// Contexts of one container share the store's connection; the lock serialises them, so
/// contexts on different tasks never interleave statements or transactions.
final class Store: @unchecked Sendable {
    let configuration: ModelConfiguration
    let database: Database
    let entities: [Schema.Entity]
    let index: Int
    private let lock = NSRecursiveLock()
    /// The next primary key to hand out per table, valid while a write transaction is open.
    var nextPrimaryKeys: [String: Int64] = [:]
    /// The files (or memory) of `.externalStorage` values, when an entity has such attributes.
    var externalStorage: ExternalStorage?

    var identifier: String { configuration.name }
    var path: String { configuration.url?.path ?? ":memory:" }

    init(configuration: ModelConfiguration, entities: [Schema.Entity], index: Int) throws {
        self.configuration = configuration
        self.entities = entities
        self.index = index
        do {
            database = try Store.open(configuration)
        } catch where error.code == DatabaseError.full || error.code == DatabaseError.ioError {
            // A full disk or a failed read or write while configuring the connection (the
            // WAL is created here) is an I/O failure, not a store that can't be opened: keep
            // SQLite's code, so callers can tell the two apart.
            throw PersistenceError.database(error)
        } catch {
            throw PersistenceError.cannotOpenStore(path: configuration.url?.path ?? ":memory:", reason: error.message)
        }
    }

    /// A second view of an open store's connection, for a migration stage's context on
    /// another schema version. Closing it leaves the connection open.
    init(sharing store: Store, entities: [Schema.Entity]) {
        self.configuration = store.configuration
        self.database = store.database
        self.entities = entities
        self.index = 0
        self.ownsDatabase = false
    }

    /// Whether `close()` closes the connection (false for a migration's view of a store).
    private var ownsDatabase = true

    private static func open(_ configuration: ModelConfiguration) throws(DatabaseError) -> Database {
        guard !configuration.isStoredInMemoryOnly, let url = configuration.url else { return try Database.inMemory() }
        if configuration.allowsSave {
            try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        let database = try Database(path: url.path, mode: configuration.allowsSave ? .create : .readOnly)
        if configuration.allowsSave && configuration.usesWriteAheadLog {
            try database.setJournalMode(.wal)
        }
        return database
    }

    /// Runs `body` with exclusive use of the connection.
    func withDatabase<T>(_ body: (Database) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(database)
    }

    /// Checkpoints the WAL into the store and closes the connection.
    func close() {
        guard ownsDatabase else { return }
        withDatabase { db in
            if configuration.allowsSave && !configuration.isStoredInMemoryOnly {
                try? db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                _ = try? db.setJournalMode(.delete)
            }
            db.close()
        }
    }
}
