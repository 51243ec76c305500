extension Unicode.Scalar {
    /// How many terminal cells the scalar takes on its own: 0, 1 or 2.
    ///
    /// - 0: combining marks (general categories Mn, Me), format characters (Cf: zero-width
    ///   space and joiners, bidirectional marks), variation selectors, Hangul vowel and final
    ///   jamo that join a syllable, and control characters (which ``escapingControlCharacters()``
    ///   turns into visible text before anything is printed).
    /// - 2: East Asian Wide and Fullwidth characters (CJK ideographs, kana, Hangul syllables,
    ///   fullwidth forms) and emoji shown as emoji by default (`Emoji_Presentation`).
    /// - 1: everything else.
    ///
    /// Swift's `Unicode.Scalar.Properties` has no East Asian Width, so the Wide and Fullwidth
    /// blocks are listed here (from Unicode's EastAsianWidth.txt, by block).
    public var terminalCellWidth: Int {
        let value = value
        if value < 0x20 || (value >= 0x7F && value < 0xA0) { return 0 }
        if value < 0x300 { return 1 }
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0xFE00...0xFE0F).contains(value) || (0xE0100...0xE01EF).contains(value) || (0x1160...0x11FF).contains(value) { return 0 }
        if properties.isEmojiPresentation { return 2 }
        for range in Self.wideRanges where range.contains(value) { return 2 }
        return 1
    }

    /// The East Asian Wide (W) and Fullwidth (F) ranges, by block.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,   // Hangul Jamo initial consonants
        0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3,
        0x2E80...0x303E,   // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
        0x3041...0x33FF,   // Hiragana, Katakana, Bopomofo, Hangul compatibility jamo, Kanbun, CJK strokes, enclosed, compatibility
        0x3400...0x4DBF,   // CJK Unified Ideographs Extension A
        0x4E00...0x9FFF,   // CJK Unified Ideographs
        0xA000...0xA4CF,   // Yi
        0xA960...0xA97F,   // Hangul Jamo Extended-A
        0xAC00...0xD7A3,   // Hangul syllables
        0xF900...0xFAFF,   // CJK compatibility ideographs
        0xFE10...0xFE19,   // vertical forms
        0xFE30...0xFE6F,   // CJK compatibility forms, small form variants
        0xFF00...0xFF60,   // fullwidth forms
        0xFFE0...0xFFE6,   // fullwidth signs
        0x16FE0...0x18CFF, // Tangut, Khitan and ideographic symbols
        0x1AFF0...0x1B2FF, // Kana supplement and extensions, Nushu
        0x1F200...0x1F2FF, // enclosed ideographic supplement
        0x20000...0x3FFFD, // CJK Unified Ideographs Extensions B and later, planes 2 and 3
    ]
}

extension StringProtocol {
    /// How many terminal cells the text takes, grapheme cluster by grapheme cluster: a
    /// cluster is as wide as its first scalar that takes room, and 2 when it is shown as an
    /// emoji (a variation selector 16, a zero-width-joined sequence, a flag), so `é` written
    /// as e + U+0301 is 1, `日本` is 4, `👍🏽` and `👨‍👩‍👧` are 2 each.
    public var terminalCellWidth: Int {
        var total = 0
        for character in self { total += character.terminalCellWidth }
        return total
    }

    /// The longest prefix of whole characters that fits in `cells` terminal cells.
    public func prefix(cells: Int) -> Substring {
        var used = 0
        var end = startIndex
        for index in indices {
            let width = self[index].terminalCellWidth
            if used + width > cells { break }
            used += width
            end = self.index(after: index)
        }
        return Substring(self[startIndex..<end])
    }
}

extension Character {
    /// The terminal cells of one grapheme cluster (see ``Swift/StringProtocol/terminalCellWidth``).
    public var terminalCellWidth: Int {
        let scalars = unicodeScalars
        guard let first = scalars.first(where: { $0.terminalCellWidth > 0 }) else { return 0 }
        if scalars.count > 1 {
            // Emoji presentation asked for (U+FE0F), joined emoji, or a flag: one emoji.
            if scalars.contains("\u{FE0F}") || (scalars.contains("\u{200D}") && first.properties.isEmoji) { return 2 }
            if (0x1F1E6...0x1F1FF).contains(first.value) { return 2 }
        }
        return first.terminalCellWidth
    }
}
