import Testing
@testable import ArgumentParsing

@Suite struct SuggestionTests {
    @Test(arguments: [
        ("", "abc", 3), ("abc", "abc", 0), ("abc", "abd", 1), ("abc", "acb", 1), ("export", "exprot", 1),
        ("format", "formt", 1), ("kitten", "sitting", 3), ("ca", "abc", 3),
    ])
    func editDistance(_ a: String, _ b: String, _ expected: Int) {
        #expect(Suggestions.editDistance(Array(a), Array(b)) == expected)
        #expect(Suggestions.editDistance(Array(b), Array(a)) == expected)
    }

    @Test func closestCandidate() {
        let commands = ["create", "info", "add", "list", "search", "export", "import", "convert"]
        #expect(Suggestions.closest(to: "exprot", among: commands) == "export")
        #expect(Suggestions.closest(to: "lsit", among: commands) == "list")
        #expect(Suggestions.closest(to: "conv", among: commands) == "convert", "a unique prefix")
        #expect(Suggestions.closest(to: "zzzzzz", among: commands) == nil)
        #expect(Suggestions.closest(to: "xdd", among: commands) == "add")
        #expect(Suggestions.closest(to: "xyz", among: commands) == nil)
        #expect(Suggestions.closest(to: "--JSON", among: ["--json", "--quiet"]) == "--json")
    }
}
