/// Cloze deletions as current Anki reads and renders them (rslib `cloze.rs`).
///
/// A deletion is `{{c1::text}}` or `{{c1::text::hint}}`; `{{c1,2::text}}` belongs to cards 1
/// and 2; deletions nest (up to 10 deep; deeper openings are ignored); an unclosed deletion and
/// its content are dropped; `{{c0::…}}` renders but makes no card. A deletion whose text starts
/// with `image-occlusion:` is an image-occlusion shape.
public enum Cloze {
    /// The cloze numbers (≥ 1) in a field's text.
    ///
    /// ```swift
    /// Cloze.numbers(in: "{{c2::a}} {{c1,3::b}}")   // [1, 2, 3]
    /// ```
    public static func numbers(in text: String) -> Set<Int> {
        var set = Set<Int>()
        addNumbers(in: text, to: &set)
        return set
    }

    /// The cloze numbers (≥ 1) in any of the fields.
    public static func numbers(inFields fields: some Sequence<String>) -> Set<Int> {
        var set = Set<Int>()
        for field in fields { addNumbers(in: field, to: &set) }
        return set
    }

    /// The numbers of the deletions `parse` would keep, without building the tree: a deletion
    /// counts once it closes at the top level (an unclosed outer deletion drops everything
    /// inside it); openings past 10 levels are ignored, as `parse` ignores them.
    private static func addNumbers(in text: String, to set: inout Set<Int>) {
        var text = text
        text.withUTF8 { b in
            guard b.count >= 7 else { return }
            var open: [[Int]] = []
            var i = 0
            while i < b.count {
                let c = b[i]
                if c == UInt8(ascii: "{"), i + 2 < b.count, b[i + 1] == UInt8(ascii: "{"), b[i + 2] == UInt8(ascii: "c"),
                   let (ordinals, end) = openCloze(b, at: i) {
                    if open.count < 10 { open.append(ordinals) }
                    i = end
                } else if c == UInt8(ascii: "}"), i + 1 < b.count, b[i + 1] == UInt8(ascii: "}") {
                    if let closed = open.popLast() {
                        if open.isEmpty {
                            for n in closed where n != 0 { set.insert(n) }
                        } else {
                            open[open.count - 1].append(contentsOf: closed)
                        }
                    }
                    i += 2
                } else {
                    i += 1
                }
            }
        }
    }

    /// `{{c` + digits and commas + `::` at `i` (the caller checked `{{c`): the distinct numbers
    /// (each must fit 16 bits; empty and too large ones are dropped; none left is no opening),
    /// unsorted, and the offset after the colons.
    private static func openCloze(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> ([Int], Int)? {
        var j = i + 3
        var ordinals: [Int] = []
        var value = 0
        var digits = 0
        var overflow = false
        func finish() {
            if digits > 0, !overflow, !ordinals.contains(value) { ordinals.append(value) }
            value = 0; digits = 0; overflow = false
        }
        while j < b.count {
            let c = b[j]
            if c >= 0x30 && c <= 0x39 {
                value = value * 10 + Int(c - 0x30)
                if value > Int(UInt16.max) { overflow = true; value = 0 }
                digits += 1
            } else if c == UInt8(ascii: ",") {
                finish()
            } else {
                break
            }
            j += 1
        }
        finish()
        guard !ordinals.isEmpty, j + 1 < b.count, b[j] == UInt8(ascii: ":"), b[j + 1] == UInt8(ascii: ":") else { return nil }
        return (ordinals, j + 2)
    }

    /// What the `cloze` filter renders for card `number` (1-based): the active deletions as
    /// `<span class="cloze" data-cloze="…" data-ordinal="1">[...]</span>` on the question and
    /// `<span class="cloze" data-ordinal="1">text</span>` on the answer, the others as
    /// `<span class="cloze-inactive" data-ordinal="2">text</span>`; image-occlusion shapes as
    /// `<div class="cloze…" data-ordinal="…" data-shape=… ></div>`.
    ///
    /// Returns the empty string when the text has no deletion for `number` (Anki then treats the
    /// field as blank). HTML inside MathJax (`\(…\)`, `\[…\]`) in the result is stripped, as
    /// the filter does.
    public static func render(_ text: String, number: Int, question: Bool) -> String {
        var found = false
        var out = ""
        for node in parse(text) {
            switch node {
            case .text(let t): out += t
            case .cloze(let cloze): reveal(cloze, number: number, question: question, found: &found, into: &out)
            }
        }
        guard found else { return "" }
        return stripHTMLInsideMathJax(out)
    }

    /// What the `cloze-only` filter renders: the active deletions alone, joined by `, ` — their
    /// hints (`...` without one) on the question, their text on the answer.
    public static func renderOnly(_ text: String, number: Int, question: Bool) -> String {
        var output: [String] = []
        for node in parse(text) { revealTextOnly(node, number: number, question: question, into: &output) }
        return output.joined(separator: ", ")
    }

    /// The expected answer for `{{type:cloze:Field}}` on card `number`: the active deletions'
    /// text joined by `, `, or one text when all are the same.
    public static func textForTyping(_ text: String, number: Int) -> String {
        var output: [String] = []
        for node in parse(text) { revealTextOnly(node, number: number, question: false, into: &output) }
        guard let first = output.first else { return "" }
        return output.allSatisfy({ $0 == first }) ? first : output.joined(separator: ", ")
    }

    /// The text with every deletion replaced by its text (hints dropped), as Anki's
    /// `strip_clozes` does for sorting and duplicate checks.
    public static func stripped(_ text: String) -> String {
        var out = ""
        for node in parse(text) { appendClozedText(node, into: &out) }
        return out
    }

    // MARK: Parsing

    struct Deletion: Hashable {
        var ordinals: [Int]
        var nodes: [ClozeNode]
        var hint: String?

        var hintOrEllipsis: String { hint ?? "..." }

        var imageOcclusion: String? {
            guard case .text(let t)? = nodes.first, t.hasPrefix("image-occlusion:") else { return nil }
            return String(t.dropFirst("image-occlusion:".count))
        }

        var clozedText: String {
            var out = ""
            for node in nodes { appendClozedText(node, into: &out) }
            return out
        }
    }

    indirect enum ClozeNode: Hashable {
        case text(String)
        case cloze(Deletion)
    }

    private static func appendClozedText(_ node: ClozeNode, into out: inout String) {
        switch node {
        case .text(let t): out += t
        case .cloze(let cloze): for child in cloze.nodes { appendClozedText(child, into: &out) }
        }
    }

    private enum Token {
        case open([Int])
        case text(String)
        case close
    }

    private static let colons = Array("::".utf8)

    private static func tokenize(_ text: String) -> [Token] {
        var text = text
        return text.withUTF8 { b in
            var tokens: [Token] = []
            var i = 0
            var textStart = 0
            func flush(_ end: Int) {
                if end > textStart {
                    tokens.append(.text(String(decoding: UnsafeBufferPointer(rebasing: b[textStart..<end]), as: UTF8.self)))
                }
            }
            while i < b.count {
                if b[i] == UInt8(ascii: "{"), i + 2 < b.count, b[i + 1] == UInt8(ascii: "{"), b[i + 2] == UInt8(ascii: "c"),
                   let (ordinals, end) = openCloze(b, at: i) {
                    flush(i)
                    tokens.append(.open(ordinals.sorted()))
                    i = end
                    textStart = i
                } else if b[i] == UInt8(ascii: "}"), i + 1 < b.count, b[i + 1] == UInt8(ascii: "}") {
                    flush(i)
                    tokens.append(.close)
                    i += 2
                    textStart = i
                } else {
                    i += 1
                }
            }
            flush(b.count)
            return tokens
        }
    }

    static func parse(_ text: String) -> [ClozeNode] {
        guard text.utf8.count >= 2 else { return text.isEmpty ? [] : [.text(text)] }
        var open: [Deletion] = []
        var output: [ClozeNode] = []
        for token in tokenize(text) {
            switch token {
            case .open(let ordinals):
                if open.count < 10 { open.append(Deletion(ordinals: ordinals, nodes: [], hint: nil)) }
            case .text(var t):
                if !open.isEmpty {
                    let bytes = Array(t.utf8)
                    if !t.hasPrefix("image-occlusion:"), let at = TemplateLexer.find(bytes, colons, from: 0) {
                        open[open.count - 1].hint = String(decoding: bytes[(at + 2)...], as: UTF8.self)
                        t = String(decoding: bytes[..<at], as: UTF8.self)
                    }
                    open[open.count - 1].nodes.append(.text(t))
                } else {
                    output.append(.text(t))
                }
            case .close:
                if let cloze = open.popLast() {
                    if open.isEmpty { output.append(.cloze(cloze)) } else { open[open.count - 1].nodes.append(.cloze(cloze)) }
                } else {
                    output.append(.text("}}"))
                }
            }
        }
        return output
    }

    // MARK: Rendering

    private static func ordinalList(_ ordinals: [Int]) -> String {
        ordinals.map(String.init).joined(separator: ",")
    }

    private static func reveal(_ cloze: Deletion, number: Int, question: Bool, found: inout Bool, into out: inout String) {
        let active = cloze.ordinals.contains(number)
        found = found || active
        if let shape = cloze.imageOcclusion {
            out += ImageOcclusion.render(shape, question: question, active: active, ordinals: cloze.ordinals)
            return
        }
        let ordinals = ordinalList(cloze.ordinals)
        if question && active {
            var content = ""
            for node in cloze.nodes {
                switch node {
                case .text(let t): content += t
                case .cloze(let inner): reveal(inner, number: number, question: question, found: &found, into: &content)
                }
            }
            out += "<span class=\"cloze\" data-cloze=\"\(HTMLEscaping.attribute(content))\" data-ordinal=\"\(ordinals)\">[\(cloze.hintOrEllipsis)]</span>"
            return
        }
        out += active ? "<span class=\"cloze\" data-ordinal=\"\(ordinals)\">"
                      : "<span class=\"cloze-inactive\" data-ordinal=\"\(ordinals)\">"
        for node in cloze.nodes {
            switch node {
            case .text(let t): out += t
            case .cloze(let inner): reveal(inner, number: number, question: question, found: &found, into: &out)
            }
        }
        out += "</span>"
    }

    private static func revealTextOnly(_ node: ClozeNode, number: Int, question: Bool, into output: inout [String]) {
        guard case .cloze(let cloze) = node else { return }
        if cloze.ordinals.contains(number) {
            output.append(question ? cloze.hintOrEllipsis : cloze.clozedText)
        }
        for child in cloze.nodes { revealTextOnly(child, number: number, question: question, into: &output) }
    }

    /// `\(…\)` / `\[…\]` (either closing) with the tags inside removed, entities kept.
    static func stripHTMLInsideMathJax(_ text: String) -> String {
        let b = Array(text.utf8)
        guard b.contains(UInt8(ascii: "\\")) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        var closers = (round: Finder("\\)"), square: Finder("\\]"))
        while i < b.count {
            if isMathJaxOpen(b, i), let close = mathJaxClose(b, from: i + 2, &closers) {
                out.append(contentsOf: b[i..<(i + 2)])
                let inner = String(decoding: b[(i + 2)..<close], as: UTF8.self)
                out.append(contentsOf: Array(HTMLEscaping.stripTags(inner).utf8))
                out.append(contentsOf: b[close..<(close + 2)])
                i = close + 2
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isMathJaxOpen(_ b: [UInt8], _ i: Int) -> Bool {
        i + 1 < b.count && b[i] == UInt8(ascii: "\\") && (b[i + 1] == UInt8(ascii: "(") || b[i + 1] == UInt8(ascii: "["))
    }

    /// The first `\)` or `\]` at or after `start` (Anki's expression accepts either).
    private static func mathJaxClose(_ b: [UInt8], from start: Int, _ closers: inout (round: Finder, square: Finder)) -> Int? {
        let round = closers.round.find(in: b, from: start)
        let square = closers.square.find(in: b, from: start)
        switch (round, square) {
        case let (r?, s?): return min(r, s)
        case let (r?, nil): return r
        case let (nil, s?): return s
        case (nil, nil): return nil
        }
    }
}

/// Image-occlusion shapes (`image-occlusion:rect:left=.2:top=.3:width=.1:height=.1:oi=1`) as
/// the `data-*` attributes Anki's occlusion script reads.
enum ImageOcclusion {
    static func render(_ text: String, question: Bool, active: Bool, ordinals: [Int]) -> String {
        let list = ordinals.map(String.init).joined(separator: ",")
        let data = attributes(text)
        if (question && active) || ordinals.contains(0) {
            return "<div class=\"cloze\" data-ordinal=\"\(list)\" \(data)></div>"
        } else if !active {
            return "<div class=\"cloze-inactive\" data-ordinal=\"\(list)\" \(data)></div>"
        } else {
            return "<div class=\"cloze-highlight\" data-ordinal=\"\(list)\" \(data)></div>"
        }
    }

    /// `shape:name=value:name=value…`; values escape `:` and `\` with a backslash.
    static func parse(_ text: String) -> (shape: String, properties: [(String, String)])? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let shape = String(text[..<colon])
        let rest = Array(text[colon...].unicodeScalars)
        var properties: [(String, String)] = []
        var i = 0
        while i < rest.count, rest[i] == ":" {
            // name: one or more characters up to `=`
            var j = i + 1
            var name = ""
            while j < rest.count, rest[j] != "=" { name.unicodeScalars.append(rest[j]); j += 1 }
            guard !name.isEmpty, j < rest.count else { break }
            j += 1
            // value: runs of anything but `\` and `:`, with `\\` and `\:` escapes
            var value = ""
            while j < rest.count {
                let c = rest[j]
                if c == ":" { break }
                if c == "\\" {
                    guard j + 1 < rest.count, rest[j + 1] == "\\" || rest[j + 1] == ":" else { break }
                    value.unicodeScalars.append(rest[j + 1])
                    j += 2
                } else {
                    value.unicodeScalars.append(c)
                    j += 1
                }
            }
            // a lone backslash that is not an escape fails the property (nom's escaped_transform)
            if j < rest.count, rest[j] == "\\" { break }
            properties.append((name, value))
            i = j
        }
        return (shape, properties)
    }

    static func attributes(_ text: String) -> String {
        guard let (shape, properties) = parse(text) else { return "" }
        var out = ""
        if ["rect", "ellipse", "polygon", "text"].contains(shape) { out += "data-shape=\"\(shape)\" " }
        for (name, value) in properties {
            let emptyOrZero = value.isEmpty || value == "0"
            switch name {
            case "left", "top", "angle", "fill":
                if !value.isEmpty { out += "data-\(name)=\"\(value)\" " }
            case "width", "height", "rx", "ry", "scale":
                if !emptyOrZero { out += "data-\(name)=\"\(value)\" " }
            case "points":
                let points = value.split(separator: " ", omittingEmptySubsequences: false).compactMap { pair -> String? in
                    guard let comma = pair.firstIndex(of: ",") else { return nil }
                    return "\(pair[..<comma]),\(pair[pair.index(after: comma)...])"
                }.joined(separator: " ")
                if !points.isEmpty { out += "data-points=\"\(points)\" " }
            case "oi":
                if !value.isEmpty { out += "data-occludeInactive=\"\(value)\" " }
            case "text":
                if !value.isEmpty { out += "data-text=\"\(HTMLEscaping.attribute(value))\" " }
            case "fs":
                if !value.isEmpty { out += "data-font-size=\"\(value)\" " }
            default:
                continue
            }
        }
        return out
    }
}
