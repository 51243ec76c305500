/// A card template (a question or answer format) parsed into Anki's template syntax tree.
///
/// The syntax is current Anki's (rslib `template.rs`):
/// - `{{Field}}` and `{{filter2:filter1:Field}}` (filters apply right to left; whitespace inside
///   the braces is trimmed);
/// - `{{#Field}}…{{/Field}}` shows its content when the field is non-empty, `{{^Field}}…{{/Field}}`
///   when it is empty; sections nest, and `{{#c1}}` tests the card's cloze number;
/// - `<!-- … -->` is a comment, copied to the output untouched (tags inside are not parsed);
/// - a template that starts with `{{=<% %>=}}` uses `<%` and `%>` instead of `{{` and `}}`
///   (the only alternate delimiters Anki accepts);
/// - an opening `{{` without a closing `}}` is plain text, as are stray `}}`.
///
/// Parsing fails only on unbalanced sections (``TemplateError/conditionalNotClosed(key:)``,
/// ``TemplateError/conditionalNotOpen(closed:currentlyOpen:)``). Parsing costs one pass over the
/// text; a parsed template is a value and can be kept and shared across threads.
public struct ParsedTemplate: Sendable, Hashable {
    let nodes: [TemplateNode]

    /// Parses a template.
    ///
    /// - Throws: ``TemplateError`` when a section is not closed or closes the wrong one.
    public init(_ text: String) throws(TemplateError) {
        var lexer = TemplateLexer(text)
        nodes = try Self.parse(&lexer, open: nil)
    }

    private static func parse(_ lexer: inout TemplateLexer, open: String?) throws(TemplateError) -> [TemplateNode] {
        var nodes: [TemplateNode] = []
        while let token = lexer.next() {
            switch token {
            case .text(let text):
                nodes.append(.text(text))
            case .comment(let text):
                nodes.append(.comment(text))
            case .replacement(let body):
                // `a:b:Field` -> key "Field", filters ["b", "a"] (the order they apply in)
                var parts = body.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                let key = parts.removeLast()
                nodes.append(.replacement(key: key, filters: parts.reversed()))
            case .openConditional(let key):
                nodes.append(.conditional(key: key, children: try parse(&lexer, open: key)))
            case .openNegated(let key):
                nodes.append(.negated(key: key, children: try parse(&lexer, open: key)))
            case .closeConditional(let key):
                if let open, open == key { return nodes }
                throw .conditionalNotOpen(closed: key, currentlyOpen: open)
            }
        }
        if let open { throw .conditionalNotClosed(key: open) }
        return nodes
    }

    /// Whether the template renders something given which fields are non-empty: Anki's test for
    /// generating a card of a standard note type.
    ///
    /// Text alone never counts; a `{{Field}}` (with any filters) counts when `Field` is in
    /// `nonEmptyFields`; a `{{#Field}}` section counts when `Field` is non-empty and its content
    /// counts; a `{{^Field}}` section when `Field` is empty and its content counts.
    public func rendersNonEmpty(nonEmptyFields: Set<String>) -> Bool {
        !Self.isEmpty(nodes, nonEmptyFields)
    }

    private static func isEmpty(_ nodes: [TemplateNode], _ nonEmpty: Set<String>) -> Bool {
        for node in nodes {
            switch node {
            case .text, .comment:
                continue
            case .replacement(let key, _):
                if nonEmpty.contains(key) { return false }
            case .conditional(let key, let children):
                if nonEmpty.contains(key), !isEmpty(children, nonEmpty) { return false }
            case .negated(let key, let children):
                if !nonEmpty.contains(key), !isEmpty(children, nonEmpty) { return false }
            }
        }
        return true
    }

    /// Every name the template refers to, in replacements and in sections (`{{#c1}}`-style cloze
    /// sections excluded). Names need not be fields (`FrontSide`, `Tags`, typos).
    public var referencedFieldNames: Set<String> {
        var names = Set<String>()
        Self.collect(nodes, into: &names, clozeOnly: false, sections: true)
        return names
    }

    /// The fields the template passes through the `cloze` filter (`{{cloze:Text}}`): where Anki
    /// looks for cloze deletions.
    public var clozeFieldNames: Set<String> {
        var names = Set<String>()
        Self.collect(nodes, into: &names, clozeOnly: true, sections: false)
        return names
    }

    private static func collect(_ nodes: [TemplateNode], into names: inout Set<String>, clozeOnly: Bool, sections: Bool) {
        for node in nodes {
            switch node {
            case .text, .comment:
                continue
            case .replacement(let key, let filters):
                if !clozeOnly || filters.contains("cloze") { names.insert(key) }
            case .conditional(let key, let children), .negated(let key, let children):
                if sections, !isClozeConditional(key) { names.insert(key) }
                collect(children, into: &names, clozeOnly: clozeOnly, sections: sections)
            }
        }
    }
}

/// `c` followed by a number (what Rust's `u32` parsing accepts): a section on the card's cloze
/// number, which is never an unknown field.
func isClozeConditional(_ key: String) -> Bool {
    guard key.hasPrefix("c") else { return false }
    return parseUnsigned(key.dropFirst(), max: UInt64(UInt32.max)) != nil
}

/// Rust's `str::parse` for an unsigned integer: an optional `+`, then one or more ASCII digits,
/// within `max`.
func parseUnsigned<S: StringProtocol>(_ text: S, max: UInt64) -> UInt64? {
    var digits = Substring(text)
    if digits.hasPrefix("+") { digits = digits.dropFirst() }
    guard !digits.isEmpty else { return nil }
    var value: UInt64 = 0
    for byte in digits.utf8 {
        guard byte >= 0x30, byte <= 0x39 else { return nil }
        value = value * 10 + UInt64(byte - 0x30)
        if value > max { return nil }
    }
    return value
}

/// One node of a parsed template.
enum TemplateNode: Sendable, Hashable {
    case text(String)
    case comment(String)
    case replacement(key: String, filters: [String])
    case conditional(key: String, children: [TemplateNode])
    case negated(key: String, children: [TemplateNode])
}

// MARK: - Lexing

/// Splits a template into text, comments and `{{…}}` handles, as Anki's lexer does: at each
/// position a complete handle (`{{` … first `}}`) or a complete comment (`<!--` … first `-->`)
/// starts a token; anything else is text.
struct TemplateLexer {
    enum Token {
        case text(String)
        case comment(String)
        case replacement(String)
        case openConditional(String)
        case openNegated(String)
        case closeConditional(String)
    }

    private let bytes: [UInt8]
    private var position: Int
    private let open: [UInt8]
    private let close: [UInt8]
    /// Byte offsets past which no closing handle / comment end exists (so the search stops).
    private var noCloseFrom = Int.max
    private var noCommentEndFrom = Int.max

    private static let altDirective = Array("{{=<% %>=}}".utf8)
    private static let commentStart = Array("<!--".utf8)
    private static let commentEnd = Array("-->".utf8)

    init(_ text: String) {
        var bytes = Array(text.utf8)
        // `{{=<% %>=}}` after leading white space switches to `<% %>`; Anki drops the white space too.
        let firstNonSpace = Self.indexAfterLeadingWhitespace(bytes)
        if Self.matches(bytes, Self.altDirective, at: firstNonSpace) {
            var start = firstNonSpace
            while Self.matches(bytes, Self.altDirective, at: start) { start += Self.altDirective.count }
            bytes.removeFirst(start)
            open = Array("<%".utf8)
            close = Array("%>".utf8)
        } else {
            open = Array("{{".utf8)
            close = Array("}}".utf8)
        }
        self.bytes = bytes
        position = 0
    }

    /// Leading Unicode white space, as Rust's `trim_start` skips it.
    private static func indexAfterLeadingWhitespace(_ bytes: [UInt8]) -> Int {
        let text = String(decoding: bytes, as: UTF8.self)
        var offset = 0
        for scalar in text.unicodeScalars {
            guard scalar.properties.isWhitespace else { break }
            offset += String(scalar).utf8.count
        }
        return offset
    }

    static func matches(_ bytes: [UInt8], _ pattern: [UInt8], at index: Int) -> Bool {
        guard index >= 0, index + pattern.count <= bytes.count else { return false }
        for k in 0..<pattern.count where bytes[index + k] != pattern[k] { return false }
        return true
    }

    static func find(_ bytes: [UInt8], _ pattern: [UInt8], from index: Int) -> Int? {
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return nil }
        var i = index
        while i + pattern.count <= bytes.count {
            if bytes[i] == pattern[0], matches(bytes, pattern, at: i) { return i }
            i += 1
        }
        return nil
    }

    private func string(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    /// A token starting exactly at `i`: (token, end offset).
    private mutating func token(at i: Int) -> (Token, Int)? {
        if i < noCloseFrom, Self.matches(bytes, open, at: i) {
            if let end = Self.find(bytes, close, from: i + open.count) {
                return (Self.classify(string(i + open.count..<end)), end + close.count)
            }
            noCloseFrom = i
        }
        if i < noCommentEndFrom, Self.matches(bytes, Self.commentStart, at: i) {
            if let end = Self.find(bytes, Self.commentEnd, from: i + Self.commentStart.count) {
                return (.comment(string(i + Self.commentStart.count..<end)), end + Self.commentEnd.count)
            }
            noCommentEndFrom = i
        }
        return nil
    }

    mutating func next() -> Token? {
        guard position < bytes.count else { return nil }
        if let (token, end) = token(at: position) {
            position = end
            return token
        }
        var i = position + 1
        while i < bytes.count {
            // tokens start at character boundaries; the markers are ASCII, so any byte that
            // matches one is a boundary
            if bytes[i] == open[0] || bytes[i] == Self.commentStart[0], token(at: i) != nil {
                let text = string(position..<i)
                position = i
                return .text(text)
            }
            i += 1
        }
        let text = string(position..<bytes.count)
        position = bytes.count
        return .text(text)
    }

    /// Anki's classification of a handle's inside: leading `{` dropped, white space trimmed, then
    /// `#`, `/` or `^` (when at least two bytes remain) make a section tag.
    static func classify(_ inside: String) -> Token {
        let start = trimmed(String(inside.drop { $0 == "{" }))
        guard start.utf8.count >= 2, let first = start.first else { return .replacement(start) }
        let rest = trimmedStart(String(start.dropFirst()))
        switch first {
        case "#": return .openConditional(rest)
        case "/": return .closeConditional(rest)
        case "^": return .openNegated(rest)
        default: return .replacement(start)
        }
    }
}

/// White space trimmed at both ends (Unicode `White_Space`, as Rust's `str::trim`).
func trimmed(_ text: String) -> String {
    trimmedEnd(trimmedStart(text))
}

func trimmedStart(_ text: String) -> String {
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
    return String(scalars[first...])
}

func trimmedEnd(_ text: String) -> String {
    let scalars = text.unicodeScalars
    guard let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
    return String(scalars[...last])
}
