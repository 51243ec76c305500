import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// `SQLValue` is what crosses the boundary between Swift and SQLite when a type has no
/// more specific conversion. Bound values are never included in error messages.
public enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether the value is SQL `NULL`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension SQLValue: CustomStringConvertible {
    /// A short rendering for diagnostics (blobs show their size only).
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): "<blob \(data.count) bytes>"
        }
    }
}
