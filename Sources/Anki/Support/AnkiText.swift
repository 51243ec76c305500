import Digest
/// Anki's text conventions: field and tag encoding, HTML stripping for the sort field and checksum,
/// and base91 GUIDs.
package enum AnkiText {
    /// The separator between fields in `notes.flds` (U+001F, unit separator).
    package static let fieldSeparator: Character = "\u{1F}"

    /// Splits `notes.flds` into fields.
    package static func splitFields(_ flds: String) -> [String] {
        var copy = flds
        return copy.withUTF8(splitFields)
    }

    /// Splits the UTF-8 bytes of `notes.flds` into fields (invalid UTF-8 is repaired, as
    /// `String(decoding:as:)` does).
    package static func splitFields(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var fields: [String] = []
        var start = 0
        for i in 0..<bytes.count where bytes[i] == 0x1F {
            fields.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self))
            start = i + 1
        }
        fields.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
        return fields
    }

    /// Joins fields for `notes.flds`, dropping separator characters a field must not contain.
    package static func joinFields(_ fields: [String]) -> String {
        if !fields.contains(where: { $0.utf8.contains(0x1F) }) {
            return fields.joined(separator: "\u{1F}")
        }
        return fields.map { $0.filter { $0 != fieldSeparator } }.joined(separator: "\u{1F}")
    }

    /// Splits `notes.tags` (`" a b "`) into tags, at spaces, tabs, newlines and ideographic spaces.
    package static func splitTags(_ tags: String) -> [String] {
        var copy = tags
        return copy.withUTF8(splitTags)
    }

    /// Splits the UTF-8 bytes of `notes.tags` into tags, as ``splitTags(_:)-(String)``.
    package static func splitTags(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var result: [String] = []
        var start = 0
        var i = 0
        func flush(_ end: Int) {
            if end > start {
                result.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
            }
        }
        while i < bytes.count {
            let byte = bytes[i]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                flush(i)
                i += 1
                start = i
            } else if byte == 0xE3, i + 2 < bytes.count, bytes[i + 1] == 0x80, bytes[i + 2] == 0x80 {
                flush(i)
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        flush(bytes.count)
        return result
    }

    /// Joins tags the way Anki stores them: `" a b "`, or `""` when there are none. Whitespace inside
    /// a tag becomes `_`, as a tag cannot contain it.
    package static func joinTags(_ tags: [String]) -> String {
        if tags.isEmpty { return "" }
        // Fast path: printable ASCII without spaces, as nearly every tag is.
        if tags.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } }) {
            return " " + tags.joined(separator: " ") + " "
        }
        let cleaned = tags.map { tag in
            String(tag.map { $0.isWhitespace ? "_" : $0 })
        }.filter { !$0.isEmpty }
        return cleaned.isEmpty ? "" : " " + cleaned.joined(separator: " ") + " "
    }

    /// Anki's note checksum: the first 4 bytes, big-endian, of the SHA-1 of the first field with
    /// HTML stripped and media file names kept (`"test"` gives 2840236005).
    package static func checksum(ofFirstField field: String) -> UInt32 {
        // The first four bytes of the SHA-1 digest, big-endian.
        SHA1.hash(stripHTMLPreservingMediaFilenames(field)).prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Removes HTML as Anki does for the sort field and checksum: comments, `<style>`/`<script>`
    /// elements and tags go; a media tag (`img`, `audio`, `video`, `source` with `src`, `object`
    /// with `data`) becomes its file name padded with spaces; entities are decoded (`&nbsp;` → space).
    package static func stripHTMLPreservingMediaFilenames(_ html: String) -> String {
        guard html.utf8.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") }) else { return html }
        let bytes = Array(html.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            guard byte == UInt8(ascii: "<") else {
                out.append(byte)
                i += 1
                continue
            }
            if starts(bytes, at: i, with: "<!--"), let end = find(bytes, "-->", from: i + 4) {
                i = end + 3
                continue
            }
            guard let close = bytes[(i + 1)...].firstIndex(of: UInt8(ascii: ">")) else {
                out.append(byte)
                i += 1
                continue
            }
            let tag = bytes[(i + 1)..<close]
            let name = tagName(tag)
            if name == "style" || name == "script" {
                let closing = Array("</\(name)".utf8)
                if let end = findCaseInsensitive(bytes, closing, from: close + 1),
                   let endClose = bytes[end...].firstIndex(of: UInt8(ascii: ">")) {
                    i = endClose + 1
                    continue
                }
            }
            if let file = mediaFilename(tagName: name, tag) {
                out.append(UInt8(ascii: " "))
                out.append(contentsOf: file)
                out.append(UInt8(ascii: " "))
            }
            i = close + 1
        }
        return decodeEntities(String(decoding: out, as: UTF8.self))
    }

    /// Decodes HTML character references (`&amp;`, `&#39;`, `&#x27;` and common named ones);
    /// a non-breaking space becomes a plain space. Unknown references are left as they are.
    package static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semi = after.prefix(12).firstIndex(of: ";") {
                let name = after[..<semi]
                if let decoded = decodeReference(name) {
                    out.append(decoded == "\u{A0}" ? " " : decoded)
                    rest = after[after.index(after: semi)...]
                    continue
                }
            }
            out.append("&")
            rest = after
        }
        out += rest
        return out
    }

    /// A new random GUID in Anki's base91 alphabet (as Anki's own `guid64`).
    package static func newGUID() -> String {
        var generator = SystemRandomNumberGenerator()
        return newGUID(using: &generator)
    }

    /// A new random GUID drawn from `generator`.
    package static func newGUID(using generator: inout some RandomNumberGenerator) -> String {
        base91(generator.next() | 1)
    }

    /// `value` in Anki's base91 alphabet, most significant digit first.
    package static func base91(_ value: UInt64) -> String {
        // 91^10 > 2^64: ten digits always suffice.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { digits in
            var n = value
            var start = 10
            while n > 0 {
                start -= 1
                digits[start] = base91Alphabet[Int(n % 91)]
                n /= 91
            }
            return String(decoding: UnsafeBufferPointer(rebasing: digits[start..<10]), as: UTF8.self)
        }
    }

    /// Anki's base91 digits: ASCII letters (lowercase first), digits, then 29 punctuation marks.
    package static let base91Alphabet: [UInt8] =
        Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_`{|}~".utf8)

    // MARK: - Helpers

    private static let namedEntities: [Substring: Character] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
        "ndash": "\u{2013}", "mdash": "\u{2014}", "hellip": "\u{2026}", "lsquo": "\u{2018}",
        "rsquo": "\u{2019}", "ldquo": "\u{201C}", "rdquo": "\u{201D}", "laquo": "\u{AB}",
        "raquo": "\u{BB}", "copy": "\u{A9}", "reg": "\u{AE}", "deg": "\u{B0}", "times": "\u{D7}",
        "divide": "\u{F7}", "middot": "\u{B7}", "shy": "\u{AD}", "euro": "\u{20AC}",
    ]

    private static func decodeReference(_ name: Substring) -> Character? {
        if name.hasPrefix("#") {
            let digits = name.dropFirst()
            let value: UInt32?
            if digits.hasPrefix("x") || digits.hasPrefix("X") {
                value = UInt32(digits.dropFirst(), radix: 16)
            } else {
                value = UInt32(digits, radix: 10)
            }
            return value.flatMap(Unicode.Scalar.init).map(Character.init)
        }
        return namedEntities[name]
    }

    private static func starts(_ bytes: [UInt8], at index: Int, with prefix: String) -> Bool {
        let p = Array(prefix.utf8)
        return bytes.count - index >= p.count && Array(bytes[index..<index + p.count]) == p
    }

    private static func find(_ bytes: [UInt8], _ needle: String, from start: Int) -> Int? {
        let n = Array(needle.utf8)
        guard bytes.count >= n.count, start <= bytes.count - n.count else { return nil }
        for i in start...(bytes.count - n.count) where bytes[i] == n[0] && Array(bytes[i..<i + n.count]) == n {
            return i
        }
        return nil
    }

    private static func findCaseInsensitive(_ bytes: [UInt8], _ needle: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        outer: for i in start...(bytes.count - needle.count) {
            for j in 0..<needle.count where lower(bytes[i + j]) != lower(needle[j]) { continue outer }
            return i
        }
        return nil
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte + 32 : byte
    }

    /// The lowercased element name of a tag's inside (`img src=…` → `img`), or "" for closing tags.
    private static func tagName(_ tag: ArraySlice<UInt8>) -> String {
        var name: [UInt8] = []
        for byte in tag {
            let c = lower(byte)
            if (c >= 97 && c <= 122) || (c >= 48 && c <= 57) { name.append(c) } else { break }
        }
        return String(decoding: name, as: UTF8.self)
    }

    /// The file a media tag refers to: `src` of img/audio/video/source, `data` of object.
    private static func mediaFilename(tagName name: String, _ tag: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let attribute: String
        switch name {
        case "img", "audio", "video", "source": attribute = "src"
        case "object": attribute = "data"
        default: return nil
        }
        let lowered = tag.map(lower)
        let key = Array(attribute.utf8)
        var i = lowered.startIndex + name.utf8.count
        while i < lowered.endIndex {
            // an attribute name starts after whitespace
            guard lowered[i] == 32 || lowered[i] == 9 || lowered[i] == 10 || lowered[i] == 13,
                  i + 1 + key.count <= lowered.endIndex,
                  Array(lowered[(i + 1)..<(i + 1 + key.count)]) == key else { i += 1; continue }
            var j = i + 1 + key.count
            while j < lowered.endIndex, lowered[j] == 32 { j += 1 }
            guard j < lowered.endIndex, lowered[j] == UInt8(ascii: "=") else { i += 1; continue }
            j += 1
            while j < lowered.endIndex, lowered[j] == 32 { j += 1 }
            guard j < lowered.endIndex else { return nil }
            let base = tag.startIndex - lowered.startIndex
            let quote = lowered[j]
            if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                guard let end = lowered[(j + 1)...].firstIndex(of: quote) else { return nil }
                return tag[(base + j + 1)..<(base + end)]
            }
            var end = j
            while end < lowered.endIndex, ![32, 9, 10, 13, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(lowered[end]) {
                end += 1
            }
            return tag[(base + j)..<(base + end)]
        }
        return nil
    }
}
