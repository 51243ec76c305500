import Testing
@testable import Interchange

/// Anki splits a tags field on white space (Unicode's): the fast ASCII path and the general
/// one must agree.
@Suite struct TagSplittingTests {
    @Test(arguments: [
        ("verbs irregular", ["verbs", "irregular"]),
        ("  leading\ttabs\nand  doubled   spaces ", ["leading", "tabs", "and", "doubled", "spaces"]),
        ("one", ["one"]),
        ("", []),
        ("   ", []),
        ("français\u{3000}日本語\u{00A0}tag", ["français", "日本語", "tag"]),
        ("ascii then é\u{2003}em", ["ascii", "then", "é", "em"]),
    ])
    func splitsOnWhiteSpace(text: String, expected: [String]) {
        #expect(TextImportSettings.splitTags(Substring(text)) == expected)
        // A slice of a longer line, as the reader hands it over.
        let line = "x,\(text),y"
        let field = line.dropFirst(2).dropLast(2)
        #expect(TextImportSettings.splitTags(field) == expected)
    }
}
