extension StringProtocol {
    /// This text with every character that could change what a terminal shows escaped, so a
    /// name or title from a file prints as one visible line and cannot forge another message.
    ///
    /// Escaped: the C0 controls (U+0000–U+001F: `\n`, `\r` and `\t` by name, the others as
    /// `\x1B`), DEL (`\x7F`), the C1 controls (U+0080–U+009F, `\x9B`), the line and paragraph
    /// separators (U+2028, U+2029) and the bidirectional marks, embeddings, overrides and
    /// isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069, as `\u{202E}`).
    /// Everything else, backslashes included, is kept as it is. Text with nothing to escape
    /// is returned unchanged after one pass over its UTF-8 bytes.
    ///
    /// ```swift
    /// "evil\n\u{1B}[31mdeck: error: forged".escapingControlCharacters()
    /// // evil\n\x1B[31mdeck: error: forged
    /// ```
    public func escapingControlCharacters() -> String {
        let text = String(self)
        guard text.utf8.containsControlCharacter else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if let escape = scalar.controlEscape {
                result += escape
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension Unicode.Scalar {
    /// How ``StringProtocol/escapingControlCharacters()`` writes this scalar, or `nil` when
    /// it is printed as it is.
    package var controlEscape: String? {
        switch value {
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        case 0x00...0x1F, 0x7F...0x9F: return "\\x" + hexDigits(value, count: 2)
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
            return "\\u{" + hexDigits(value, count: 4) + "}"
        default: return nil
        }
    }

    private func hexDigits(_ value: UInt32, count: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, count - digits.count)) + digits
    }
}

extension String.UTF8View {
    /// Whether the text holds a scalar that ``Unicode/Scalar/controlEscape`` escapes,
    /// decided on the UTF-8 bytes without decoding.
    fileprivate var containsControlCharacter: Bool {
        if let answer = withContiguousStorageIfAvailable({ Self.scan($0) }) { return answer }
        return Self.scan(Array(self))
    }

    private static func scan(_ bytes: some RandomAccessCollection<UInt8>) -> Bool {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            bytes.formIndex(after: &index)
            switch byte {
            case 0x00...0x1F, 0x7F:
                return true
            case 0xC2:  // U+0080–U+00BF: C1 controls are C2 80–C2 9F
                if index != bytes.endIndex, (0x80...0x9F).contains(bytes[index]) { return true }
            case 0xD8:  // U+061C ARABIC LETTER MARK is D8 9C
                if index != bytes.endIndex, bytes[index] == 0x9C { return true }
            case 0xE2:  // U+2000–U+2FFF
                guard index != bytes.endIndex else { break }
                let second = bytes[index]
                let thirdIndex = bytes.index(after: index)
                guard thirdIndex != bytes.endIndex else { break }
                let third = bytes[thirdIndex]
                // E2 80 8E/8F: U+200E/F; E2 80 A8–AE: U+2028–U+202E; E2 81 A6–A9: U+2066–U+2069.
                if second == 0x80, third == 0x8E || third == 0x8F || (0xA8...0xAE).contains(third) { return true }
                if second == 0x81, (0xA6...0xA9).contains(third) { return true }
            default:
                break
            }
        }
        return false
    }
}
