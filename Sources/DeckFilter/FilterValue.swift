/// A value in a filter: the right-hand side of a comparison or an item of an `in` list.
public enum FilterValue: Hashable, Sendable, CustomStringConvertible {
    /// A double-quoted string (`"chat"`, with `\"` and `\\` escapes) or a bare word (`cloze`).
    case string(String)
    /// An integer: `42`, `-3`.
    case integer(Int)
    /// A decimal number: `2.5`, `-0.25`, `1e-5`.
    case double(Double)
    /// A date or date-time: `2026-01-01`, `2026-01-01T10:00:00Z`.
    case date(FilterDate)
    /// `true` or `false` (in any case).
    case bool(Bool)

    /// Canonical text: strings always quoted and escaped, numbers in a form the parser reads
    /// back to the same value.
    public var description: String {
        switch self {
        case .string(let text): Self.quoted(text)
        case .integer(let value): String(value)
        case .double(let value): value.description
        case .date(let date): date.description
        case .bool(let value): value ? "true" : "false"
        }
    }

    /// `text` in double quotes, with `"` and `\` escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        result.append("\"")
        return result
    }
}
