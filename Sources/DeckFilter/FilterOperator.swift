/// A comparison operator of the filter language.
public enum FilterOperator: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// `=` (also written `==`).
    case equal = "="
    /// `!=`.
    case notEqual = "!="
    /// `<`.
    case less = "<"
    /// `<=`.
    case lessOrEqual = "<="
    /// `>`.
    case greater = ">"
    /// `>=`.
    case greaterOrEqual = ">="
    /// `contains`: the field's text contains the value.
    case contains = "contains"
    /// `starts with` (also written `startswith`): the field's text begins with the value.
    case startsWith = "starts with"

    /// The operator as written in canonical filter text.
    public var description: String { rawValue }
}
