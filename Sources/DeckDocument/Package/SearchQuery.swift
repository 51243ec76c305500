import Foundation

/// The text of a full-text search, parsed (``DeckDocument/search(_:limit:)``).
///
/// ```
/// query   = any
/// any     = all { "or" all }
/// all     = unary { [ "and" ] unary }
/// unary   = "-" unary | primary
/// primary = "(" any ")" | '"' phrase '"' | word
/// ```
///
/// Words are separated by white space and must all occur, each as a prefix (`conj` finds
/// `conjugaison`); a "quoted phrase" matches its words in a row, the last one whole; `or`
/// (any case, as in Anki) joins alternatives and binds looser than the implicit `and`; `-`
/// before a word, phrase or group leaves out the notes that match it; parentheses group. To
/// look for the words `or` and `and` themselves, quote them. A word holding a character of a
/// script written without spaces between words (Chinese, Japanese, Korean, Thai, Lao, Khmer,
/// Myanmar) matches inside words too: `本語` finds `日本語`. Lenient where a search box is: an
/// unclosed quote or parenthesis closes at the end, a stray `)` or `or` is ignored, and words
/// without a letter or digit are no condition.
struct SearchQuery: Equatable, Sendable {
    /// A condition of the query.
    indirect enum Node: Equatable, Sendable {
        /// The term of that index in ``terms``.
        case term(Int)
        /// Every operand matches.
        case all([Node])
        /// At least one operand matches.
        case any([Node])
        /// The operand does not match.
        case not(Node)
    }

    /// A word or a quoted phrase.
    struct Term: Equatable, Sendable {
        /// As typed, without quotes.
        var text: String
        /// Quoted: its words in a row, the last one whole (a word's last token is a prefix).
        var isPhrase: Bool
        /// Holds a character of a script written without spaces between words: its tokens of
        /// that script match inside the note's tokens (FTS5's index can't answer that).
        var matchesInsideWords: Bool
    }

    /// The words and phrases, in the order typed (each occurrence its own term, as FTS5 counts
    /// the phrases of a query for `bm25`).
    var terms: [Term]
    var root: Node

    /// Parses `text`; nil when it holds nothing to look for.
    /// - Throws: ``SearchQueryError`` for a query that only leaves out (`-dog`, `cat or -dog`):
    ///   an exclusion needs a word to look for beside it.
    static func parse(_ text: String) throws(SearchQueryError) -> SearchQuery? {
        var parser = Parser(tokens: Lexer.tokens(of: text))
        let root = parser.parseAny(depth: 0)
        guard let root else { return nil }
        let query = SearchQuery(terms: parser.terms, root: root)
        guard query.isAnswerable(root) else {
            throw SearchQueryError("'\(text)' only leaves notes out: give a word to look for beside each '-' (e.g. 'verb -irregular')")
        }
        return query
    }

    /// Whether every exclusion has something to exclude from: an `all` holds a positive
    /// operand, an `any` only positive ones, and the root is positive.
    private func isAnswerable(_ node: Node) -> Bool {
        switch node {
        case .term: return true
        case .not: return false
        case .any(let operands): return operands.allSatisfy(isAnswerable)
        case .all(let operands):
            return operands.contains { if case .not = $0 { false } else { true } }
                && operands.allSatisfy { if case .not(let inner) = $0 { isAnswerable(inner) } else { isAnswerable($0) } }
        }
    }

    /// Whether some term matches inside words, which only reading the notes can answer.
    var matchesInsideWords: Bool { terms.contains(where: \.matchesInsideWords) }

    /// Whether the query is only words and phrases that must all occur (the common case,
    /// which reading the notes tests without walking the tree).
    var isConjunction: Bool {
        switch root {
        case .term: true
        case .all(let operands): operands.allSatisfy { if case .term = $0 { true } else { false } }
        default: false
        }
    }

    /// The FTS5 query of the same meaning, every operand parenthesized (no reliance on FTS5's
    /// precedence); a word is the phrase `"word"*`, a phrase `"a phrase"`, quotes doubled.
    var ftsQuery: String { fts(root) }

    private func fts(_ node: Node) -> String {
        switch node {
        case .term(let index):
            let term = terms[index]
            let quoted = "\"" + term.text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            return term.isPhrase ? quoted : quoted + "*"
        case .any(let operands):
            return "(" + operands.map(fts).joined(separator: " OR ") + ")"
        case .not(let inner):
            return fts(inner)
        case .all(let operands):
            let kept = operands.filter { if case .not = $0 { false } else { true } }
            let left = operands.compactMap { if case .not(let inner) = $0 { inner } else { nil } }
            let positive = "(" + kept.map(fts).joined(separator: " AND ") + ")"
            guard !left.isEmpty else { return positive }
            return "(" + positive + " NOT (" + left.map(fts).joined(separator: " OR ") + "))"
        }
    }

    /// Whether `node` matches, given whether each term occurs.
    func matches(_ node: Node, _ occurs: (Int) -> Bool) -> Bool {
        switch node {
        case .term(let index): occurs(index)
        case .all(let operands): operands.allSatisfy { matches($0, occurs) }
        case .any(let operands): operands.contains { matches($0, occurs) }
        case .not(let inner): !matches(inner, occurs)
        }
    }

    /// Whether `scalar` belongs to a script written without spaces between words.
    static func isUnspacedScript(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0E00...0x0EFF,            // Thai, Lao
             0x1000...0x109F,            // Myanmar
             0x1100...0x11FF,            // Hangul Jamo
             0x1780...0x17FF,            // Khmer
             0x2E80...0x2FDF,            // CJK radicals, Kangxi radicals
             0x3040...0x30FF,            // Hiragana, Katakana
             0x3130...0x318F,            // Hangul compatibility Jamo
             0x31F0...0x31FF,            // Katakana phonetic extensions
             0x3400...0x4DBF,            // CJK extension A
             0x4E00...0x9FFF,            // CJK unified ideographs
             0xAC00...0xD7AF,            // Hangul syllables
             0xF900...0xFAFF,            // CJK compatibility ideographs
             0xFF66...0xFF9F,            // half-width Katakana
             0x20000...0x3134F:          // CJK extensions B–G
            true
        default:
            false
        }
    }

    // MARK: Reading the text

    fileprivate enum Token: Equatable {
        case word(String)
        case phrase(String)
        case open
        case close
        case minus
        case or
        case and
    }

    fileprivate enum Lexer {
        static func tokens(of text: String) -> [Token] {
            var tokens: [Token] = []
            var index = text.startIndex
            while index < text.endIndex {
                let character = text[index]
                if character.isWhitespace {
                    index = text.index(after: index)
                } else if character == "\"" {
                    let start = text.index(after: index)
                    let end = text[start...].firstIndex(of: "\"") ?? text.endIndex
                    tokens.append(.phrase(String(text[start..<end])))
                    index = end < text.endIndex ? text.index(after: end) : end
                } else if character == "(" {
                    tokens.append(.open)
                    index = text.index(after: index)
                } else if character == ")" {
                    tokens.append(.close)
                    index = text.index(after: index)
                } else if character == "-", let next = text[text.index(after: index)...].first, !next.isWhitespace {
                    tokens.append(.minus)
                    index = text.index(after: index)
                } else {
                    let end = text[index...].firstIndex { $0.isWhitespace || $0 == "\"" || $0 == ")" } ?? text.endIndex
                    let word = String(text[index..<end])
                    switch word.lowercased() {
                    case "or": tokens.append(.or)
                    case "and": tokens.append(.and)
                    default: tokens.append(.word(word))
                    }
                    index = end
                }
            }
            return tokens
        }
    }

    fileprivate struct Parser {
        let tokens: [Token]
        var position = 0
        var terms: [Term] = []
        /// Groups nest at most this deep (a query is typed, not generated).
        static let maximumDepth = 64

        init(tokens: [Token]) { self.tokens = tokens }

        var current: Token? { position < tokens.count ? tokens[position] : nil }

        mutating func parseAny(depth: Int) -> Node? {
            var operands: [Node] = []
            while true {
                if let operand = parseAll(depth: depth) { operands.append(operand) }
                guard current == .or else { break }
                position += 1
            }
            return operands.count <= 1 ? operands.first : .any(operands)
        }

        mutating func parseAll(depth: Int) -> Node? {
            var operands: [Node] = []
            while let token = current, token != .or {
                if token == .close {
                    // Ends the group that is open; a stray one at the top is ignored.
                    if depth > 0 { break }
                    position += 1
                    continue
                }
                if token == .and {
                    position += 1
                    continue
                }
                if let operand = parseUnary(depth: depth) { operands.append(operand) }
            }
            return operands.count <= 1 ? operands.first : .all(operands)
        }

        mutating func parseUnary(depth: Int) -> Node? {
            if current == .minus {
                position += 1
                return parseUnary(depth: depth).map { node in
                    if case .not(let inner) = node { inner } else { .not(node) }
                }
            }
            return parsePrimary(depth: depth)
        }

        mutating func parsePrimary(depth: Int) -> Node? {
            guard let token = current else { return nil }
            position += 1
            switch token {
            case .open:
                let inner = depth < Self.maximumDepth ? parseAny(depth: depth + 1) : nil
                if current == .close { position += 1 }
                return inner
            case .word(let text):
                return term(text, isPhrase: false)
            case .phrase(let text):
                return term(text, isPhrase: true)
            case .close, .minus, .or, .and:
                return nil
            }
        }

        mutating func term(_ text: String, isPhrase: Bool) -> Node? {
            guard text.unicodeScalars.contains(where: { CharacterSet.alphanumerics.contains($0) }) else { return nil }
            terms.append(Term(text: text, isPhrase: isPhrase,
                              matchesInsideWords: text.unicodeScalars.contains(where: SearchQuery.isUnspacedScript)))
            return .term(terms.count - 1)
        }
    }
}

/// A search text that can't be answered (``SearchQuery/parse(_:)``).
public struct SearchQueryError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
