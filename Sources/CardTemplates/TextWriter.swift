/// HTML to text: the line-structure-keeping conversion behind ``FieldText/plainText(fromHTML:)``
/// and ``FieldText/terminalText(fromHTML:)``.
struct TextWriter {
    enum Style { case plain, terminal }
    let style: Style

    private static let blockElements: Set<String> = [
        "address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "fieldset", "figcaption",
        "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "li", "main", "nav",
        "ol", "p", "pre", "section", "table", "tr", "ul", "hr", "center",
    ]

    /// Lines being built: `pendingBreak` asks for a new line before the next text.
    private struct Output {
        var text = ""
        var line = ""
        var pendingBreak = false
        var pendingSpace = false

        mutating func append(_ s: String) {
            if pendingBreak { newline(); pendingBreak = false; pendingSpace = false }
            if pendingSpace, !line.isEmpty { line += " " }
            pendingSpace = false
            line += s
        }

        mutating func space() { pendingSpace = true }

        mutating func newline() {
            text += trimmed(line) + "\n"
            line = ""
            pendingSpace = false
        }

        mutating func blockBoundary() {
            if !trimmed(line).isEmpty { pendingBreak = true }
        }

        mutating func finish() -> String {
            text += trimmed(line)
            // drop empty leading and trailing lines
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            while let first = lines.first, first.isEmpty { lines.removeFirst() }
            while let last = lines.last, last.isEmpty { lines.removeLast() }
            return lines.joined(separator: "\n")
        }
    }

    func write(_ html: String) -> String {
        var out = Output()
        let b = Array(html.utf8)
        var i = 0
        var textStart = 0
        var scanner = MarkupScanner()
        func flushText(_ end: Int) {
            guard end > textStart else { return }
            emitText(String(decoding: b[textStart..<end], as: UTF8.self), into: &out)
        }
        while i < b.count {
            guard b[i] == UInt8(ascii: "<"), let tag = scanner.markup(b, at: i) else {
                i += 1
                continue
            }
            flushText(i)
            handle(tag, bytes: b, into: &out)
            i = tag.end
            textStart = i
        }
        flushText(b.count)
        return out.finish()
    }

    private func handle(_ tag: MarkupScanner.Markup, bytes: [UInt8], into out: inout Output) {
        guard let name = tag.name else { return }   // comment, style, script
        if name == "br" {
            if out.pendingBreak { out.newline(); out.pendingBreak = false }
            out.newline()
            return
        }
        if name == "hr" {
            out.blockBoundary()
            if style == .terminal { out.append("----------") }
            out.blockBoundary()
            return
        }
        if Self.blockElements.contains(name) {
            out.blockBoundary()
            if name == "li", !tag.closing, style == .terminal { out.append("• ") }
            return
        }
        if name == "td" || name == "th", !tag.closing {
            out.space()
            return
        }
        if style == .terminal, !tag.closing, name == "img",
           let source = MediaScanner.attribute("src", inTag: String(decoding: bytes[tag.start..<tag.end], as: UTF8.self)) {
            out.append("[image: \(HTMLEscaping.decodeEntitiesLeniently(source))]")
        }
    }

    /// Text between tags: white space collapsed, entities decoded, terminal replacements made.
    private func emitText(_ raw: String, into out: inout Output) {
        var text = HTMLEscaping.decodeEntitiesLeniently(raw).replacingScalar("\u{A0}", with: " ")
        if style == .terminal {
            text = Self.replaceBracketed(text, open: "[sound:", close: "]") { "[sound: \($0)]" }
            text = Self.replaceBracketed(text, open: "[[type:", close: "]]") { "[type: \($0)]" }
        }
        var word = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case " ", "\t", "\n", "\r", "\u{0C}":
                if !word.isEmpty { out.append(word); word = "" }
                out.space()
            default:
                word.unicodeScalars.append(scalar)
            }
        }
        if !word.isEmpty { out.append(word) }
    }

    static func replaceBracketed(_ text: String, open: String, close: String, _ transform: (String) -> String) -> String {
        let b = Array(text.utf8)
        let o = Array(open.utf8)
        let c = Array(close.utf8)
        guard TemplateLexer.find(b, o, from: 0) != nil else { return text }
        var out = ""
        var i = 0
        var last = 0
        while let start = TemplateLexer.find(b, o, from: i) {
            guard let end = TemplateLexer.find(b, c, from: start + o.count), end > start + o.count else { break }
            out += String(decoding: b[last..<start], as: UTF8.self)
            out += transform(String(decoding: b[(start + o.count)..<end], as: UTF8.self))
            i = end + c.count
            last = i
        }
        out += String(decoding: b[last...], as: UTF8.self)
        return out
    }
}

/// Finds markup in HTML for the text writer: comments, `<style>`/`<script>` elements (skipped
/// whole) and tags with a name. A `<` not followed by a letter, `/` + letter or `!` is text.
/// One scanner serves one text, left to right (its searches remember their answers, so it stays
/// linear on hostile input).
struct MarkupScanner {
    struct Markup {
        var start: Int
        var end: Int
        /// Lower-cased tag name; nil for comments and skipped elements.
        var name: String?
        var closing: Bool
    }

    private var commentEnd = Finder("-->")
    private var tagEnd = Finder(">")
    private var styleEnd = Finder("</style", caseInsensitive: true)
    private var scriptEnd = Finder("</script", caseInsensitive: true)

    /// How far past the first `>` a quoted attribute value may hide the tag's real end.
    private static let quotedLookahead = 4096

    mutating func markup(_ b: [UInt8], at i: Int) -> Markup? {
        if TemplateLexer.matches(b, Array("<!--".utf8), at: i) {
            let end = commentEnd.find(in: b, from: i + 4).map { $0 + 3 } ?? b.count
            return Markup(start: i, end: end, name: nil, closing: false)
        }
        var j = i + 1
        var closing = false
        if j < b.count, b[j] == UInt8(ascii: "/") { closing = true; j += 1 }
        if !closing, j < b.count, b[j] == UInt8(ascii: "!") {
            // <!DOCTYPE …> and the like
            guard let close = tagEnd.find(in: b, from: j) else { return nil }
            return Markup(start: i, end: close + 1, name: nil, closing: false)
        }
        let nameStart = j
        while j < b.count, Self.isNameByte(b[j]) { j += 1 }
        guard j > nameStart, Self.isLetter(b[nameStart]) else { return nil }
        let name = String(decoding: b[nameStart..<j].map(HTMLEscaping.lowercased), as: UTF8.self)
        guard let first = tagEnd.find(in: b, from: j) else { return nil }
        let close = Self.quotedClose(b, from: j, limit: min(b.count, first + Self.quotedLookahead)) ?? first
        if !closing, name == "style" || name == "script" {
            let end = (name == "style" ? styleEnd.find(in: b, from: close + 1) : scriptEnd.find(in: b, from: close + 1))
                .flatMap { at in tagEnd.find(in: b, from: at).map { $0 + 1 } } ?? b.count
            return Markup(start: i, end: end, name: nil, closing: false)
        }
        return Markup(start: i, end: close + 1, name: name, closing: closing)
    }

    /// The `>` ending a tag, skipping quoted attribute values, searched before `limit`.
    private static func quotedClose(_ b: [UInt8], from start: Int, limit: Int) -> Int? {
        var quote: UInt8?
        var j = start
        while j < limit {
            let c = b[j]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                quote = c
            } else if c == UInt8(ascii: ">") {
                return j
            }
            j += 1
        }
        return nil
    }

    private static func isLetter(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
    }

    private static func isNameByte(_ c: UInt8) -> Bool {
        isLetter(c) || (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "-")
    }
}
