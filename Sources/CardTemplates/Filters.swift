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
        var out = ""
        var i = 0
        while i < s.count {
            if let match = match(s, at: i) {
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

    /// The regular expression ` ?([^ >]+?)\[(.+?)\]` tried at `start`, leftmost-first.
    private static func match(_ s: [Unicode.Scalar], at start: Int) -> (base: Range<Int>, reading: Range<Int>, end: Int)? {
        let baseStart = s[start] == " " ? start + 1 : start
        var k = baseStart
        while k < s.count, s[k] != " ", s[k] != ">" {
            k += 1
            // base is s[baseStart..<k]; it must be followed by `[`
            guard k < s.count, s[k] == "[" else { continue }
            // reading: one or more characters other than a newline, up to the first `]`
            var j = k + 1
            guard j < s.count, s[j] != "\n" else { continue }
            j += 1
            while j < s.count, s[j] != "]", s[j] != "\n" { j += 1 }
            if j < s.count, s[j] == "]" {
                return (baseStart..<k, (k + 1)..<j, j + 1)
            }
        }
        return nil
    }
}
