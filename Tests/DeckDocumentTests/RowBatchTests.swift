import Foundation
import SQLite
import Testing
@testable import DeckDocument

/// ``RowBatch`` binds its texts and blobs from its own buffer without SQLite's copy: what it
/// stores must be the values given, in full groups and in the rows a flush writes one by one,
/// after the buffer has held the texts of the groups before.
@Suite struct RowBatchTests {
    /// Texts of every shape: empty, small (a Swift string held inline), long, not ASCII.
    static func text(_ row: Int) -> String {
        switch row % 5 {
        case 0: ""
        case 1: "r\(row)"
        case 2: String(repeating: "long text \(row) ", count: 1 + row % 40)
        case 3: "é😀 \(row) \u{1}\n\"'"
        default: "row \(row)"
        }
    }

    @Test(arguments: [1, 3, 64])
    func storesTheValuesGiven(rowsPerStatement: Int) throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, a TEXT, b BLOB, c REAL, d TEXT, e INTEGER)")
        let batch = try RowBatch(db, table: "t", columns: ["k", "a", "b", "c", "d", "e"], rowValues: "(?, ?, ?, ?, ?, ?)",
                                 rowsPerStatement: rowsPerStatement)
        let count = 200  // full groups and a partial one at the end
        for row in 0..<count {
            batch.append(integer: Int64(row))
            batch.append(text: Self.text(row))
            batch.append(.blob(Data(Self.text(row + 1).utf8)))
            batch.append(real: Double(row) / 4)
            batch.appendText { $0.append(contentsOf: "in place \(row)".utf8) }
            batch.append(row % 2 == 0 ? .null : .integer(-Int64(row)))
            try batch.endRow()
            if row == 150 {
                // What is pending is found by its value, and only that (a row per statement: written at once).
                let pending = rowsPerStatement > 1
                #expect(batch.pendingRowHas(.text(Self.text(row)), at: 1) == pending)
                #expect(!batch.pendingRowHas(.text(Self.text(row) + "x"), at: 1))
                #expect(batch.pendingRowHas(.blob(Data(Self.text(row + 1).utf8)), at: 2) == pending)
                #expect(batch.pendingRows == (pending ? (row + 1) % rowsPerStatement : 0))
            }
        }
        try batch.flush()
        #expect(batch.pendingRows == 0)
        let rows = try db.rows("SELECT k, a, b, c, d, e FROM t ORDER BY k")
        #expect(rows.count == count)
        for (row, values) in rows.enumerated() {
            let blob = Data(Self.text(row + 1).utf8)
            let expected: [SQLValue] = [.integer(Int64(row)), .text(Self.text(row)), .blob(blob),
                                        .real(Double(row) / 4), .text("in place \(row)"), row % 2 == 0 ? .null : .integer(-Int64(row))]
            #expect(values == expected, "row \(row)")
        }
    }
    /// A keyed batch stores the keys it is given, whether SQLite can assign them (consecutive,
    /// from one above the largest) or not (a gap, keys above the next one, a key taken by a row
    /// the batch did not write): SQLite assigns only the first kind.
    @Test(arguments: [1, 4, 64])
    func aKeyedBatchStoresTheKeysGiven(rowsPerStatement: Int) throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
        let batch = try RowBatch(db, table: "t", columns: ["k", "v"], rowValues: "(?, ?)", rowsPerStatement: rowsPerStatement, keyed: true)
        func add(_ keys: some Sequence<Int64>) throws {
            for key in keys {
                batch.append(integer: key)
                batch.append(text: "v\(key)")
                try batch.endRow()
            }
            try batch.flush()
        }
        var expected: [Int64] = []
        try add(1...100)                   // from an empty table: assigned
        expected += 1...100
        try add(200...260)                 // above the next key: given
        expected += 200...260
        try add(261...300)                 // the next keys again: assigned
        expected += 261...300
        try add([400, 402, 401, 403])      // not consecutive: given
        expected += [400, 401, 402, 403]
        try db.execute("INSERT INTO t VALUES (404, 'other')")
        try add(405...410)                 // after a row written outside the batch: assigned
        expected += [404] + Array(405...410)
        try db.execute("DELETE FROM t WHERE k = 410")
        try add(411...420)                 // the largest key deleted: given (SQLite would start at 410)
        expected.removeLast()
        expected += 411...420
        let rows = try db.rows("SELECT k, v FROM t ORDER BY k")
        #expect(rows.map { $0[0] } == expected.map { .integer($0) })
        #expect(rows.allSatisfy { row in
            guard case .integer(let key) = row[0], case .text(let value) = row[1] else { return false }
            return value == (key == 404 ? "other" : "v\(key)")
        })
    }
}
