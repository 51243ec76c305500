/// The syntax tree of a `--where` filter, such as
/// `front contains "chat" and (tag = "verbs" or created > 2026-01-01) and not kind = cloze`.
///
/// The parser does not check field names: a translator (to SQL, to a predicate) decides
/// which fields exist and which values suit them. ``description`` prints canonical filter
/// text that parses back to an equal expression.
public indirect enum FilterExpression: Hashable, Sendable {
    /// Both sides hold.
    case and(FilterExpression, FilterExpression)
    /// Either side holds.
    case or(FilterExpression, FilterExpression)
    /// The expression does not hold.
    case not(FilterExpression)
    /// `field op value`, e.g. `created > 2026-01-01`.
    case comparison(field: String, op: FilterOperator, value: FilterValue)
    /// `field in (v1, v2, …)`: the field equals one of the values (never an empty list
    /// when parsed).
    case `in`(field: String, values: [FilterValue])

    /// The field names the expression refers to, in order of appearance, each once.
    public var fieldNames: [String] {
        var names: [String] = []
        func visit(_ expression: FilterExpression) {
            switch expression {
            case .and(let left, let right), .or(let left, let right):
                visit(left)
                visit(right)
            case .not(let inner):
                visit(inner)
            case .comparison(let field, _, _), .in(let field, _):
                if !names.contains(field) { names.append(field) }
            }
        }
        visit(self)
        return names
    }
}
