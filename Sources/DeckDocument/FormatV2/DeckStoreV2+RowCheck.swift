import SQLite

/// A value rule's condition in Swift, for the simple kinds of ``DeckStoreV2/columnRules``: it
/// holds for a value exactly when the rule's SQL condition does (`RowValueCheckTests` compares
/// the two over values at and around every bound, of every storage class).
///
/// SQLite evaluates a rule with function calls (`typeof`, `coalesce`) and jumps: about 130 ns
/// a rule, 4.5 µs for the rules of a card and its note, which made a listing of 100,000 cards
/// spend more time checking rows than reading them. In Swift the same rule is a type test and
/// a comparison on the column as SQLite returns it.
enum NativeCheck: Sendable {
    /// `typeof(%c) = 'integer' AND %c BETWEEN low AND high`.
    case integer(ClosedRange<Int64>)
    /// `typeof(%c) = 'integer' AND %c IN (…)`.
    case integerIn([Int64])
    /// `typeof(%c) = 'text'`.
    case text
    /// `typeof(%c) IN ('real', 'integer')`.
    case number
    /// `typeof(%c) IN ('real', 'integer') AND %c BETWEEN low AND high`.
    case numberBetween(Int64, Int64)
    /// `typeof(%c) IN ('real', 'integer') AND %c > low AND %c < high`.
    case numberInside(Int64, Int64)
    /// `%c IS NULL OR (…)`.
    indirect case nullOr(NativeCheck)

    /// A date: seconds since 1970 within years 1 to 9999 (``DeckStoreV2/date``).
    static let date = NativeCheck.numberBetween(-62_135_596_800, 253_402_300_800)

    /// Whether the value of column `index` of `statement`'s current row keeps the rule.
    func holds(_ statement: Statement, at index: Int32) -> Bool {
        switch self {
        case .integer(let range):
            return statement.isInteger(at: index) && range.contains(statement.int64(at: index))
        case .integerIn(let values):
            return statement.isInteger(at: index) && values.contains(statement.int64(at: index))
        case .text:
            return statement.isText(at: index)
        case .number:
            return statement.isNumber(at: index)
        case .numberBetween(let low, let high):
            if statement.isInteger(at: index) { return (low...high).contains(statement.int64(at: index)) }
            guard statement.isNumber(at: index) else { return false }
            // The bounds are below 2^53: exact as doubles, so the comparison is SQLite's.
            let value = statement.double(at: index)
            return value >= Double(low) && value <= Double(high)
        case .numberInside(let low, let high):
            if statement.isInteger(at: index) {
                let value = statement.int64(at: index)
                return value > low && value < high
            }
            guard statement.isNumber(at: index) else { return false }
            let value = statement.double(at: index)
            return value > Double(low) && value < Double(high)
        case .nullOr(let check):
            return statement.isNull(at: index) || check.holds(statement, at: index)
        }
    }
}

extension DeckStoreV2 {
    /// The value rules of one table for a statement that reads its rows under `alias`: the
    /// rules with a ``NativeCheck`` read their column as it is and are evaluated in Swift, the
    /// others stay one SQL expression (as ``firstInvalidColumn(of:alias:except:)`` makes it).
    ///
    /// Put ``columns`` in the select list; after each step, ``firstInvalidColumn(_:at:)`` with
    /// the index of its first column gives what the SQL expression alone would: the column of
    /// the first rule, in the rules' order, that the row breaks, or nil.
    struct RowValueCheck: Sendable {
        let table: String
        /// The select list: the SQL expression of the other rules, then each native rule's column.
        let columns: String
        /// How many columns ``columns`` adds.
        let columnCount: Int32
        private let natives: [(rule: Int, column: String, check: NativeCheck)]
        /// The position among the table's rules of each column the SQL expression can name.
        private let sqlRules: [String: Int]

        init(table: String, alias: String, except excluded: Set<String> = []) {
            self.table = table
            let rules = columnRules.filter { $0.table == table && !excluded.contains($0.column) }
            var natives: [(rule: Int, column: String, check: NativeCheck)] = []
            var sqlRules: [String: Int] = [:]
            for (index, rule) in rules.enumerated() {
                if let check = rule.native {
                    natives.append((index, rule.column, check))
                } else if sqlRules[rule.column] == nil {
                    sqlRules[rule.column] = index
                }
            }
            // Columns with a native rule are left out of the SQL expression: each column has
            // one rule (RowValueCheckTests checks it), so nothing else of theirs is lost.
            let nativeColumns = Set(natives.map(\.column))
            let sql = DeckStoreV2.firstInvalidColumn(of: table, alias: alias, except: excluded.union(nativeColumns))
            columns = ([sql] + natives.map { "\(alias).\(quoteIdentifier($0.column))" }).joined(separator: ", ")
            columnCount = Int32(1 + natives.count)
            self.natives = natives
            self.sqlRules = sqlRules
        }

        /// The column of the first rule the current row of `statement` breaks, in the rules'
        /// order, or nil; `first` is the index of the first of ``columns``.
        func firstInvalidColumn(_ statement: Statement, at first: Int32) -> String? {
            var found: (rule: Int, column: String)?
            if !statement.isNull(at: first) {
                let column = statement.string(at: first)
                found = (sqlRules[column] ?? Int.max, column)
            }
            for (offset, native) in natives.enumerated() {
                if let found, found.rule < native.rule { break }
                if !native.check.holds(statement, at: first + 1 + Int32(offset)) { return native.column }
            }
            return found?.column
        }
    }
}
