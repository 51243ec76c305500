import Foundation
internal import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Database {
    /// How every connection is configured against a hostile file (see the type's overview).
    ///
    /// - `SQLITE_DBCONFIG_TRUSTED_SCHEMA` off (`PRAGMA trusted_schema=OFF`): SQL stored in the
    ///   schema (views, triggers, indexes, defaults, generated columns, CHECK constraints)
    ///   may call only innocuous functions and use only innocuous virtual tables.
    /// - `SQLITE_DBCONFIG_DEFENSIVE` on: no `PRAGMA writable_schema`, `journal_mode=OFF` or
    ///   `schema_version=N`, no writes to shadow tables or `sqlite_dbpage`.
    /// - Read-only connections: `SQLITE_DBCONFIG_ENABLE_VIEW` and `_ENABLE_TRIGGER` off, so
    ///   a view or trigger in the file is never run (selecting from a view is an error).
    /// - A progress handler bounding each statement's work (``workLimit``).
    func harden(readOnly: Bool) throws(DatabaseError) {
        try configure(SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0)
        try configure(SQLITE_DBCONFIG_DEFENSIVE, 1)
        if readOnly {
            try configure(SQLITE_DBCONFIG_ENABLE_VIEW, 0)
            try configure(SQLITE_DBCONFIG_ENABLE_TRIGGER, 0)
        }
        let context = Unmanaged.passUnretained(budget).toOpaque()
        sqlite3_progress_handler(handle, WorkBudget.opcodesPerCall, { context in
            guard let context else { return 0 }
            return Unmanaged<WorkBudget>.fromOpaque(context).takeUnretainedValue().charge() ? 0 : 1
        }, context)
    }

    /// Sets one `sqlite3_db_config` option that takes an int, and checks SQLite took it.
    private func configure(_ option: Int32, _ value: Int32) throws(DatabaseError) {
        var result: Int32 = -1
        let code = csqlite_db_config_int(handle, option, value, &result)
        guard code == SQLITE_OK, result == value else {
            throw DatabaseError(extendedCode: code == SQLITE_OK ? SQLITE_ERROR : code,
                                message: "can't set database configuration option \(option) to \(value)")
        }
    }

    /// Trusts the SQL in the file's schema again (`trusted_schema=ON`), so its triggers may
    /// use virtual tables such as FTS5. Call it only once the schema is known to hold
    /// exactly what the caller itself defines (checked against ``schemaObjects()``, or a
    /// file the caller has just built), on a connection that writes.
    public func trustSchema() throws(DatabaseError) {
        try configure(SQLITE_DBCONFIG_TRUSTED_SCHEMA, 1)
    }

    /// Turns defensive mode off for a database this program creates and alone writes, so it
    /// can use `journal_mode=OFF` (a throwaway file built in one go, such as an export).
    /// Never call it on a file that came from elsewhere.
    public func allowUnsafeJournalModes() throws(DatabaseError) {
        try configure(SQLITE_DBCONFIG_DEFENSIVE, 0)
    }

    /// The most virtual-machine steps one statement may take before it fails with a
    /// ``DatabaseError`` whose ``DatabaseError/isWorkLimitExceeded`` is true, or nil when
    /// unbounded (in-memory databases, by default).
    ///
    /// The default for a file is ``WorkBudget/stepsPerByte`` steps per byte of the file
    /// and its WAL (measured again when reached, so a file growing during an import raises
    /// it), at least ``WorkBudget/minimumSteps``: far more than any query of ours needs (a
    /// scan costs tens of steps per row, a row takes tens of bytes or more), and a bound on
    /// what a hostile schema or a damaged file can make a statement do (about a second per
    /// 100 million steps). Work inside functions (a `LIKE` over a long text) is not counted.
    public var workLimit: Int64? {
        get { budget.fixedLimit ?? budget.currentLimit }
        set { budget.fixedLimit = newValue.map { max(0, $0) } }
    }
}

/// The progress handler's state for one connection: steps charged to the running
/// statement, and the limit. Used from the connection's own thread only.
final class WorkBudget: @unchecked Sendable {
    /// What the limit is proportional to.
    enum Source {
        /// In-memory: no limit unless one is set.
        case memory
        /// The size of these files (the database and its WAL).
        case files([String])
        /// A fixed size (a slice of a file).
        case bytes(Int64)
    }

    /// The handler runs every this many virtual-machine opcodes.
    static let opcodesPerCall: Int32 = 10_000
    /// Steps allowed per byte of the database.
    static let stepsPerByte: Int64 = 256
    /// Steps any statement over a file may take, however small the file.
    static let minimumSteps: Int64 = 200_000_000

    private let source: Source
    /// A limit set through ``Database/workLimit``, replacing the size-based one.
    var fixedLimit: Int64?
    /// Steps charged to the statement running now (in units of ``opcodesPerCall``).
    private var charged: Int64 = 0
    /// The size-based limit as last measured, in calls.
    private var measuredCalls: Int64 = 0
    /// Whether the limit stopped the last statement (the interrupt is ours, not a caller's).
    private(set) var tripped = false

    init(source: Source) {
        self.source = source
        if case .memory = source { measuredCalls = .max } else { measuredCalls = Self.minimumSteps / Int64(Self.opcodesPerCall) }
    }

    /// The size-based limit in steps, or nil for memory.
    var currentLimit: Int64? {
        if case .memory = source { return nil }
        return measureSteps()
    }

    /// Called when a statement starts: its work is counted from zero.
    func startStatement() {
        charged = 0
        tripped = false
    }

    /// Charges one handler call; false once the statement is over its limit.
    func charge() -> Bool {
        charged += 1
        if let fixedLimit {
            if charged <= fixedLimit / Int64(Self.opcodesPerCall) { return true }
        } else {
            guard charged > measuredCalls else { return true }
            // Over the last measurement: the file may have grown since.
            measuredCalls = measureSteps() / Int64(Self.opcodesPerCall)
            if charged <= measuredCalls { return true }
        }
        tripped = true
        return false
    }

    private func measureSteps() -> Int64 {
        var bytes: Int64 = 0
        switch source {
        case .memory: return .max
        case .bytes(let count): bytes = count
        case .files(let paths):
            for path in paths {
                var status = stat()
                if stat(path, &status) == 0 { bytes += Int64(status.st_size) }
            }
        }
        let (steps, overflow) = bytes.multipliedReportingOverflow(by: Self.stepsPerByte)
        return max(Self.minimumSteps, overflow ? .max : steps)
    }
}

/// One entry of a database's schema (`sqlite_schema`): a table, index, view or trigger.
public struct SchemaObject: Sendable, Equatable, CustomStringConvertible {
    /// `table`, `index`, `view` or `trigger`.
    public var type: String
    public var name: String
    /// The table an index or trigger belongs to (the object's own name for tables and views).
    public var tableName: String
    /// The statement that creates it, as SQLite keeps it; nil for automatic indexes.
    public var sql: String?

    public init(type: String, name: String, tableName: String, sql: String?) {
        self.type = type
        self.name = name
        self.tableName = tableName
        self.sql = sql
    }

    /// Whether this is a virtual table (`CREATE VIRTUAL TABLE … USING module(…)`).
    public var isVirtualTable: Bool {
        type == "table" && (sql?.uppercased().hasPrefix("CREATE VIRTUAL TABLE") ?? false)
    }

    /// `trigger "name" on "table"`, for messages.
    public var description: String {
        let kind = isVirtualTable ? "virtual table" : type
        return type == "index" || type == "trigger" ? "\(kind) \"\(name)\" on \"\(tableName)\"" : "\(kind) \"\(name)\""
    }
}

extension Database {
    /// Every entry of the main schema, in the order SQLite lists them. Reading it parses the
    /// schema, so a malformed schema fails here (`SQLITE_CORRUPT`), before any query.
    public func schemaObjects() throws(DatabaseError) -> [SchemaObject] {
        let statement = try prepare("SELECT type, name, tbl_name, sql FROM main.sqlite_schema")
        var objects: [SchemaObject] = []
        while try statement.step() {
            objects.append(SchemaObject(type: statement.string(at: 0), name: statement.string(at: 1), tableName: statement.string(at: 2),
                                        sql: statement.isNull(at: 3) ? nil : statement.string(at: 3)))
        }
        return objects
    }
}

extension Database {
    /// Makes SQLite create its own temporary files (statement journals, sorter spills, TEMP
    /// tables: the `etilqs_*` files it unlinks right after creating them) in `path` instead of
    /// `SQLITE_TMPDIR` or `TMPDIR`; nil restores the default. A program that removes its
    /// temporaries when a signal ends it points this at a folder it has registered, so a signal
    /// between SQLite's `open` and `unlink` of such a file leaves nothing behind.
    ///
    /// Call it once, before any connection is opened (SQLite reads the setting unlocked).
    public static func setTemporaryDirectory(_ path: String?) throws(DatabaseError) {
        let code = path.map { csqlite_set_temp_directory($0) } ?? csqlite_set_temp_directory(nil)
        guard code == SQLITE_OK else { throw DatabaseError(extendedCode: code, message: "can't set SQLite's temporary folder") }
    }
}
