/// Media references in HTML and CSS (what Anki's media check and exporters look for).
enum MediaScanner {
    private static let mediaTags: Set<String> = ["img", "audio", "video", "object", "source"]

    /// Raw (still entity-encoded) names, in order of appearance: media tag attributes and sound tags.
    static func htmlReferences(_ html: String) -> [String] {
        let b = Array(html.utf8)
        var names: [String] = []
        var i = 0
        var scanner = MarkupScanner()
        var bracket = Finder("]")
        while i < b.count {
            if b[i] == UInt8(ascii: "["), TemplateLexer.matches(b, soundOpen, at: i),
               let close = bracket.find(in: b, from: i + soundOpen.count), close > i + soundOpen.count {
                names.append(String(decoding: b[(i + soundOpen.count)..<close], as: UTF8.self))
                i = close + 1
                continue
            }
            if b[i] == UInt8(ascii: "<"), let tag = scanner.markup(b, at: i) {
                if let name = tag.name, !tag.closing, mediaTags.contains(name) {
                    let text = String(decoding: b[tag.start..<tag.end], as: UTF8.self)
                    if let value = attribute("src", inTag: text) ?? attribute("data", inTag: text), !value.isEmpty {
                        names.append(value)
                    }
                }
                i = tag.end
                continue
            }
            i += 1
        }
        return names
    }

    private static let soundOpen = Array("[sound:".utf8)

    /// The value of attribute `name` in a tag's text (`name="v"`, `name='v'` or `name=v`),
    /// matched case-insensitively after a non-word character, as Anki's expression does.
    static func attribute(_ name: String, inTag tag: String) -> String? {
        let b = Array(tag.utf8)
        let count = name.utf8.count
        var i = 1
        var quote: UInt8?
        while i + count < b.count {
            let c = b[i]
            if let q = quote {
                if c == q { quote = nil }
                i += 1
                continue
            }
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") { quote = c; i += 1; continue }
            if !isWordByte(b[i - 1]), HTMLEscaping.matchesCaseInsensitively(b, name, at: i),
               b[i + count] == UInt8(ascii: "=") {
                var j = i + count + 1
                guard j < b.count else { return nil }
                if b[j] == UInt8(ascii: "\"") || b[j] == UInt8(ascii: "'") {
                    let q = b[j]
                    j += 1
                    guard let end = b[j...].firstIndex(of: q) else { return nil }
                    return String(decoding: b[j..<end], as: UTF8.self)
                }
                let start = j
                while j < b.count, b[j] != 0x20, b[j] != UInt8(ascii: ">") { j += 1 }
                return String(decoding: b[start..<j], as: UTF8.self)
            }
            i += 1
        }
        return nil
    }

    private static func isWordByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "_") || c >= 0x80
    }

    /// `url(…)` and `@import "…"` targets in CSS, in order.
    static func cssReferences(_ css: String) -> [String] {
        let b = Array(css.utf8)
        var names: [String] = []
        var i = 0
        while i < b.count {
            if HTMLEscaping.matchesCaseInsensitively(b, "url(", at: i), i == 0 || !isWordByte(b[i - 1]) {
                var j = i + 4
                while j < b.count, isSpace(b[j]) { j += 1 }
                guard j < b.count else { break }
                if b[j] == UInt8(ascii: "\"") || b[j] == UInt8(ascii: "'") {
                    let q = b[j]
                    guard let end = b[(j + 1)...].firstIndex(of: q) else { break }
                    names.append(String(decoding: b[(j + 1)..<end], as: UTF8.self))
                    i = end + 1
                } else {
                    guard let end = b[j...].firstIndex(of: UInt8(ascii: ")")) else { break }
                    var last = end
                    while last > j, isSpace(b[last - 1]) { last -= 1 }
                    if last > j { names.append(String(decoding: b[j..<last], as: UTF8.self)) }
                    i = end + 1
                }
                continue
            }
            if HTMLEscaping.matchesCaseInsensitively(b, "@import", at: i) {
                var j = i + 7
                while j < b.count, isSpace(b[j]) { j += 1 }
                if j < b.count, b[j] == UInt8(ascii: "\"") || b[j] == UInt8(ascii: "'") {
                    let q = b[j]
                    if let end = b[(j + 1)...].firstIndex(of: q) {
                        names.append(String(decoding: b[(j + 1)..<end], as: UTF8.self))
                        i = end + 1
                        continue
                    }
                }
                i = j
                continue
            }
            i += 1
        }
        return names
    }

    private static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C
    }

    /// Not a remote URL (`scheme://…`, `//host/…`) nor a `data:` URL.
    static func isLocal(_ name: String) -> Bool {
        let lower = name.lowercased()
        if lower.hasPrefix("data:") || lower.hasPrefix("//") { return false }
        if let colon = lower.firstIndex(of: ":"), lower[colon...].hasPrefix("://") {
            return !lower[..<colon].allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
        }
        return true
    }
}
