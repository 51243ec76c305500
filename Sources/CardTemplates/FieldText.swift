/// Text helpers over field and card HTML: Anki's emptiness rule and tag stripping, plain text for
/// search and lists, text for a terminal, and the media files HTML and CSS refer to.
public enum FieldText {
    /// Whether Anki counts a field as empty: nothing but ASCII white space and empty `<br>` /
    /// `<div>` tags (`<br>`, `<br/>`, `<br />`, `<div>`, `</div>`, any case).
    ///
    /// ```swift
    /// FieldText.isEmpty(" <div><br></div>\n")   // true
    /// FieldText.isEmpty("&nbsp;")               // false: an entity is content
    /// ```
    public static func isEmpty(_ field: String) -> Bool {
        if let result = field.utf8.withContiguousStorageIfAvailable({ isEmpty(bytes: $0) }) { return result }
        return Array(field.utf8).withUnsafeBufferPointer { isEmpty(bytes: $0) }
    }

    private static func isEmpty(bytes b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < b.count {
            switch b[i] {
            case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D:
                i += 1
            case UInt8(ascii: "<"):
                guard let end = emptyTagEnd(b, i) else { return false }
                i = end
            default:
                return false
            }
        }
        return true
    }

    /// `</?(br|div) ?/?>` at `i`, case-insensitive: the offset after it.
    private static func emptyTagEnd(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        var i = start + 1
        if i < b.count, b[i] == UInt8(ascii: "/") { i += 1 }
        func letter(_ k: Int, _ lower: Character) -> Bool {
            k < b.count && HTMLEscaping.lowercased(b[k]) == lower.asciiValue
        }
        if letter(i, "b"), letter(i + 1, "r") { i += 2 }
        else if letter(i, "d"), letter(i + 1, "i"), letter(i + 2, "v") { i += 3 }
        else { return nil }
        if i < b.count, b[i] == 0x20 { i += 1 }
        if i < b.count, b[i] == UInt8(ascii: "/") { i += 1 }
        guard i < b.count, b[i] == UInt8(ascii: ">") else { return nil }
        return i + 1
    }

    /// Anki's `strip_html` (the `text:` filter): comments, `<style>`/`<script>` elements and every
    /// tag removed, then entities decoded — all of them, or none when any `&` is not a
    /// well-formed known entity — with U+00A0 as a space. Line breaks are not added.
    public static func strippingHTML(_ html: String) -> String {
        HTMLEscaping.stripHTML(html)
    }

    /// Plain text for search indexes and list output.
    ///
    /// Tags are removed; `<br>` is a line break and block elements (`div`, `p`, `li`, `tr`,
    /// headings, …) start a new line; white space runs collapse to one space as in HTML; entities
    /// are decoded one by one (a malformed one is kept as written), U+00A0 becomes a space; lines
    /// are trimmed and empty leading and trailing lines dropped. Images are dropped; sound tags
    /// stay as written (`[sound:a.mp3]`). Costs one pass over the text.
    ///
    /// ```swift
    /// FieldText.plainText(fromHTML: "<b>chat</b><div>le&nbsp;chat</div>")   // "chat\nle chat"
    /// ```
    public static func plainText(fromHTML html: String) -> String {
        isPlainAlready(html) ? html : TextWriter(style: .plain).write(html)
    }

    /// Whether `text` is its own plain text: no markup or entity (`<`, `&`), no control
    /// character, no U+00A0, no run of spaces, and no space at either end (its first and last
    /// bytes are printable ASCII, so no other white space either). Most fields of real decks
    /// are; a search index of a million notes is built several times faster through this check.
    static func isPlainAlready(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let first = bytes.first, let last = bytes.last else { return true }
            guard (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) else { return false }
            var previous: UInt8 = 0
            for byte in bytes {
                switch byte {
                case 0x00..<0x20, 0x3C, 0x26, 0x7F: return false
                case 0x20 where previous == 0x20: return false
                case 0xA0 where previous == 0xC2: return false
                default: previous = byte
                }
            }
            return true
        }
    }

    /// Text for a terminal: ``plainText(fromHTML:)``, with images as `[image: name]`, sound tags
    /// as `[sound: name]`, `<hr>` as a line of dashes, list items bulleted, and type-in-the-answer
    /// boxes (`[[type:Field]]`) as `[type: Field]`. Cloze gaps rendered by
    /// ``NoteLayout/render(ordinal:fieldValues:context:browser:ankiPlayTags:)`` read `[...]` or
    /// `[hint]` already.
    public static func terminalText(fromHTML html: String) -> String {
        TextWriter(style: .terminal).write(html)
    }

    /// The media file names HTML refers to, in order of first appearance, each once: `src` or
    /// `data` of `<img>`, `<audio>`, `<video>`, `<object>` and `<source>`, and `[sound:name]`
    /// tags, entity-decoded as Anki decodes them. Remote (`scheme://…`) and `data:` URLs are
    /// left out.
    public static func mediaReferences(inHTML html: String) -> [String] {
        var names: [String] = []
        var seen = Set<String>()
        for reference in MediaScanner.htmlReferences(html) {
            let name = HTMLEscaping.decodeEntitiesStrictly(reference)
            guard MediaScanner.isLocal(name), seen.insert(name).inserted else { continue }
            names.append(name)
        }
        return names
    }

    /// The media file names CSS refers to, in order, each once: `url(name)` (quoted or not) and
    /// `@import "name"`. Remote and `data:` URLs are left out. (Anki itself only keeps files whose
    /// names start with `_` for note type CSS; this returns every local name.)
    public static func mediaReferences(inCSS css: String) -> [String] {
        var names: [String] = []
        var seen = Set<String>()
        for name in MediaScanner.cssReferences(css) where MediaScanner.isLocal(name) && seen.insert(name).inserted {
            names.append(name)
        }
        return names
    }
}
