import Foundation
internal import CSQLite

/// One connection to an SQLite database: a file, or memory.
///
/// A `Database` is used by one task at a time (it is `Sendable` so it can be handed
/// between tasks, not shared by them). Every open connection has foreign keys enforced and
/// a busy timeout set; file databases opened for writing can switch to WAL with
/// ``JournalMode/wal``.
///
/// Every connection treats the file as untrusted (see `harden(readOnly:)`): the schema is
/// not trusted (`PRAGMA trusted_schema=OFF`: a view, trigger, index or default in the file
/// can only call innocuous functions), defensive mode is on (no `writable_schema`, no direct
/// writes to shadow tables, no `journal_mode=OFF`), a read-only connection runs no view and
/// no trigger, and the work of each statement over a file is bounded (``workLimit``).
///
/// ```swift
/// let db = try Database(path: "deck.sqlite", mode: .create)
/// try db.execute("CREATE TABLE card(id INTEGER PRIMARY KEY, front TEXT)")
/// try db.transaction {
///     try db.cachedStatement("INSERT INTO card(front) VALUES (?)").execute([.text("chat")])
/// }
/// ```
public final class Database: @unchecked Sendable {
    /// How a database file is opened.
    public enum Mode: Sendable {
        /// Read and write an existing file.
        case readWrite
        /// Read and write, creating the file when missing.
        case create
        /// Read only: never writes a byte to the file.
        case readOnly
    }

    /// Journal modes a caller can choose.
    public enum JournalMode: String, Sendable {
        case delete = "DELETE", truncate = "TRUNCATE", wal = "WAL", memory = "MEMORY", off = "OFF"
    }

    let handle: OpaquePointer
    /// The progress handler's state: the bound on the work of one statement.
    let budget: WorkBudget
    /// The file path, or `":memory:"`.
    public let path: String
    /// Whether the connection was opened read-only.
    public let isReadOnly: Bool
    private var statementCache: [String: Statement] = [:]
    private var isClosed = false
    /// Whether ``registerSearchRankFunction()`` ran on this connection (FTS5 keeps every
    /// registration, so it is made once).
    var hasSearchRankFunction = false

    /// Opens the database at `path`.
    ///
    /// - Parameters:
    ///   - busyTimeout: how long a write waits for another connection's lock, in seconds.
    /// - Throws: ``DatabaseError`` when the file can't be opened (`cantOpen`), is not a
    ///   database (`notADatabase`), or the connection can't be configured.
    public init(path: String, mode: Mode = .create, busyTimeout: TimeInterval = 5) throws(DatabaseError) {
        _ = Database.processConfiguration
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        if path.hasPrefix("file:") { flags |= SQLITE_OPEN_URI }
        // The database file itself is never a symbolic link (SQLITE_OPEN_NOFOLLOW); SQLite
        // refuses a link anywhere in the path, so the folder is resolved first: the folder
        // is the caller's choice, the file may come from untrusted input.
        var opened = path
        if path != ":memory:", !path.isEmpty, !path.hasPrefix("file:") {
            flags |= SQLITE_OPEN_NOFOLLOW
            opened = Database.resolvingFolder(of: path)
        }
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(opened, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = DatabaseError(handle: handle, code: code, sql: nil)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        self.path = path
        self.isReadOnly = mode == .readOnly
        budget = WorkBudget(source: Self.sizeSource(of: path))
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Int32(max(0, min(busyTimeout, 86_400)) * 1000))
        do {
            try harden(readOnly: mode == .readOnly)
            try execute("PRAGMA foreign_keys = ON")
            // Reading the schema surfaces "file is not a database" now, not at first query.
            _ = try scalar("SELECT count(*) FROM sqlite_schema", as: Int64.self)
        } catch {
            sqlite3_close_v2(handle)
            throw error
        }
    }

    /// `path` with its folder resolved (`realpath`), the file name kept as it is; `path`
    /// unchanged when the folder can't be resolved (SQLite then reports the failure).
    static func resolvingFolder(of path: String) -> String {
        let name = (path as NSString).lastPathComponent
        let folder = (path as NSString).deletingLastPathComponent
        guard !name.isEmpty, name != ".", name != "..", let resolved = realpath(folder.isEmpty ? "." : folder, nil) else { return path }
        defer { free(resolved) }
        return (String(cString: resolved) as NSString).appendingPathComponent(name)
    }

    /// Process-wide SQLite settings, applied once before the first connection: memory
    /// statistics off (their global mutex serialised every allocation across threads).
    private static let processConfiguration: Void = {
        _ = csqlite_disable_memory_statistics()
    }()

    /// What the work limit of a connection to `path` (a path or a `file:` URI) is sized by:
    /// the file and its WAL, the `length` of a slice, or nothing for memory.
    private static func sizeSource(of path: String) -> WorkBudget.Source {
        if path == ":memory:" || path.isEmpty { return .memory }
        guard path.hasPrefix("file:") else { return .files([path, path + "-wal"]) }
        var rest = path.dropFirst("file:".count)
        if let query = rest.firstIndex(of: "?") {
            for parameter in rest[rest.index(after: query)...].split(separator: "&") where parameter.hasPrefix("length=") {
                return .bytes(Int64(parameter.dropFirst("length=".count)) ?? 0)
            }
            rest = rest[..<query]
        }
        if rest.hasPrefix("//") { rest = rest.dropFirst(2) }
        let file = String(rest).removingPercentEncoding ?? String(rest)
        return file.isEmpty || file == ":memory:" ? .memory : .files([file, file + "-wal"])
    }

    /// Opens a private in-memory database, gone when the connection closes.
    public static func inMemory() throws(DatabaseError) -> Database {
        try Database(path: ":memory:", mode: .create)
    }

    deinit { close() }

    /// Finalizes cached statements and closes the connection. Idempotent.
    ///
    /// Statements prepared with ``prepare(_:)`` must be released before closing; SQLite
    /// defers the real close until they are.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    // MARK: Running SQL

    /// Runs one or more SQL statements that take no parameters.
    public func execute(_ sql: String) throws(DatabaseError) {
        var message: UnsafeMutablePointer<CChar>?
        budget.startStatement()
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) }
            sqlite3_free(message)
            if code == SQLITE_INTERRUPT, budget.tripped { throw DatabaseError.workLimitExceeded(sql: sql) }
            let base = DatabaseError(handle: handle, code: code, sql: sql)
            throw DatabaseError(extendedCode: base.extendedCode, message: text ?? base.message, sql: sql)
        }
    }

    /// Runs one statement with parameters.
    public func execute(_ sql: String, _ arguments: [SQLValue]) throws(DatabaseError) {
        try cachedStatement(sql).execute(arguments)
    }

    /// Prepares a statement owned by the caller.
    public func prepare(_ sql: String) throws(DatabaseError) -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// A prepared statement for `sql`, reused across calls; reset before it is returned.
    public func cachedStatement(_ sql: String) throws(DatabaseError) -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        let statement = try Statement(database: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// The first column of the first row of `sql`, or nil when there is no row or it is NULL.
    public func scalar<T: DatabaseValueConvertible>(_ sql: String, _ arguments: [SQLValue] = [], as type: T.Type = T.self) throws(DatabaseError) -> T? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        if !arguments.isEmpty || statement.parameterCount > 0 { try statement.bind(arguments) }
        guard try statement.step() else { return nil }
        return T.read(from: statement, at: 0)
    }

    /// Every row of `sql` as values (for small results).
    public func rows(_ sql: String, _ arguments: [SQLValue] = []) throws(DatabaseError) -> [[SQLValue]] {
        try cachedStatement(sql).fetchAll(arguments)
    }

    /// The rowid of the last successful insert on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// Sets what ``lastInsertRowID`` reports until the next successful insert (a marker that
    /// tells whether a statement inserted a row).
    public func setLastInsertRowID(_ rowID: Int64) { sqlite3_set_last_insert_rowid(handle, rowID) }
    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes64(handle)) }
    /// Rows changed since the connection opened.
    public var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }
    /// Whether a transaction is open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: Configuration

    /// Sets the journal mode; returns the mode SQLite reports (in-memory databases keep `MEMORY`).
    @discardableResult
    public func setJournalMode(_ mode: JournalMode) throws(DatabaseError) -> String {
        try scalar("PRAGMA journal_mode = \(mode.rawValue)", as: String.self) ?? ""
    }

    /// `PRAGMA user_version`, the integer applications keep for their own versioning.
    public func userVersion() throws(DatabaseError) -> Int {
        try scalar("PRAGMA user_version", as: Int.self) ?? 0
    }
    public func setUserVersion(_ version: Int) throws(DatabaseError) {
        try execute("PRAGMA user_version = \(version)")
    }

    /// Whether a table (or view) named `name` exists.
    public func tableExists(_ name: String) throws(DatabaseError) -> Bool {
        try scalar("SELECT 1 FROM sqlite_schema WHERE name = ? AND type IN ('table','view')", [.text(name)], as: Int.self) != nil
    }

    /// The column names of `table`, in order.
    public func columns(of table: String) throws(DatabaseError) -> [String] {
        try rows("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap {
            if case .text(let name) = $0.first { name } else { nil }
        }
    }

    /// Runs `PRAGMA integrity_check` and returns its messages (`["ok"]` when healthy).
    public func integrityCheck() throws(DatabaseError) -> [String] {
        try rows("PRAGMA integrity_check").compactMap { row in
            if case .text(let message) = row.first { message } else { nil }
        }
    }

    /// Runs `PRAGMA foreign_key_check` and returns the number of violations.
    public func foreignKeyViolations() throws(DatabaseError) -> Int {
        try rows("PRAGMA foreign_key_check").count
    }

    /// Interrupts a long query running on this connection from another thread.
    public func interrupt() { sqlite3_interrupt(handle) }
}

/// Escapes an SQL identifier (table or column name) with double quotes.
public func quoteIdentifier(_ name: String) -> String {
    guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
    return "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
}
