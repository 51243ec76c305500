import Foundation
import SQLite
import Testing
@testable import DeckDocument

/// The value rules evaluated in Swift (``NativeCheck``) hold for exactly the values their SQL
/// conditions hold for, and a ``DeckStoreV2/RowValueCheck`` names the column the SQL expression
/// of all the table's rules names.
@Suite struct RowValueCheckTests {
    /// Values at and around every bound the rules use, of every storage class.
    static let values: [SQLValue] = {
        var integers: [Int64] = [Int64.min, Int64.min + 1, Int64.max - 1, Int64.max, 4_294_967_296]
        for bound: Int64 in [0, 1, 2, 3, 4, 5, 6, 7, 10, 23, 499, 999, 1000, 100_000, 86_400_000, 2_147_483_647, -2_147_483_648,
                             62_135_596_800, 253_402_300_800, 253_402_300_800_000] {
            integers += [bound - 1, bound, bound + 1, -bound - 1, -bound, -bound + 1]
        }
        let reals: [Double] = [0, -0.0, 1e-300, 0.5, 0.999_999_9, 1, 1.000_000_1, 5.5, 9.999, 10, 10.000_001, 999.5, 1000, 1000.000_1,
                               -1, -62_135_596_800, -62_135_596_800.5, -62_135_596_799.5, 253_402_300_800, 253_402_300_800.5,
                               253_402_300_799.5, 1e300, -1e300, .infinity, -.infinity]
        let texts = ["", "0", "1", "12.5", "abc", "{}", "[]", "{\"a\":1}", "[1]", "a b", "é"]
        return integers.map { .integer($0) } + reals.map { .real($0) } + texts.map { .text($0) }
            + [.blob(Data()), .blob(Data([0x7B, 0x7D])), .null]
    }()

    @Test func eachNativeRuleHoldsWhereItsSQLHolds() throws {
        let db = try Database(path: ":memory:")
        defer { db.close() }
        let probe = try db.prepare("SELECT ?1")
        var compared = 0
        for rule in DeckStoreV2.columnRules {
            guard let native = rule.native else { continue }
            let sql = try db.prepare("SELECT coalesce(\(rule.valid.replacingOccurrences(of: "%c", with: "?1")), 0)")
            for value in Self.values {
                try sql.bind([value])
                #expect(try sql.step())
                let holdsInSQL = sql.int64(at: 0) != 0
                sql.reset()
                try probe.bind([value])
                #expect(try probe.step())
                let holdsInSwift = native.holds(probe, at: 0)
                probe.reset()
                #expect(holdsInSQL == holdsInSwift, "\(rule.table).\(rule.column) with \(value): SQL \(holdsInSQL), Swift \(holdsInSwift)")
                compared += 1
            }
        }
        #expect(compared > 1000, "the native rules were compared")
    }

    /// A row check leaves a column's rules to SQL or to Swift: each column has one rule.
    @Test func eachColumnHasOneRule() {
        var seen: Set<String> = []
        for rule in DeckStoreV2.columnRules {
            #expect(seen.insert("\(rule.table).\(rule.column)").inserted, "\(rule.table).\(rule.column) has two rules")
        }
    }

    /// Rows breaking one rule, several, or none: the row check names what the SQL expression
    /// of every rule names (the first in the rules' order).
    @Test(arguments: ["Card", "Note", "Review", "Preset", "Deck", "NoteType"])
    func theRowCheckNamesWhatTheSQLNames(table: String) throws {
        let db = try Database(path: ":memory:")
        defer { db.close() }
        let rules = DeckStoreV2.columnRules.filter { $0.table == table }
        let columns = Array(Set(rules.map(\.column))).sorted()
        try db.execute("CREATE TABLE t (\(columns.map { quoteIdentifier($0) }.joined(separator: ", ")))")
        // A valid value for each column: the first value of the corpus its rule accepts in SQL.
        var valid: [String: SQLValue] = [:]
        for rule in rules {
            let sql = try db.prepare("SELECT coalesce(\(rule.valid.replacingOccurrences(of: "%c", with: "?1")), 0)")
            for value in [SQLValue.text("{}"), .text("[]"), .text("ab"), .integer(1), .real(0.5), .text("")] + Self.values {
                try sql.bind([value])
                _ = try sql.step()
                let holds = sql.int64(at: 0) != 0
                sql.reset()
                if holds { valid[rule.column] = value; break }
            }
        }
        #expect(valid.count == columns.count, "a valid value for every column of \(table)")
        let insert = try db.prepare("INSERT INTO t VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))")
        // The valid row, then rows with one, two or three broken columns (a wrong storage class).
        var rows: [[SQLValue]] = [columns.map { valid[$0] ?? .null }]
        for (index, _) in columns.enumerated() {
            for count in 1...3 {
                var row = columns.map { valid[$0] ?? .null }
                for broken in index..<min(index + count, columns.count) { row[broken] = .blob(Data([0xFF])) }
                rows.append(row)
            }
        }
        for row in rows { try insert.execute(row) }
        let check = DeckStoreV2.RowValueCheck(table: table, alias: "t")
        let statement = try db.prepare("SELECT \(DeckStoreV2.firstInvalidColumn(of: table, alias: "t")), \(check.columns) FROM t ORDER BY rowid")
        var checked = 0, broken = 0
        while try statement.step() {
            let bySQL: String? = statement.isNull(at: 0) ? nil : statement.string(at: 0)
            #expect(check.firstInvalidColumn(statement, at: 1) == bySQL, "\(table) row \(checked)")
            checked += 1
            if bySQL != nil { broken += 1 }
        }
        #expect(checked == rows.count)
        #expect(broken == rows.count - 1, "every row but the first breaks a rule")
    }
}
