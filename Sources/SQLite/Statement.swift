import Foundation
internal import CSQLite

/// A prepared SQL statement: bind parameters, step through rows, read columns.
///
/// Parameters are 1-based, columns 0-based, as in SQLite's C API. A statement belongs to
/// one ``Database`` and must not outlive it. Reuse a statement with ``reset()``; the
/// database's ``Database/cachedStatement(_:)`` keeps frequently used ones prepared.
///
/// ```swift
/// let statement = try db.prepare("SELECT front FROM card WHERE id = ?")
/// try statement.bind([.integer(42)])
/// while try statement.step() { print(statement.string(at: 0)) }
/// ```
public final class Statement {
    let handle: OpaquePointer
    unowned let database: Database
    /// The SQL text, as given to ``Database/prepare(_:)``.
    public let sql: String

    init(database: Database, sql: String) throws(DatabaseError) {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(database.handle, sql, -1, 0, &handle, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_finalize(handle)
            throw DatabaseError(handle: database.handle, code: code == SQLITE_OK ? SQLITE_MISUSE : code, sql: sql)
        }
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: Binding

    /// The number of parameters the statement takes.
    public var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }

    /// Binds `values` to parameters 1, 2, … in order, after clearing old bindings.
    public func bind(_ values: [SQLValue]) throws(DatabaseError) {
        guard values.count == Int(parameterCount) else {
            throw DatabaseError(extendedCode: SQLITE_RANGE,
                                message: "statement takes \(parameterCount) parameters, got \(values.count)", sql: sql)
        }
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() { bind(value, at: Int32(offset + 1)) }
    }

    /// Binds any convertible values to parameters 1, 2, … in order.
    public func bind(_ values: [any DatabaseValueConvertible]) throws(DatabaseError) {
        try bind(values.map(\.databaseValue))
    }

    /// Binds one value to parameter `index` (1-based).
    public func bind(_ value: SQLValue, at index: Int32) {
        switch value {
        case .null: bindNull(at: index)
        case .integer(let v): bind(int64: v, at: index)
        case .real(let v): bind(double: v, at: index)
        case .text(let v): bind(text: v, at: index)
        case .blob(let v): bind(blob: v, at: index)
        }
    }

    /// Binds a typed value to parameter `index` (1-based).
    public func bind(_ value: some DatabaseValueConvertible, at index: Int32) {
        value.bind(to: self, at: index)
    }

    public func bindNull(at index: Int32) { sqlite3_bind_null(handle, index) }
    public func bind(int64 value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }
    public func bind(double value: Double, at index: Int32) { sqlite3_bind_double(handle, index, value) }
    public func bind(text value: String, at index: Int32) {
        var value = value
        value.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                if let base = chars.baseAddress {
                    _ = sqlite3_bind_text(handle, index, base, Int32(chars.count), csqlite_transient())
                } else {
                    _ = sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
                }
            }
        }
    }
    public func bind(blob value: Data, at index: Int32) {
        value.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress {
                _ = sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(buffer.count), csqlite_transient())
            } else {
                _ = sqlite3_bind_zeroblob(handle, index, 0)
            }
        }
    }

    /// Binds UTF-8 bytes as text to parameter `index` (1-based) without copying them
    /// (`SQLITE_STATIC`), for a caller that binds many texts held in one buffer of its own.
    ///
    /// SQLite reads the bytes when the statement steps, not when they are bound: they must stay
    /// valid and unchanged for every step that runs with this binding. Bind the parameter again
    /// (or ``clearBindings()``) before stepping once they are gone. Not checked to be UTF-8.
    /// Cost: none per byte (``bind(text:at:)`` has SQLite allocate and copy each text).
    package func bind(unsafeUTF8 bytes: UnsafeBufferPointer<UInt8>, at index: Int32) {
        if let base = bytes.baseAddress, !bytes.isEmpty {
            base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                _ = sqlite3_bind_text(handle, index, chars, Int32(bytes.count), csqlite_static())
            }
        } else {
            _ = sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
        }
    }

    /// Binds bytes as a blob to parameter `index` (1-based) without copying them
    /// (`SQLITE_STATIC`); the same rules as ``bind(unsafeUTF8:at:)``. An empty buffer binds an
    /// empty blob, as ``bind(blob:at:)`` does.
    package func bind(unsafeBlob bytes: UnsafeBufferPointer<UInt8>, at index: Int32) {
        if let base = bytes.baseAddress, !bytes.isEmpty {
            _ = sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(bytes.count), csqlite_static())
        } else {
            _ = sqlite3_bind_zeroblob(handle, index, 0)
        }
    }

    /// Clears all bindings to NULL.
    public func clearBindings() { sqlite3_clear_bindings(handle) }

    // MARK: Stepping

    /// Advances to the next row: true when a row is available, false when done.
    @discardableResult
    public func step() throws(DatabaseError) -> Bool {
        // A statement starting (or restarting after it finished) gets a fresh work budget.
        if sqlite3_stmt_busy(handle) == 0 { database.budget.startStatement() }
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = code == SQLITE_INTERRUPT && database.budget.tripped
                ? DatabaseError.workLimitExceeded(sql: sql)
                : DatabaseError(handle: database.handle, code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement so it can run again; bindings are kept.
    public func reset() { sqlite3_reset(handle) }

    /// Binds `values`, runs the statement to completion and resets it.
    public func execute(_ values: [SQLValue]) throws(DatabaseError) {
        try bind(values)
        try execute()
    }

    /// Runs the statement to completion with its current bindings and resets it.
    public func execute() throws(DatabaseError) {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    // MARK: Columns

    /// The number of columns in a result row.
    public var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of column `index`.
    public func columnName(at index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    public func isNull(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }
    /// Whether column `index` of the current row is stored as text.
    public func isText(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_TEXT }
    /// Whether column `index` of the current row is stored as an integer.
    public func isInteger(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_INTEGER }
    /// Whether column `index` of the current row is stored as an integer or a real number.
    public func isNumber(at index: Int32) -> Bool {
        let type = sqlite3_column_type(handle, index)
        return type == SQLITE_INTEGER || type == SQLITE_FLOAT
    }
    public func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }
    public func double(at index: Int32) -> Double { sqlite3_column_double(handle, index) }
    public func string(at index: Int32) -> String {
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
    public func data(at index: Int32) -> Data {
        guard let blob = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: blob, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// Column `index` of the current row in its storage class.
    public func value(at index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(int64(at: index))
        case SQLITE_FLOAT: .real(double(at: index))
        case SQLITE_TEXT: .text(string(at: index))
        case SQLITE_BLOB: .blob(data(at: index))
        default: .null
        }
    }

    /// Column `index` of the current row converted to `T`, or nil when NULL or not convertible.
    public func column<T: DatabaseValueConvertible>(_ index: Int32, as type: T.Type = T.self) -> T? {
        T.read(from: self, at: index)
    }

    /// The whole current row as values.
    public func row() -> [SQLValue] {
        (0..<columnCount).map { value(at: $0) }
    }

    /// Runs the statement with `values` and returns every row (small results only).
    public func fetchAll(_ values: [SQLValue] = []) throws(DatabaseError) -> [[SQLValue]] {
        defer { sqlite3_reset(handle) }
        if !values.isEmpty || parameterCount > 0 { try bind(values) }
        var rows: [[SQLValue]] = []
        while try step() { rows.append(row()) }
        return rows
    }
}
