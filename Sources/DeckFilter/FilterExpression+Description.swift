extension FilterExpression: CustomStringConvertible {
    /// Canonical filter text: lowercase keywords, quoted strings, one space between tokens,
    /// parentheses only where precedence needs them. Parsing it gives back an equal
    /// expression (for field names the parser accepts and non-empty `in` lists).
    public var description: String {
        switch self {
        case .or(let left, let right):
            return operand(left, parenthesizedBelow: 1) + " or " + operand(right, parenthesizedBelow: 2)
        case .and(let left, let right):
            return operand(left, parenthesizedBelow: 2) + " and " + operand(right, parenthesizedBelow: 3)
        case .not(let inner):
            return "not " + operand(inner, parenthesizedBelow: 3)
        case .comparison(let field, let op, let value):
            return "\(field) \(op) \(value)"
        case .in(let field, let values):
            return "\(field) in (" + values.map(\.description).joined(separator: ", ") + ")"
        }
    }

    /// How tightly the expression binds: or 1, and 2, not 3, a comparison 4.
    private var precedence: Int {
        switch self {
        case .or: 1
        case .and: 2
        case .not: 3
        case .comparison, .in: 4
        }
    }

    private func operand(_ expression: FilterExpression, parenthesizedBelow level: Int) -> String {
        expression.precedence < level ? "(\(expression))" : expression.description
    }
}
