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
final class RowBatch {
    /// Values per row (the statement's parameters per row).
    let width: Int
    /// Rows per multi-row statement.
    let rowsPerStatement: Int
    private let one: Statement
    private let many: Statement
    /// The pending rows' values, row after row.
    private(set) var values: [SQLValue] = []

    /// Prepares `verb INTO table (columns) VALUES rowValues, rowValues, …`; `rowValues` is the
    /// parenthesised values of one row, with a `?` for each of ``width`` parameters (constants
    /// may stand for the other columns).
    init(_ db: Database, verb: String = "INSERT OR FAIL", table: String, columns: [String], rowValues: String,
         rowsPerStatement: Int? = nil) throws {
        width = rowValues.utf8.count(where: { $0 == UInt8(ascii: "?") })
        // SQLite takes at most 32,766 parameters per statement; a few hundred rows gain nothing more.
        let rows = max(1, min(rowsPerStatement ?? (width <= 4 ? 256 : 64), 32_766 / max(width, 1)))
        self.rowsPerStatement = rows
        let head = "\(verb) INTO \(quoteIdentifier(table)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) VALUES "
        one = try db.prepare(head + rowValues)
        many = try db.prepare(head + Array(repeating: rowValues, count: rows).joined(separator: ", "))
        values.reserveCapacity(width * rows)
    }

    /// The number of rows not written yet.
    var pendingRows: Int { values.count / width }

    /// Adds a value of the row being gathered.
    @inline(__always) func append(_ value: SQLValue) { values.append(value) }

    /// Ends the row being gathered (its ``width`` values appended); writes the group when it is full.
    func endRow() throws(DatabaseError) {
        if values.count == width * rowsPerStatement { try writeFullGroup() }
    }

    /// Whether a pending row has `value` at position `column` (0-based) of its values.
    func pendingRowHas(_ value: SQLValue, at column: Int) -> Bool {
        var index = column
        while index < values.count {
            if values[index] == value { return true }
            index += width
        }
        return false
    }

    /// Writes every pending row.
    func flush() throws(DatabaseError) {
        guard !values.isEmpty else { return }
        if values.count == width * rowsPerStatement { return try writeFullGroup() }
        defer { values.removeAll(keepingCapacity: true) }
        var start = 0
        while start + width <= values.count {
            for offset in 0..<width { one.bind(values[start + offset], at: Int32(offset + 1)) }
            try one.execute()
            start += width
        }
    }

    private func writeFullGroup() throws(DatabaseError) {
        defer { values.removeAll(keepingCapacity: true) }
        for (index, value) in values.enumerated() { many.bind(value, at: Int32(index + 1)) }
        try many.execute()
    }
}
