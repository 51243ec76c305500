import Testing
import ArgumentParsing

/// Terminal cell widths: what a table must count so its columns line up.
@Suite struct CellWidthTests {
    @Test(arguments: [
        ("abc", 3), ("élan", 4), ("e\u{301}lan", 4),            // precomposed and combining accents
        ("日本語", 6), ("ｶﾀｶﾅ", 4), ("ＡＢ", 4), ("한국어", 6),   // wide, halfwidth, fullwidth, Hangul
        ("\u{1100}\u{1161}\u{11A8}", 2),                          // a Hangul syllable from conjoining jamo
        ("👍", 2), ("👍🏽", 2), ("👨‍👩‍👧", 2), ("🇫🇷", 2),           // emoji, skin tone, ZWJ family, flag
        ("☺", 1), ("☺️", 2),                                       // text symbol, and with emoji presentation (VS16)
        ("a\u{200B}b", 2), ("\u{200D}", 0), ("\u{FEFF}", 0),      // zero-width space, joiner, BOM
        ("\u{1B}", 0), ("", 0), ("🙂 ok", 5),
    ] as [(String, Int)])
    func widths(_ text: String, _ cells: Int) {
        #expect(text.terminalCellWidth == cells, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func prefixStopsAtWholeCharacters() {
        #expect("日本語".prefix(cells: 3) == "日")
        #expect("日本語".prefix(cells: 4) == "日本")
        #expect("e\u{301}e\u{301}".prefix(cells: 1) == "e\u{301}")
        #expect("👨‍👩‍👧x".prefix(cells: 1) == "")
        #expect("abc".prefix(cells: 10) == "abc")
    }
}
