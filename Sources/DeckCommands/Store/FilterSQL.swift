import DeckFilter
import Foundation
import SQLite

/// Translates a `--where` filter into an SQL condition over the card table (alias `c`),
/// so filtering runs in SQLite, never over cards loaded into memory.
enum FilterSQL {
    /// The fields a filter or a sort key may name.
    static let sortKeys = ["id", "front", "back", "kind", "created", "modified"]

    static func sortColumn(_ field: String) -> String? {
        sortKeys.contains(field.lowercased()) ? "c.\(field.lowercased())" : nil
    }

    static func translate(_ expression: FilterExpression) throws -> (sql: String, arguments: [SQLValue]) {
        switch expression {
        case .and(let left, let right):
            let l = try translate(left), r = try translate(right)
            return ("(\(l.sql) AND \(r.sql))", l.arguments + r.arguments)
        case .or(let left, let right):
            let l = try translate(left), r = try translate(right)
            return ("(\(l.sql) OR \(r.sql))", l.arguments + r.arguments)
        case .not(let inner):
            let i = try translate(inner)
            return ("(NOT \(i.sql))", i.arguments)
        case .comparison(let field, let op, let value):
            return try comparison(field: field, op: op, value: value)
        case .in(let field, let values):
            var parts: [String] = []
            var arguments: [SQLValue] = []
            for value in values {
                let part = try comparison(field: field, op: .equal, value: value)
                parts.append(part.sql)
                arguments += part.arguments
            }
            return ("(" + parts.joined(separator: " OR ") + ")", arguments)
        }
    }

    private static func comparison(field: String, op: FilterOperator, value: FilterValue) throws -> (sql: String, arguments: [SQLValue]) {
        let name = field.lowercased()
        if name == "tag" || name == "tags" {
            let text = try string(value, field: field)
            switch op {
            case .equal: return ("EXISTS (SELECT 1 FROM card_tag t WHERE t.card = c.id AND t.name = ?)", [.text(text)])
            case .notEqual: return ("NOT EXISTS (SELECT 1 FROM card_tag t WHERE t.card = c.id AND t.name = ?)", [.text(text)])
            case .contains: return ("EXISTS (SELECT 1 FROM card_tag t WHERE t.card = c.id AND instr(lower(t.name), lower(?)) > 0)", [.text(text)])
            case .startsWith: return ("EXISTS (SELECT 1 FROM card_tag t WHERE t.card = c.id AND substr(lower(t.name), 1, length(?)) = lower(?))", [.text(text), .text(text)])
            default: throw unsupported(field: field, op: op)
            }
        }
        guard let column = sortColumn(name) else {
            throw DeckStoreError(.usage, path: nil, reason: "unknown field '\(field)' in --where (use \((sortKeys + ["tag"]).joined(separator: ", ")))")
        }
        switch name {
        case "created", "modified":
            guard case .date(let date) = value else {
                throw DeckStoreError(.usage, path: nil, reason: "'\(field)' compares with a date such as 2026-01-01")
            }
            let start = date.date.timeIntervalSince1970, end = date.endOfDay.timeIntervalSince1970
            switch op {
            case .equal where date.isWholeDay: return ("(\(column) >= ? AND \(column) < ?)", [.real(start), .real(end)])
            case .notEqual where date.isWholeDay: return ("(\(column) < ? OR \(column) >= ?)", [.real(start), .real(end)])
            case .greater where date.isWholeDay: return ("\(column) >= ?", [.real(end)])
            case .lessOrEqual where date.isWholeDay: return ("\(column) < ?", [.real(end)])
            case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
                return ("\(column) \(sqlOperator(op)) ?", [.real(start)])
            default: throw unsupported(field: field, op: op)
            }
        case "id":
            guard case .integer(let id) = value else {
                throw DeckStoreError(.usage, path: nil, reason: "'id' compares with a whole number")
            }
            switch op {
            case .contains, .startsWith: throw unsupported(field: field, op: op)
            default: return ("\(column) \(sqlOperator(op)) ?", [.integer(Int64(id))])
            }
        default:
            let text = try string(value, field: field)
            switch op {
            case .contains: return ("instr(lower(\(column)), lower(?)) > 0", [.text(text)])
            case .startsWith: return ("substr(lower(\(column)), 1, length(?)) = lower(?)", [.text(text), .text(text)])
            default: return ("\(column) \(sqlOperator(op)) ?", [.text(text)])
            }
        }
    }

    private static func sqlOperator(_ op: FilterOperator) -> String {
        switch op {
        case .equal: "="
        case .notEqual: "<>"
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        case .contains, .startsWith: "="
        }
    }

    private static func string(_ value: FilterValue, field: String) throws -> String {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .date(let date): date.description
        }
    }

    private static func unsupported(field: String, op: FilterOperator) -> DeckStoreError {
        DeckStoreError(.usage, path: nil, reason: "'\(op)' does not apply to '\(field)' in --where")
    }
}
