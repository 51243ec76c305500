import Foundation

/// A JSON value written with a fixed key order, in the style every command prints: one line,
/// `"key": value` pairs separated by `, `, dates as ISO 8601 text with milliseconds (UTC).
indirect enum JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .integer(Int64(value)) }
    init(booleanLiteral value: Bool) { self = .bool(value) }

    static func int(_ value: Int) -> JSONValue { .integer(Int64(value)) }
    static func date(_ date: Date) -> JSONValue { .string(JSONText.date(date)) }
    static func optional(_ value: JSONValue?) -> JSONValue { value ?? .null }
    static func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }

    /// The value as JSON text on one line.
    var text: String {
        switch self {
        case .string(let text): JSONText.quoted(text)
        case .integer(let value): String(value)
        case .number(let value): value.isFinite ? (value == value.rounded() && abs(value) < 1e15 ? String(format: "%.1f", value) : String(value)) : "null"
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        case .array(let items): "[" + items.map(\.text).joined(separator: ", ") + "]"
        case .object(let pairs): "{" + pairs.map { JSONText.quoted($0.0) + ": " + $0.1.text }.joined(separator: ", ") + "}"
        }
    }
}
