/// Splits filter text into tokens, tracking line and column (in characters).
struct FilterLexer {
    private let characters: [Character]
    private let source: String
    private var index = 0
    private var line = 1
    private var column = 1

    init(_ source: String) {
        self.source = source
        characters = Array(source)
    }

    /// Whether a character may be part of a word: letters, digits, marks and `_ - . : + / @`.
    static func isWordCharacter(_ character: Character) -> Bool {
        if character.isLetter || character.isNumber { return true }
        switch character {
        case "_", "-", ".", ":", "+", "/", "@": return true
        default: return character.unicodeScalars.first?.properties.generalCategory == .nonspacingMark
        }
    }

    /// Reads every token, ending with a `.end` token.
    mutating func tokenize() throws(FilterSyntaxError) -> [FilterToken] {
        var tokens: [FilterToken] = []
        while true {
            let token = try nextToken()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private mutating func advance() {
        if characters[index].isNewline {
            line += 1
            column = 1
        } else {
            column += 1
        }
        index += 1
    }

    private func error(_ message: String, line: Int, column: Int) -> FilterSyntaxError {
        FilterSyntaxError(source: source, line: line, column: column, message: message)
    }

    private mutating func nextToken() throws(FilterSyntaxError) -> FilterToken {
        while index < characters.count, characters[index].isWhitespace { advance() }
        let startLine = line
        let startColumn = column
        let startIndex = index
        func token(_ kind: FilterToken.Kind) -> FilterToken {
            FilterToken(kind: kind, line: startLine, column: startColumn, endColumn: column,
                        text: String(characters[startIndex..<index]))
        }
        guard index < characters.count else { return token(.end) }
        let character = characters[index]
        let next: Character? = index + 1 < characters.count ? characters[index + 1] : nil
        switch character {
        case "(":
            advance()
            return token(.openParenthesis)
        case ")":
            advance()
            return token(.closeParenthesis)
        case ",":
            advance()
            return token(.comma)
        case "=":
            advance()
            if next == "=" { advance() }
            return token(.symbol(.equal))
        case "!":
            guard next == "=" else {
                throw error("unexpected '!' (write 'not' or '!=')", line: startLine, column: startColumn)
            }
            advance()
            advance()
            return token(.symbol(.notEqual))
        case "<", ">":
            advance()
            if next == "=" { advance() }
            let op: FilterOperator = character == "<" ? (next == "=" ? .lessOrEqual : .less)
                                                      : (next == "=" ? .greaterOrEqual : .greater)
            return token(.symbol(op))
        case "\"":
            return try stringToken(line: startLine, column: startColumn, startIndex: startIndex)
        default:
            guard Self.isWordCharacter(character) else {
                let hint: String = switch character {
                case "&": " (write 'and')"
                case "|": " (write 'or')"
                case "'": " (quote strings with double quotes)"
                default: ""
                }
                throw error("unexpected character '\(character)'\(hint)", line: startLine, column: startColumn)
            }
            while index < characters.count, Self.isWordCharacter(characters[index]) { advance() }
            return token(.word(String(characters[startIndex..<index])))
        }
    }

    private mutating func stringToken(line startLine: Int, column startColumn: Int, startIndex: Int) throws(FilterSyntaxError) -> FilterToken {
        advance()
        var value = ""
        while index < characters.count {
            let character = characters[index]
            if character == "\"" {
                advance()
                if value.utf8.count > FilterParser.maximumStringLength {
                    throw error("string longer than \(FilterParser.maximumStringLength) bytes", line: startLine, column: startColumn)
                }
                return FilterToken(kind: .string(value), line: startLine, column: startColumn, endColumn: column,
                                   text: String(characters[startIndex..<index]))
            }
            if character == "\\" {
                let escapeLine = line
                let escapeColumn = column
                advance()
                guard index < characters.count else { break }
                let escaped = characters[index]
                guard escaped == "\"" || escaped == "\\" else {
                    throw error("unknown escape '\\\(escaped)' in a string (only \\\" and \\\\ are allowed)",
                                line: escapeLine, column: escapeColumn)
                }
                value.append(escaped)
                advance()
                continue
            }
            value.append(character)
            advance()
        }
        throw error("unterminated string (add a closing '\"')", line: startLine, column: startColumn)
    }
}
