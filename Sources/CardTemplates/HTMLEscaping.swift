/// HTML escaping, entity decoding and tag stripping exactly as Anki's renderer does them
/// (Anki uses the `htmlescape` crate and one stripping regular expression).
enum HTMLEscaping {
    /// `"`, `&`, `'`, `<`, `>` as `&quot;`, `&amp;`, `&#x27;`, `&lt;`, `&gt;`.
    static func minimal(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if let entity = minimalEntity(scalar) { out += entity } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    private static func minimalEntity(_ scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "\"": return "&quot;"
        case "&": return "&amp;"
        case "'": return "&#x27;"
        case "<": return "&lt;"
        case ">": return "&gt;"
        default: return nil
        }
    }

    /// For attribute values: the minimal entities, and every other character below U+0100 that
    /// is not an ASCII letter or digit as `&#xHH;` (upper-case hex); the rest unchanged.
    static func attribute(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count * 2)
        for scalar in text.unicodeScalars {
            if let entity = minimalEntity(scalar) {
                out += entity
            } else if scalar.value < 256, scalar.value > 127 || !isASCIIAlphanumeric(scalar) {
                out += "&#x" + hexByte(UInt8(scalar.value)) + ";"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return false
        }
    }

    static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        var s = ""
        s.unicodeScalars.append(digits[Int(byte >> 4)])
        s.unicodeScalars.append(digits[Int(byte & 0xF)])
        return s
    }

    /// Anki's `decode_entities`: all entities decoded and U+00A0 turned into a space, or — when
    /// any `&` does not start a well-formed known entity — the text unchanged.
    static func decodeEntitiesStrictly(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        guard let decoded = strictDecode(text) else { return text }
        return decoded.replacingScalar("\u{A0}", with: " ")
    }

    /// The `htmlescape` decoder: `&name;`, `&#123;`, `&#x1F;` (lower-case `x` only); anything else
    /// after `&` fails the whole string.
    private static func strictDecode(_ text: String) -> String? {
        enum State { case normal, entity, named, numeric, hex, dec }
        var state = State.normal
        var buffer = ""
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch state {
            case .normal:
                if scalar == "&" { state = .entity } else { out.unicodeScalars.append(scalar) }
            case .entity:
                if scalar == "#" { state = .numeric } else { state = .named; buffer.unicodeScalars.append(scalar) }
            case .named:
                if scalar == ";" {
                    guard let decoded = htmlNamedEntities[buffer] else { return nil }
                    out.unicodeScalars.append(decoded)
                    buffer = ""
                    state = .normal
                } else {
                    buffer.unicodeScalars.append(scalar)
                }
            case .numeric:
                if isDigit(scalar) { state = .dec; buffer.unicodeScalars.append(scalar) }
                else if scalar == "x" { state = .hex }
                else { return nil }
            case .dec, .hex:
                if scalar == ";" {
                    guard let value = UInt32(buffer, radix: state == .dec ? 10 : 16),
                          let decoded = Unicode.Scalar(value) else { return nil }
                    out.unicodeScalars.append(decoded)
                    buffer = ""
                    state = .normal
                } else if state == .hex ? isHexDigit(scalar) : isDigit(scalar) {
                    buffer.unicodeScalars.append(scalar)
                } else {
                    return nil
                }
            }
        }
        return state == .normal ? out : nil
    }

    /// Lenient decoding for plain text: each well-formed entity decoded, anything else kept.
    static func decodeEntitiesLeniently(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var i = 0
        while i < scalars.count {
            if scalars[i] == "&", let (decoded, end) = entity(in: scalars, at: i) {
                out.unicodeScalars.append(decoded)
                i = end
            } else {
                out.unicodeScalars.append(scalars[i])
                i += 1
            }
        }
        return out
    }

    /// A well-formed entity starting at `start` (`&`): the character and the index after `;`.
    private static func entity(in scalars: [Unicode.Scalar], at start: Int) -> (Unicode.Scalar, Int)? {
        var i = start + 1
        var body = ""
        while i < scalars.count, i - start <= 32, scalars[i] != ";" {
            body.unicodeScalars.append(scalars[i])
            i += 1
        }
        guard i < scalars.count, scalars[i] == ";", !body.isEmpty else { return nil }
        if body.hasPrefix("#") {
            let digits = body.dropFirst()
            let value: UInt32?
            if digits.hasPrefix("x") || digits.hasPrefix("X") {
                value = UInt32(digits.dropFirst(), radix: 16)
            } else {
                value = UInt32(digits, radix: 10)
            }
            guard let value, let scalar = Unicode.Scalar(value) else { return nil }
            return (scalar, i + 1)
        }
        if body == "apos" { return ("'", i + 1) }
        guard let scalar = htmlNamedEntities[body] else { return nil }
        return (scalar, i + 1)
    }

    private static func isDigit(_ s: Unicode.Scalar) -> Bool { s.value >= 0x30 && s.value <= 0x39 }
    private static func isHexDigit(_ s: Unicode.Scalar) -> Bool {
        isDigit(s) || (s.value >= 0x41 && s.value <= 0x46) || (s.value >= 0x61 && s.value <= 0x66)
    }

    /// Anki's `strip_html_preserving_entities`: comments, `<style>…</style>`,
    /// `<script>…</script>` and every `<…>` removed (case-insensitive, across lines).
    static func stripTags(_ html: String) -> String {
        var html = html
        return html.withUTF8 { bytes in
            guard bytes.contains(UInt8(ascii: "<")) else { return String(decoding: bytes, as: UTF8.self) }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var scanner = TagStripper()
            var i = 0
            while i < bytes.count {
                guard bytes[i] == UInt8(ascii: "<"), let end = scanner.tagEnd(bytes, at: i) else {
                    out.append(bytes[i])
                    i += 1
                    continue
                }
                i = end
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// The alternatives of Anki's stripping expression, tried in order at each `<`.
    private struct TagStripper {
        var commentEnd = Finder("-->")
        var tagClose = Finder(">")
        var styleEnd = Finder("</style>", caseInsensitive: true)
        var scriptEnd = Finder("</script>", caseInsensitive: true)

        /// The end (exclusive) of the markup starting with `<` at `i`, or nil when it is text.
        mutating func tagEnd(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Int? {
            if matches(bytes, "<!--", at: i), let end = commentEnd.find(in: bytes, from: i + 4) {
                return end + 3
            }
            if matches(bytes, "<style", at: i), let open = tagClose.find(in: bytes, from: i + 1),
               let close = styleEnd.find(in: bytes, from: open + 1) {
                return close + 8
            }
            if matches(bytes, "<script", at: i), let open = tagClose.find(in: bytes, from: i + 1),
               let close = scriptEnd.find(in: bytes, from: open + 1) {
                return close + 9
            }
            return tagClose.find(in: bytes, from: i + 1).map { $0 + 1 }
        }

        private func matches(_ b: UnsafeBufferPointer<UInt8>, _ pattern: StaticString, at index: Int) -> Bool {
            let count = pattern.utf8CodeUnitCount
            guard index + count <= b.count else { return false }
            let p = pattern.utf8Start
            for k in 0..<count where HTMLEscaping.lowercased(b[index + k]) != p[k] { return false }
            return true
        }
    }

    static func matchesCaseInsensitively(_ bytes: [UInt8], _ pattern: String, at index: Int) -> Bool {
        let p = Array(pattern.utf8)
        guard index >= 0, index + p.count <= bytes.count else { return false }
        for k in 0..<p.count where lowercased(bytes[index + k]) != lowercased(p[k]) { return false }
        return true
    }

    static func findCaseInsensitively(_ bytes: [UInt8], _ pattern: String, from index: Int) -> Int? {
        let count = pattern.utf8.count
        var i = index
        while i + count <= bytes.count {
            if matchesCaseInsensitively(bytes, pattern, at: i) { return i }
            i += 1
        }
        return nil
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }

    /// Anki's `strip_html`: tags stripped, then entities decoded (all or nothing).
    static func stripHTML(_ html: String) -> String {
        decodeEntitiesStrictly(stripTags(html))
    }
}

extension String {
    func replacingScalar(_ scalar: Unicode.Scalar, with replacement: String) -> String {
        guard unicodeScalars.contains(scalar) else { return self }
        var out = ""
        for s in unicodeScalars {
            if s == scalar { out += replacement } else { out.unicodeScalars.append(s) }
        }
        return out
    }

    /// Every occurrence of `target` replaced (byte-wise; both are plain strings).
    func replacingAll(_ target: String, with replacement: String) -> String {
        let bytes = Array(utf8)
        let pattern = Array(target.utf8)
        guard !pattern.isEmpty, var next = TemplateLexer.find(bytes, pattern, from: 0) else { return self }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        let rep = Array(replacement.utf8)
        while true {
            out.append(contentsOf: bytes[i..<next])
            out.append(contentsOf: rep)
            i = next + pattern.count
            guard let found = TemplateLexer.find(bytes, pattern, from: i) else { break }
            next = found
        }
        out.append(contentsOf: bytes[i...])
        return String(decoding: out, as: UTF8.self)
    }
}
