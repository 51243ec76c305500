/// The built-in filters of Anki's template language (rslib `template_filters.rs`).
enum Filters {
    /// Applies `filters` (in application order, right to left as written) to `text`.
    ///
    /// As `card.question()` in current Anki: the first filter Anki does not know stops the
    /// chain, and neither it nor the filters after it change the text (Anki hands them to add-on
    /// hooks, which are absent here). An empty name (`{{text::Field}}`) is skipped.
    static func apply(_ text: String, filters: [String], field: String, context: FilterContext) -> String {
        let chain: [String]
        if filters == ["cloze", "type"] {
            chain = ["type-cloze"]
        } else if filters == ["nc", "type"] {
            chain = ["type-nc"]
        } else if filters.last == "type" {
            chain = ["type"]
        } else {
            chain = filters
        }
        var text = text
        for name in chain {
            guard let output = apply(name, to: text, field: field, context: context) else { break }
            text = output
        }
        return text
    }

    /// The names `apply` knows (besides `tts …`).
    static let known: Set<String> = ["text", "furigana", "kanji", "kana", "type", "type-cloze", "type-nc", "hint", "cloze", "cloze-only", ""]

    private static func apply(_ name: String, to text: String, field: String, context: FilterContext) -> String? {
        switch name {
        case "text": return HTMLEscaping.stripHTML(text)
        case "furigana": return Ruby.furigana(text)
        case "kanji": return Ruby.kanji(text)
        case "kana": return Ruby.kana(text)
        case "type": return "[[type:\(field)]]"
        case "type-cloze": return "[[type:cloze:\(field)]]"
        case "type-nc": return "[[type:nc:\(field)]]"
        case "hint": return hint(text, field: field)
        case "cloze": return Cloze.render(text, number: context.clozeNumber, question: context.questionSide)
        case "cloze-only": return Cloze.renderOnly(text, number: context.clozeNumber, question: context.questionSide)
        case "": return text
        default:
            if name.hasPrefix("tts ") { return "[anki:tts lang=\(name.dropFirst(4))]\(text)[/anki:tts]" }
            return nil
        }
    }

    /// A link that reveals the field, with an element id derived from the text and field name.
    static func hint(_ text: String, field: String) -> String {
        if trimmed(text).isEmpty { return text }
        let digest = BLAKE3.hash(Array(text.utf8) + Array(field.utf8))
        let id = digest[0..<8].map { HTMLEscaping.hexByte($0).lowercased() }.joined()
        return """

            <a class=hint href="#"
            onclick="this.style.display='none';
            document.getElementById('hint\(id)').style.display='block';
            return false;" draggable=false>
            \(field)</a>
            <div id="hint\(id)" class=hint style="display: none">\(text)</div>

            """
    }
}

/// What the cloze filters need to know about the card being rendered.
struct FilterContext {
    /// The card's cloze number (ordinal + 1).
    var clozeNumber: Int
    /// Rendering the question (Anki: no front side set yet).
    var questionSide: Bool
}

/// The `furigana`, `kanji` and `kana` filters over Anki's ruby syntax `漢字[かんじ]`: a base of
/// characters other than space and `>`, optionally after one space, then a reading in brackets.
/// Readings that start with `sound:` are left alone. `&nbsp;` counts as a space.
enum Ruby {
    static func furigana(_ text: String) -> String {
        replace(text) { "<ruby><rb>\($0)</rb><rt>\($1)</rt></ruby>" }
    }

    static func kanji(_ text: String) -> String { replace(text) { base, _ in base } }

    static func kana(_ text: String) -> String { replace(text) { _, reading in reading } }

    private static func replace(_ text: String, _ transform: (String, String) -> String) -> String {
        let s = Array(text.replacingAll("&nbsp;", with: " ").unicodeScalars)
        guard s.contains("[") else { return String(String.UnicodeScalarView(s)) }
        let matcher = Matcher(s)
        var out = ""
        var i = 0
        while i < s.count {
            if let match = matcher.match(at: i) {
                let base = String(String.UnicodeScalarView(s[match.base]))
                let reading = String(String.UnicodeScalarView(s[match.reading]))
                if reading.hasPrefix("sound:") {
                    out += String(String.UnicodeScalarView(s[i..<match.end]))
                } else {
                    out += transform(base, reading)
                }
                i = match.end
            } else {
                out.unicodeScalars.append(s[i])
                i += 1
            }
        }
        return out
    }

    /// The regular expression ` ?([^ >]+?)\[(.+?)\]`, leftmost-first, answered in constant time
    /// per position from tables built in one backward pass (so hostile text stays linear).
    private struct Matcher {
        let s: [Unicode.Scalar]
        /// First index ≥ i holding a space or `>` (count if none): where a base must stop.
        var nextTerminator: [Int]
        /// First index ≥ i of a `[` that a reading follows: at least one character other than a
        /// newline, then the first `]` with no newline before it (count if none).
        var nextOpening: [Int]
        /// For such a `[` at k, the index of its `]`.
        var closing: [Int]

        init(_ s: [Unicode.Scalar]) {
            self.s = s
            let n = s.count
            nextTerminator = Array(repeating: n, count: n + 1)
            nextOpening = Array(repeating: n, count: n + 2)
            closing = Array(repeating: n, count: n)
            var nextStop = n            // first `]` or newline at or after i
            var stops = Array(repeating: n, count: n + 1)
            for i in stride(from: n - 1, through: 0, by: -1) {
                if s[i] == "]" || s[i] == "\n" { nextStop = i }
                stops[i] = nextStop
                nextTerminator[i] = (s[i] == " " || s[i] == ">") ? i : nextTerminator[i + 1]
            }
            for k in stride(from: n - 1, through: 0, by: -1) {
                nextOpening[k] = nextOpening[k + 1]
                guard s[k] == "[", k + 2 < n, s[k + 1] != "\n" else { continue }
                let j = stops[k + 2]
                if j < n, s[j] == "]" {
                    closing[k] = j
                    nextOpening[k] = k
                }
            }
        }

        func match(at start: Int) -> (base: Range<Int>, reading: Range<Int>, end: Int)? {
            let baseStart = s[start] == " " ? start + 1 : start
            guard baseStart < s.count, s[baseStart] != " ", s[baseStart] != ">" else { return nil }
            let k = nextOpening[baseStart + 1]
            guard k < s.count, k < nextTerminator[baseStart] else { return nil }
            return (baseStart..<k, (k + 1)..<closing[k], closing[k] + 1)
        }
    }
}
