import DeckFilter
import Foundation
import SQLite

/// Translates a ``FilterExpression`` into an SQL condition over the `Card` table (alias `c`),
/// with every value bound as a parameter.
///
/// Fields: `front`, `back`, `text` (front, back or cloze text), `tag`, `kind`, `created`,
/// `modified`, `due`, `id`, `ease`, `interval`, `reps`, `lapses`. Text comparisons with
/// `contains`/`starts with` ignore ASCII case; a date without a time means the whole UTC
/// day (`created = 2026-01-01` is any time that day).
struct CardFilterTranslator {
    enum FieldType { case text, date, integer, real, kind, tag, anyText }

    /// Field name → (column, type).
    static let fields: [String: (column: String, type: FieldType)] = [
        "front": ("front", .text), "back": ("back", .text), "text": ("", .anyText), "tag": ("", .tag),
        "kind": ("kind", .kind), "created": ("created", .date), "modified": ("modified", .date),
        "due": ("due", .date), "id": ("pk", .integer), "ease": ("ease", .real), "interval": ("interval", .integer),
        "reps": ("repetitions", .integer), "lapses": ("lapses", .integer),
    ]

    /// The names accepted, sorted.
    static var fieldNames: [String] { fields.keys.sorted() }

    private(set) var arguments: [SQLValue] = []

    mutating func translate(_ expression: FilterExpression) throws -> String {
        switch expression {
        case .and(let a, let b): return "(\(try translate(a)) AND \(try translate(b)))"
        case .or(let a, let b): return "(\(try translate(a)) OR \(try translate(b)))"
        case .not(let inner): return "NOT coalesce(\(try translate(inner)), 0)"
        case .comparison(let field, let op, let value): return try comparison(field, op, value)
        case .in(let field, let values):
            let parts = try values.map { try comparison(field, .equal, $0) }
            return "(" + parts.joined(separator: " OR ") + ")"
        }
    }

    static func field(_ name: String) throws -> (column: String, type: FieldType) {
        guard let field = fields[name.lowercased()] else {
            throw DeckQueryError(field: name, message: "unknown field '\(name)'; known fields: \(fieldNames.joined(separator: ", "))")
        }
        return field
    }

    private mutating func bind(_ value: SQLValue) -> String {
        arguments.append(value)
        return "?"
    }

    private mutating func comparison(_ name: String, _ op: FilterOperator, _ value: FilterValue) throws -> String {
        let field = try Self.field(name)
        switch field.type {
        case .text: return try textComparison("c.\(quoteIdentifier(field.column))", name, op, value)
        case .anyText:
            let columns = ["c.\"front\"", "c.\"back\"", "coalesce(c.\"text\", '')"]
            let parts = try columns.map { try textComparison($0, name, op == .notEqual ? .equal : op, value) }
            let any = "(" + parts.joined(separator: " OR ") + ")"
            return op == .notEqual ? "NOT \(any)" : any
        case .tag:
            let condition = try textComparison("t.\"name\"", name, op == .notEqual ? .equal : op, value)
            let exists = "EXISTS (SELECT 1 FROM \"Card_tags\" j JOIN \"Tag\" t ON t.\"pk\" = j.\"target\" WHERE j.\"source\" = c.\"pk\" AND \(condition))"
            return op == .notEqual ? "NOT \(exists)" : exists
        case .kind:
            let text = try stringValue(name, value)
            guard let kind = CardKind(rawValue: text.lowercased()) else {
                throw DeckQueryError(field: name, message: "kind must be one of \(CardKind.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
            }
            guard op == .equal || op == .notEqual else {
                throw DeckQueryError(field: name, message: "kind supports = and !=, not '\(op)'")
            }
            return "c.\"kind\" \(op == .equal ? "=" : "<>") \(bind(.text(kind.rawValue)))"
        case .integer, .real:
            let column = "c.\(quoteIdentifier(field.column))"
            let number: SQLValue
            switch value {
            case .integer(let v): number = .integer(Int64(v))
            case .double(let v) where field.type == .real: number = .real(v)
            default: throw DeckQueryError(field: name, message: "\(name) compares with \(field.type == .real ? "a number" : "an integer"), not \(value)")
            }
            return "\(column) \(try sqlOperator(name, op)) \(bind(number))"
        case .date:
            let column = "c.\(quoteIdentifier(field.column))"
            let date: FilterDate
            switch value {
            case .date(let d): date = d
            case .string(let s):
                guard let d = FilterDate.parse(s) else { throw DeckQueryError(field: name, message: "\(name) compares with a date like 2026-01-01, not \(value)") }
                date = d
            default: throw DeckQueryError(field: name, message: "\(name) compares with a date like 2026-01-01, not \(value)")
            }
            let start = date.date.timeIntervalSince1970, end = date.endOfDay.timeIntervalSince1970
            switch op {
            case .equal where date.isWholeDay: return "(\(column) >= \(bind(.real(start))) AND \(column) < \(bind(.real(end))))"
            case .notEqual where date.isWholeDay: return "(\(column) < \(bind(.real(start))) OR \(column) >= \(bind(.real(end))))"
            case .greater: return "\(column) >= \(bind(.real(end)))" + (date.isWholeDay ? "" : " AND \(column) <> \(bind(.real(end)))")
            case .lessOrEqual: return date.isWholeDay ? "\(column) < \(bind(.real(end)))" : "\(column) <= \(bind(.real(start)))"
            case .equal, .notEqual, .less, .greaterOrEqual: return "\(column) \(try sqlOperator(name, op)) \(bind(.real(start)))"
            case .contains, .startsWith: throw DeckQueryError(field: name, message: "\(name) is a date; use =, !=, <, <=, > or >=, not '\(op)'")
            }
        }
    }

    private mutating func textComparison(_ column: String, _ name: String, _ op: FilterOperator, _ value: FilterValue) throws -> String {
        let text = try stringValue(name, value)
        switch op {
        case .contains: return "\(column) LIKE \(bind(.text("%" + Self.escapeLike(text) + "%"))) ESCAPE '\\'"
        case .startsWith: return "\(column) LIKE \(bind(.text(Self.escapeLike(text) + "%"))) ESCAPE '\\'"
        default: return "\(column) \(try sqlOperator(name, op)) \(bind(.text(text)))"
        }
    }

    private func stringValue(_ name: String, _ value: FilterValue) throws -> String {
        switch value {
        case .string(let s): return s
        case .integer(let v): return String(v)
        case .double(let v): return v.description
        case .date(let d): return d.description
        case .bool: throw DeckQueryError(field: name, message: "\(name) compares with text, not \(value)")
        }
    }

    private func sqlOperator(_ name: String, _ op: FilterOperator) throws -> String {
        switch op {
        case .equal: "="
        case .notEqual: "<>"
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        case .contains, .startsWith: throw DeckQueryError(field: name, message: "'\(op)' applies to text fields, not to \(name)")
        }
    }

    static func escapeLike(_ text: String) -> String {
        var result = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// The ORDER BY term for a sort key.
    static func orderTerm(_ name: String, descending: Bool) throws -> String {
        let field = try field(name)
        switch field.type {
        case .tag, .anyText: throw DeckQueryError(field: name, message: "can't sort by \(name)")
        default: return "c.\(quoteIdentifier(field.column))\(descending ? " DESC" : "")"
        }
    }
}
