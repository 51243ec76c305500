/// Parses the filter language of `deck list --where` and `deck rm --where`.
///
/// ```
/// filter     = or
/// or         = and { "or" and }
/// and        = not { "and" not }
/// not        = "not" not | primary
/// primary    = "(" or ")" | comparison
/// comparison = "is" [ "not" ] state
///            | field [ "not" ] ( "contains" | "starts" "with" | "startswith" ) value
///            | field ( "=" | "==" | "!=" | "<" | "<=" | ">" | ">=" ) value
///            | field [ "not" ] "in" "(" value { "," value } ")"
/// value      = "string" | bare-word | integer | decimal | date | date-time | true | false
/// ```
///
/// Keywords are case-insensitive. `and` and `or` group to the left; `field not in (…)` and
/// `field not contains v` mean `not field in (…)` and `not field contains v`. Field names
/// are identifiers (letters, digits, `_`, `.`, starting with a letter or `_`) and are not
/// checked here: the translator decides which exist.
///
/// ```swift
/// let filter = try FilterParser.parse(#"front contains "chat" and not kind = cloze"#)
/// print(filter)   // front contains "chat" and not kind = "cloze"
/// ```
public struct FilterParser {
    /// The deepest nesting of parentheses and `not` accepted.
    public static let maximumNesting = 100
    /// The most comparisons one filter may hold.
    public static let maximumConditions = 1_000
    /// The longest string literal accepted, in UTF-8 bytes (SQLite refuses LIKE patterns
    /// past 50,000 bytes, and no card field worth matching is longer).
    public static let maximumStringLength = 10_000

    /// Parses filter text into an expression.
    ///
    /// Cost: linear in the length of the text.
    /// - Throws: ``FilterSyntaxError`` with the line, column and reason of the first problem.
    public static func parse(_ text: String) throws(FilterSyntaxError) -> FilterExpression {
        var parsing = try Parsing(text)
        return try parsing.parseFilter()
    }

    /// Parses filter text and lists where each field is named, for translators that report
    /// unknown fields at their column.
    /// - Throws: ``FilterSyntaxError`` as ``parse(_:)`` does.
    public static func fieldReferences(in text: String) throws(FilterSyntaxError) -> [FilterFieldReference] {
        var parsing = try Parsing(text)
        _ = try parsing.parseFilter()
        return parsing.references
    }
}

/// One parse: the tokens and a cursor.
private struct Parsing {
    let source: String
    let tokens: [FilterToken]
    var position = 0
    var nesting = 0
    var references: [FilterFieldReference] = []

    private static let reserved: Set<String> = ["and", "or", "not", "in", "contains", "starts", "startswith"]

    init(_ source: String) throws(FilterSyntaxError) {
        self.source = source
        var lexer = FilterLexer(source)
        tokens = try lexer.tokenize()
    }

    var current: FilterToken { tokens[position] }

    mutating func advance() {
        if position < tokens.count - 1 { position += 1 }
    }

    /// An error at the current token, or just after the previous token at the end of input.
    func error(_ message: String) -> FilterSyntaxError {
        let token = current
        if token.kind == .end, position > 0 {
            let previous = tokens[position - 1]
            return FilterSyntaxError(source: source, line: previous.line, column: previous.endColumn + 1, message: message)
        }
        return FilterSyntaxError(source: source, line: token.line, column: token.column, message: message)
    }

    /// `message`, with what was found instead unless it is the end of the filter.
    func expected(_ message: String) -> FilterSyntaxError {
        current.kind == .end ? error(message) : error("\(message), found \(current.quotedForMessage)")
    }

    // MARK: Expressions

    mutating func parseFilter() throws(FilterSyntaxError) -> FilterExpression {
        guard current.kind != .end else {
            throw FilterSyntaxError(source: source, line: 1, column: 1, message: "the filter is empty")
        }
        let expression = try parseOr(after: nil)
        switch current.kind {
        case .end:
            return expression
        case .closeParenthesis:
            throw error("unexpected ')' with no '(' to close")
        default:
            throw error("expected 'and' or 'or' before \(current.quotedForMessage)")
        }
    }

    mutating func parseOr(after context: String?) throws(FilterSyntaxError) -> FilterExpression {
        var left = try parseAnd(after: context)
        while current.keyword == "or" {
            advance()
            left = .or(left, try parseAnd(after: "'or'"))
        }
        return left
    }

    mutating func parseAnd(after context: String?) throws(FilterSyntaxError) -> FilterExpression {
        var left = try parseNot(after: context)
        while current.keyword == "and" {
            advance()
            left = .and(left, try parseNot(after: "'and'"))
        }
        return left
    }

    mutating func parseNot(after context: String?) throws(FilterSyntaxError) -> FilterExpression {
        guard current.keyword == "not" else { return try parsePrimary(after: context) }
        try enterNesting()
        advance()
        let inner = try parseNot(after: "'not'")
        nesting -= 1
        return .not(inner)
    }

    mutating func parsePrimary(after context: String?) throws(FilterSyntaxError) -> FilterExpression {
        if current.kind == .openParenthesis {
            let open = current
            try enterNesting()
            advance()
            if current.kind == .closeParenthesis { throw error("expected a filter inside '()'") }
            let inner = try parseOr(after: "'('")
            guard current.kind == .closeParenthesis else {
                throw expected("expected ')' to close the '(' at \(open.line):\(open.column)")
            }
            advance()
            nesting -= 1
            return inner
        }
        return try parseComparison(after: context)
    }

    mutating func enterNesting() throws(FilterSyntaxError) {
        nesting += 1
        if nesting > FilterParser.maximumNesting {
            throw error("the filter is nested too deeply (more than \(FilterParser.maximumNesting) levels)")
        }
    }

    // MARK: Comparisons

    mutating func parseComparison(after context: String?) throws(FilterSyntaxError) -> FilterExpression {
        let fieldToken = current
        let field = try parseField(after: context)
        references.append(FilterFieldReference(name: field, line: fieldToken.line, column: fieldToken.column))
        if references.count > FilterParser.maximumConditions {
            throw FilterSyntaxError(source: source, line: fieldToken.line, column: fieldToken.column,
                                    message: "the filter has too many conditions (more than \(FilterParser.maximumConditions))")
        }

        var negated = false
        if current.keyword == "not" {
            negated = true
            advance()
        }
        let operatorToken = current
        let comparison: FilterExpression
        switch current.kind {
        case .symbol(let op) where !negated:
            advance()
            comparison = .comparison(field: field, op: op, value: try parseValue(after: "'\(operatorToken.text)'"))
        case .word:
            switch current.keyword {
            case "contains":
                advance()
                comparison = .comparison(field: field, op: .contains, value: try parseValue(after: "'contains'"))
            case "startswith":
                advance()
                comparison = .comparison(field: field, op: .startsWith, value: try parseValue(after: "'\(operatorToken.text)'"))
            case "starts":
                advance()
                guard current.keyword == "with" else { throw expected("expected 'with' after 'starts'") }
                advance()
                comparison = .comparison(field: field, op: .startsWith, value: try parseValue(after: "'starts with'"))
            case "in":
                advance()
                comparison = .in(field: field, values: try parseList())
            case let word? where field.lowercased() == "is" && !Self.reserved.contains(word):
                // `is new`, `is not suspended`: the states read as English, short for `is = new`.
                comparison = .comparison(field: field, op: .equal, value: try parseValue(after: "'is'"))
            default:
                throw operatorError(field: field, negated: negated)
            }
        default:
            throw operatorError(field: field, negated: negated)
        }
        return negated ? .not(comparison) : comparison
    }

    func operatorError(field: String, negated: Bool) -> FilterSyntaxError {
        negated ? expected("expected 'in', 'contains' or 'starts with' after 'not'")
                : expected("expected an operator after '\(field)'")
    }

    mutating func parseField(after context: String?) throws(FilterSyntaxError) -> String {
        let what = context.map { "expected a condition after \($0)" } ?? "expected a condition"
        switch current.kind {
        case .word(let word):
            let lowercased = word.lowercased()
            if Self.reserved.contains(lowercased) || lowercased == "true" || lowercased == "false" {
                throw error("\(what), found the keyword '\(word)'")
            }
            guard let first = word.first, first.isLetter || first == "_",
                  word.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }) else {
                throw error("expected a field name, found '\(word)'")
            }
            advance()
            return word
        case .string:
            throw error("expected a field name, found \(current.quotedForMessage) (field names are not quoted)")
        case .end:
            throw error(what)
        default:
            throw expected(what)
        }
    }

    // MARK: Values

    mutating func parseList() throws(FilterSyntaxError) -> [FilterValue] {
        guard current.kind == .openParenthesis else { throw expected("expected '(' after 'in'") }
        advance()
        var values = [try parseValue(after: "'('")]
        while true {
            switch current.kind {
            case .comma:
                advance()
                values.append(try parseValue(after: "','"))
            case .closeParenthesis:
                advance()
                return values
            default:
                throw expected("expected ',' or ')' in the list")
            }
        }
    }

    mutating func parseValue(after context: String) throws(FilterSyntaxError) -> FilterValue {
        switch current.kind {
        case .string(let text):
            advance()
            return .string(text)
        case .word(let word):
            let lowercased = word.lowercased()
            if Self.reserved.contains(lowercased) {
                throw error("expected a value after \(context), found the keyword '\(word)' (quote it to use it as text)")
            }
            let value: FilterValue
            switch lowercased {
            case "true": value = .bool(true)
            case "false": value = .bool(false)
            default: value = try number(word) ?? .string(word)
            }
            advance()
            return value
        default:
            throw expected("expected a value after \(context)")
        }
    }

    /// The number or date a word spells, `nil` for a bare word, or an error for a number
    /// out of range or a date that does not exist.
    func number(_ word: String) throws(FilterSyntaxError) -> FilterValue? {
        let bytes = Array(word.utf8)
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        var index = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { return nil }

        // A date: four digits and a dash.
        if index == 0, bytes.count >= 5, bytes[0..<4].allSatisfy(isDigit), bytes[4] == UInt8(ascii: "-") {
            guard let date = FilterDate.parse(word) else {
                throw error("invalid date '\(word)' (write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)")
            }
            return .date(date)
        }

        let integerDigits = bytes[index...].prefix(while: isDigit).count
        var cursor = index + integerDigits
        if cursor == bytes.count {
            guard let value = Int(word) else { throw error("number '\(word)' out of range") }
            return .integer(value)
        }
        var isDecimal = false
        if bytes[cursor] == UInt8(ascii: ".") {
            let fraction = bytes[(cursor + 1)...].prefix(while: isDigit).count
            guard fraction > 0 else { return nil }
            cursor += 1 + fraction
            isDecimal = true
        }
        if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "e") || bytes[cursor] == UInt8(ascii: "E") {
            cursor += 1
            if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "-") || bytes[cursor] == UInt8(ascii: "+") { cursor += 1 }
            let exponent = bytes[cursor...].prefix(while: isDigit).count
            guard exponent > 0 else { return nil }
            cursor += exponent
            isDecimal = true
        }
        guard isDecimal, cursor == bytes.count else { return nil }
        guard let value = Double(word), value.isFinite else { throw error("number '\(word)' out of range") }
        return .double(value)
    }
}
