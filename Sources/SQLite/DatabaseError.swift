internal import CSQLite

/// An error reported by SQLite, with the extended result code, SQLite's message and the SQL.
///
/// Bound values are never part of the error: they may hold a user's private data.
/// Match on ``code`` (the primary result code) or ``extendedCode``:
///
/// ```swift
/// do { try db.execute("INSERT INTO card(id) VALUES (1)") }
/// catch let error as DatabaseError where error.code == DatabaseError.constraint { … }
/// ```
public struct DatabaseError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The extended result code (for example 2067, `SQLITE_CONSTRAINT_UNIQUE`).
    public let extendedCode: Int32
    /// SQLite's message, or a message of ours for errors raised by this layer.
    public let message: String
    /// The SQL that failed, when there is one.
    public let sql: String?

    /// The primary result code (the low byte of the extended code).
    public var code: Int32 { extendedCode & 0xFF }

    /// Whether a statement was stopped because it exceeded its connection's
    /// ``Database/workLimit`` (a hostile or damaged file), not by ``Database/interrupt()``.
    public private(set) var isWorkLimitExceeded = false

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// The error of a statement stopped by the work limit.
    static func workLimitExceeded(sql: String?) -> DatabaseError {
        var error = DatabaseError(extendedCode: SQLITE_INTERRUPT,
                                  message: "a statement exceeded its work limit (the database is damaged or built to make queries run forever)",
                                  sql: sql)
        error.isWorkLimitExceeded = true
        return error
    }

    public var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql { text += " (in \(sql))" }
        return text
    }

    // Primary result codes callers commonly match on.
    public static let error = SQLITE_ERROR
    public static let busy = SQLITE_BUSY
    public static let locked = SQLITE_LOCKED
    public static let readOnly = SQLITE_READONLY
    public static let ioError = SQLITE_IOERR
    public static let corrupt = SQLITE_CORRUPT
    public static let full = SQLITE_FULL
    public static let cantOpen = SQLITE_CANTOPEN
    public static let constraint = SQLITE_CONSTRAINT
    public static let mismatch = SQLITE_MISMATCH
    public static let notADatabase = SQLITE_NOTADB
    public static let interrupt = SQLITE_INTERRUPT
    /// `SQLITE_CONSTRAINT_UNIQUE`.
    public static let constraintUnique: Int32 = 2067
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`.
    public static let constraintPrimaryKey: Int32 = 1555
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`.
    public static let constraintForeignKey: Int32 = 787

    /// Builds the error for a failed call on `handle`.
    static func check(_ code: Int32, _ handle: OpaquePointer?, sql: String? = nil) throws(DatabaseError) {
        guard code != SQLITE_OK else { return }
        throw DatabaseError(handle: handle, code: code, sql: sql)
    }

    init(handle: OpaquePointer?, code: Int32, sql: String?) {
        let extended = handle.map { sqlite3_extended_errcode($0) } ?? code
        let message = handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        // sqlite3_extended_errcode reports the last error of the connection; trust it only
        // when its primary code matches the code we got.
        self.init(extendedCode: (extended & 0xFF) == (code & 0xFF) ? extended : code, message: message, sql: sql)
    }
}
