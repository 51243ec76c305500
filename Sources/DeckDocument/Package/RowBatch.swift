import SQLite

/// The rows of one table that a bulk import writes, gathered and written by one multi-row
/// `INSERT OR FAIL` (or `OR IGNORE`) per ``rowsPerStatement`` rows.
///
/// Why: a statement per row closes its cursors when it ends, so the next row seeks every index
/// of the table again from its root, and each run pays the statement's start and halt; one
/// statement of many rows keeps the cursors where the last row went (rows arrive in key order,
/// so most index entries land next to the previous one). `OR FAIL` rather than the default
/// `ABORT`: SQLite keeps a statement journal (a copy of every page the statement changes) for a
/// statement of many rows that may have to be undone alone; an import is undone whole, so none
/// is needed. What is stored is the same as with a statement per row: the same values in the
/// same rows, only written in groups.
///
/// Rows are pending until the group is full or ``flush()`` writes them (one statement per row
/// for a group that is not full): the owner flushes before anything reads the table.
///
/// The pending texts and blobs are kept as bytes, one after the other in one buffer, and bound
/// from it without SQLite's copy (``Statement/bind(unsafeUTF8:at:)``): the buffer is not changed
/// while a group is written, and every run of a statement binds each of its parameters first.
///
/// A batch made `keyed` holds rows whose first value is the table's `INTEGER PRIMARY KEY`. When
/// a group's keys are the ones SQLite would give (consecutive, from one above the table's
/// largest key: an import's keys, taken under its write lock), they are bound NULL and SQLite
/// assigns them, then the last is checked. An explicit key costs SQLite a seek from the root
/// to make sure no row has it, before the insert (a quarter of a card insert's time, measured
/// with the sqlite3 CLI); an assigned one is appended where the last row went.
final class RowBatch {
    /// A pending value: what ``SQLValue`` holds, with texts and blobs as a range of ``bytes``
    /// (trivial to copy and to drop: no reference counting per value).
    enum Value: Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(start: Int, count: Int)
        case blob(start: Int, count: Int)
    }

    /// Values per row (the statement's parameters per row).
    let width: Int
    /// Rows per multi-row statement.
    let rowsPerStatement: Int
    private let one: Statement
    private let many: Statement
    /// A keyed batch's `SELECT max(rowid)` of its table; nil for other batches.
    private let largestKey: Statement?
    private let db: Database
    /// The pending rows' values and bytes.
    private var pending = Pending()
    /// The pending rows' values, row after row.
    var values: [Value] { pending.values }

    /// The values of the pending rows, row after row, and the bytes of their texts and blobs: what
    /// ``gatherRow(_:)`` hands a writer of a row to add its values to (one access to the batch
    /// per row, not one per value).
    struct Pending {
        fileprivate(set) var values: [Value] = []
        fileprivate(set) var bytes: [UInt8] = []

        /// Adds an integer.
        @inline(__always) mutating func append(integer value: Int64) { values.append(.integer(value)) }
        /// Adds a real number.
        @inline(__always) mutating func append(real value: Double) { values.append(.real(value)) }
        /// Adds a text.
        mutating func append(text: String) {
            appendText { bytes in
                var text = text
                text.withUTF8 { bytes.append(contentsOf: $0) }
            }
        }
        /// Adds a text that `write` appends as UTF-8 to the bytes it is given (an encoder writes
        /// it in place, without a `String` of its own).
        @inline(__always) mutating func appendText(_ write: (inout [UInt8]) -> Void) {
            let start = bytes.count
            write(&bytes)
            values.append(.text(start: start, count: bytes.count - start))
        }
        /// Adds a value.
        mutating func append(_ value: SQLValue) {
            switch value {
            case .null: values.append(.null)
            case .integer(let v): values.append(.integer(v))
            case .real(let v): values.append(.real(v))
            case .text(let v): append(text: v)
            case .blob(let v):
                let start = bytes.count
                bytes.append(contentsOf: v)
                values.append(.blob(start: start, count: bytes.count - start))
            }
        }
        fileprivate mutating func removeAll() {
            values.removeAll(keepingCapacity: true)
            bytes.removeAll(keepingCapacity: true)
        }
    }

    /// Prepares `verb INTO table (columns) VALUES rowValues, rowValues, …`; `rowValues` is the
    /// parenthesised values of one row, with a `?` for each of ``width`` parameters (constants
    /// may stand for the other columns).
    init(_ db: Database, verb: String = "INSERT OR FAIL", table: String, columns: [String], rowValues: String,
         rowsPerStatement: Int? = nil, keyed: Bool = false) throws {
        self.db = db
        largestKey = keyed ? try db.prepare("SELECT max(\"rowid\") FROM \(quoteIdentifier(table))") : nil
        width = rowValues.utf8.count(where: { $0 == UInt8(ascii: "?") })
        // SQLite takes at most 32,766 parameters per statement; a few hundred rows gain nothing more.
        let rows = max(1, min(rowsPerStatement ?? (width <= 4 ? 256 : 64), 32_766 / max(width, 1)))
        self.rowsPerStatement = rows
        let head = "\(verb) INTO \(quoteIdentifier(table)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) VALUES "
        one = try db.prepare(head + rowValues)
        many = try db.prepare(head + Array(repeating: rowValues, count: rows).joined(separator: ", "))
        pending.values.reserveCapacity(width * rows)
    }

    /// The number of rows not written yet.
    var pendingRows: Int { pending.values.count / width }

    /// Adds a value of the row being gathered.
    func append(_ value: SQLValue) { pending.append(value) }
    /// Adds an integer of the row being gathered.
    func append(integer value: Int64) { pending.append(integer: value) }
    /// Adds a real number of the row being gathered.
    func append(real value: Double) { pending.append(real: value) }
    /// Adds a text of the row being gathered.
    func append(text: String) { pending.append(text: text) }
    /// Adds a text of the row being gathered that `write` appends as UTF-8 (``Pending/appendText(_:)``).
    func appendText(_ write: (inout [UInt8]) -> Void) { pending.appendText(write) }

    /// Adds a whole row: `body` appends its ``width`` values; writes the group when it is full.
    @inline(__always) func gatherRow(_ body: (inout Pending) -> Void) throws(DatabaseError) {
        body(&pending)
        try endRow()
    }

    /// Ends the row being gathered (its ``width`` values appended); writes the group when it is full.
    func endRow() throws(DatabaseError) {
        if pending.values.count == width * rowsPerStatement { try writeFullGroup() }
    }

    /// Whether a pending row has `value` at position `column` (0-based) of its values.
    func pendingRowHas(_ value: SQLValue, at column: Int) -> Bool {
        var index = column
        while index < values.count {
            if matches(values[index], value) { return true }
            index += width
        }
        return false
    }

    private func matches(_ held: Value, _ value: SQLValue) -> Bool {
        switch (held, value) {
        case (.null, .null): return true
        case (.integer(let a), .integer(let b)): return a == b
        case (.real(let a), .real(let b)): return a == b
        case (.text(let start, let count), .text(var text)):
            return text.withUTF8 { $0.elementsEqual(pending.bytes[start..<start + count]) }
        case (.blob(let start, let count), .blob(let data)):
            return data.elementsEqual(pending.bytes[start..<start + count])
        default: return false
        }
    }

    /// Writes every pending row.
    func flush() throws(DatabaseError) {
        guard !pending.values.isEmpty else { return }
        if pending.values.count == width * rowsPerStatement { return try writeFullGroup() }
        defer { pending.removeAll() }
        let values = pending.values
        var start = 0
        while start + width <= values.count {
            try write(values[start..<start + width], with: one)
            start += width
        }
    }

    private func writeFullGroup() throws(DatabaseError) {
        defer { pending.removeAll() }
        try write(pending.values[...], with: many)
    }

    /// Binds `rowValues` to the parameters of `statement` in order and runs it; the texts are
    /// bound in place, valid while ``bytes`` does not change (during this call).
    private func write(_ rowValues: ArraySlice<Value>, with statement: Statement) throws(DatabaseError) {
        let assignedThrough = try keysSQLiteAssigns(rowValues)
        let result: Result<Void, DatabaseError> = pending.bytes.withUnsafeBufferPointer { buffer in
            var parameter: Int32 = 1
            var column = 0
            for value in rowValues {
                defer { column = column + 1 == width ? 0 : column + 1 }
                if column == 0, assignedThrough != nil {
                    statement.bindNull(at: parameter)
                    parameter += 1
                    continue
                }
                switch value {
                case .null: statement.bindNull(at: parameter)
                case .integer(let v): statement.bind(int64: v, at: parameter)
                case .real(let v): statement.bind(double: v, at: parameter)
                case .text(let start, let count):
                    statement.bind(unsafeUTF8: UnsafeBufferPointer(rebasing: buffer[start..<start + count]), at: parameter)
                case .blob(let start, let count):
                    statement.bind(unsafeBlob: UnsafeBufferPointer(rebasing: buffer[start..<start + count]), at: parameter)
                }
                parameter += 1
            }
            return Result { () throws(DatabaseError) in try statement.execute() }
        }
        try result.get()
        if let assignedThrough, db.lastInsertRowID != assignedThrough {
            // Not reached while the import holds the write lock; the import is undone whole.
            throw DatabaseError(extendedCode: 1, message: "rows were given keys through \(db.lastInsertRowID), not \(assignedThrough)")
        }
    }

    /// The last key of `rowValues` when SQLite would give their rows the keys they hold (a keyed
    /// batch, consecutive keys from one above the table's largest), else nil.
    private func keysSQLiteAssigns(_ rowValues: ArraySlice<Value>) throws(DatabaseError) -> Int64? {
        guard let largestKey, case .integer(let first)? = rowValues.first else { return nil }
        let rows = rowValues.count / width
        guard rows > 0, first > 0, first <= Int64.max - Int64(rows) else { return nil }
        var index = rowValues.startIndex
        for row in 0..<rows {
            guard case .integer(let key) = rowValues[index], key == first + Int64(row) else { return nil }
            index += width
        }
        defer { largestKey.reset() }
        guard try largestKey.step() else { return nil }
        let largest = largestKey.isNull(at: 0) ? 0 : largestKey.int64(at: 0)
        return first == largest + 1 ? first + Int64(rows) - 1 : nil
    }
}
