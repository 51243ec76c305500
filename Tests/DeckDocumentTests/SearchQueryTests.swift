import Foundation
import Testing
@testable import DeckDocument

/// The search language: words, "phrases", or, -exclusions and groups, parsed to the FTS5 query
/// of the same meaning; scripts written without spaces matching inside words.
@Suite struct SearchQueryTests {
    private func fts(_ text: String) throws -> String? {
        try SearchQuery.parse(text)?.ftsQuery
    }

    @Test(arguments: [
        ("cafe", #""cafe"*"#),
        ("chat noir", #"("chat"* AND "noir"*)"#),
        ("chat and noir", #"("chat"* AND "noir"*)"#),
        (#""big tree""#, #""big tree""#),
        (#""tree""#, #""tree""#),
        ("chat or chien", #"("chat"* OR "chien"*)"#),
        ("chat OR chien noir", #"("chat"* OR ("chien"* AND "noir"*))"#),
        ("(chat or chien) noir", #"(("chat"* OR "chien"*) AND "noir"*)"#),
        ("verb -irregular", #"(("verb"*) NOT ("irregular"*))"#),
        ("a -b -\"c d\"", #"(("a"*) NOT ("b"* OR "c d"))"#),
        ("a -(b or c)", #"(("a"*) NOT (("b"* OR "c"*)))"#),
        ("a --b", #"("a"* AND "b"*)"#),
        (#"say "hi"#, #"("say"* AND "hi")"#),
        ("x-y", #""x-y"*"#),
        (#"a"b"#, #"("a"* AND "b")"#),
        ("we\"ird", #"("we"* AND "ird")"#),
        ("a ) b", #"("a"* AND "b"*)"#),
        ("(a b", #"("a"* AND "b"*)"#),
        ("or a or", #""a"*"#),
        (#""or" and "and""#, #"("or" AND "and")"#),
        (#"it's "O""Neil""#, #"("it's"* AND "O" AND "Neil")"#),
        ("NEAR(a b)", #"("NEAR(a"* AND "b"*)"#),
        ("(-a) b", #"(("b"*) NOT ("a"*))"#),
        ("col:umn ^x", #"("col:umn"* AND "^x"*)"#),
    ])
    func parsesToTheFTS5QueryOfTheSameMeaning(text: String, expected: String) throws {
        #expect(try fts(text) == expected)
    }

    @Test(arguments: ["", "   ", "'''", "( )", "or", "-", "\"\"", "and or"])
    func nothingToLookFor(text: String) throws {
        #expect(try SearchQuery.parse(text) == nil)
    }

    @Test(arguments: ["-dog", "cat or -dog", "-(a b)", "(-a) or b", "-a -b"])
    func anExclusionNeedsAWordBesideIt(text: String) {
        #expect(throws: SearchQueryError.self) { try SearchQuery.parse(text) }
    }

    @Test func wordsOfScriptsWithoutSpacesMatchInsideWords() throws {
        let query = try #require(try SearchQuery.parse("本語 tree テキスト"))
        #expect(query.terms.map(\.matchesInsideWords) == [true, false, true])
        #expect(query.matchesInsideWords)
        #expect(try SearchQuery.parse("café tree")?.matchesInsideWords == false)
        for text in ["한국어", "ภาษาไทย", "中文", "ｶﾀｶﾅ"] {
            #expect(try SearchQuery.parse(text)?.matchesInsideWords == true, "\(text)")
        }
    }

    @Test func deepGroupsDoNotOverflow() throws {
        let deep = String(repeating: "(", count: 10_000) + "a" + String(repeating: ")", count: 10_000)
        #expect(try SearchQuery.parse(deep) != nil)
    }
}
