import DeckFilter
import Foundation
import Testing
@testable import DeckDocument

@Suite struct SearchAndFilterTests {
    @Test(arguments: [("cafe", ["Café"]), ("CAFÉ", ["Café"]), ("COFFEE", ["Café"]), ("animals", ["chat"]),
                      ("capital france", ["Paris is the capital of {{c1::France}}"]), ("nothing", []), ("\"", [])])
    func searchIgnoresCaseAndDiacritics(query: String, expected: [String]) throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck(), mode: .readOnly)
        defer { try? deck.close() }
        #expect(try deck.search(query, limit: nil).map(\.front) == expected)
    }

    /// The rank (FORMAT.md): more instances of a word first; the length of a note does not count
    /// (bm25 would put the short note before the long one); equal scores by key; with several
    /// words the rarer one weighs more; a read-only search ranks as a writable one.
    @Test func searchRanksByFrequencyNotLength() throws {
        let playground = try Playground()
        let url = playground.file("Rank.sampledeck")
        let deck = try DeckDocument.create(at: url, title: "Rank")
        let long = "apple " + Array(repeating: "filler words here", count: 30).joined(separator: " ")
        _ = try deck.addCard(kind: .basic, front: long, back: "one", tags: [])                       // 1: apple once, long
        _ = try deck.addCard(kind: .basic, front: "apple", back: "two", tags: [])                    // 2: apple once, short
        _ = try deck.addCard(kind: .basic, front: "apple apple", back: "three", tags: ["apple"])     // 3: apple three times
        _ = try deck.addCard(kind: .basic, front: "apple pear pear", back: "four", tags: [])         // 4: pear twice
        _ = try deck.addCard(kind: .basic, front: "apple apple apple apple pear", back: "five", tags: []) // 5: apple 4, pear once
        try deck.save()
        #expect(try deck.search("apple", limit: nil).map(\.back) == ["five", "three", "one", "two", "four"])
        #expect(try deck.search("apple", limit: 2).map(\.back) == ["five", "three"])
        // pear is in 2 of 5 notes, apple in all: pear's IDF decides (bm25's floor for apple).
        #expect(try deck.search("pear apple", limit: nil).map(\.back) == ["four", "five"])
        try deck.close()
        let reader = try DeckDocument.open(at: url, mode: .readOnly)
        defer { try? reader.close() }
        #expect(try reader.search("apple", limit: nil).map(\.back) == ["five", "three", "one", "two", "four"])
    }

    @Test func searchFollowsEditsAndTagChanges() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        let note = try #require(try deck.note(forCard: 1))
        try deck.setFields(["chien", note.back], of: note)
        try deck.setTags(["dogs"], of: note)
        try deck.save()
        #expect(try deck.search("chat", limit: nil).isEmpty)
        #expect(try deck.search("chien", limit: nil).map(\.id) == [1])
        #expect(try deck.search("dogs", limit: nil).map(\.id) == [1])
        #expect(try deck.search("animals", limit: nil).isEmpty)
    }

    /// The search language on the sample deck: phrases, or, exclusions, groups.
    @Test(arguments: [("chat or paris", [1, 4]), ("\"capital of\"", [4]), ("\"of capital\"", []), ("c -coffee", [1, 4]),
                      ("(chat or cafe) -animals", [2]), ("\"caf\"", []), ("caf", [2]), ("cat or coffee or capital", [1, 2, 4])])
    func searchLanguage(query: String, expected: [Int64]) throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck(), mode: .readOnly)
        defer { try? deck.close() }
        #expect(try deck.search(query, limit: nil).map(\.id).sorted() == expected)
    }

    /// A search narrowed by a filter and ordered by sort keys instead of rank.
    @Test func searchWithAFilterAndASort() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck(), mode: .readOnly)
        defer { try? deck.close() }
        func found(_ filter: String?, _ sort: [(field: String, descending: Bool)], limit: Int? = nil) throws -> [String] {
            var fronts: [String] = []
            try deck.forEachSearchRow(matching: "chat or cafe or paris", where: try filter.map { try FilterParser.parse($0) }, sortedBy: sort,
                                      limit: limit) { fronts.append($0.front); return true }
            return fronts
        }
        #expect(try found(nil, []).sorted() == ["Café", "Paris is the capital of {{c1::France}}", "chat"])
        #expect(try found(nil, [("front", false)]) == ["Café", "chat", "Paris is the capital of {{c1::France}}"])
        #expect(try found("tag != geo", [("front", true)]) == ["chat", "Café"])
        #expect(try found("tag != geo", [("front", true)], limit: 1) == ["chat"])
        #expect(try found("kind = cloze", []) == ["Paris is the capital of {{c1::France}}"])
        #expect(try found("tag = nothing", [("front", false)]).isEmpty)
        #expect(throws: DeckQueryError.self) { try found("bogus = 1", []) }
    }

    // Rows are notes named by their first card: the sample deck's notes have cards 1, 2 (and 3), 4.
    @Test(arguments: [
        ("front contains \"ch\"", [1]),
        // contains and starts with fold case, diacritics and width on both sides, as search does; = is exact.
        ("front contains \"CAFE\"", [2]),
        ("front starts with \"cafe\"", [2]),
        ("back contains \"ｃｏｆｆ\"", [2]),
        ("front = \"cafe\"", []),
        ("front = \"chat\"", [1]),
        ("back starts with \"co\"", [2]),
        ("text contains \"france\"", [4]),
        ("tag = \"drinks\" or tag = geo", [2, 4]),
        ("tag != animals", [2, 4]),
        ("tag in (nouns, geo)", [1, 4]),
        ("kind = cloze", [4]),
        ("not kind = cloze", [1, 2]),
        ("kind in (basic, reversible)", [1, 2]),
        ("id >= 2", [2, 4]),
        ("reps = 0 and lapses = 0 and interval = 0", [1, 2, 4]),
        ("ease > 2.4", [1, 2, 4]),
        ("created > 2000-01-01", [1, 2, 4]),
        ("created < 2000-01-01", []),
        ("due > 2000-01-01", []),
    ])
    func filterTranslation(filter: String, expected: [Int64]) throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck(), mode: .readOnly)
        defer { try? deck.close() }
        let expression = try FilterParser.parse(filter)
        #expect(try deck.cards(where: expression, sortedBy: [], limit: nil, offset: nil).map(\.id) == expected)
        #expect(try deck.noteCount(where: expression) == expected.count)
    }

    @Test func wholeDayDates() throws {
        let playground = try Playground()
        let deck = try DeckDocument.create(at: playground.file("D.sampledeck"), title: "D")
        defer { try? deck.close() }
        let noon = try #require(FilterDate.parse("2026-03-05T12:00:00Z")).date
        let note = try deck.addCard(kind: .basic, front: "a", back: "b", tags: [])
        note.created = noon
        try deck.save()
        for (text, count) in [("created = 2026-03-05", 1), ("created > 2026-03-05", 0), ("created >= 2026-03-05", 1),
                              ("created < 2026-03-05", 0), ("created <= 2026-03-05", 1), ("created != 2026-03-05", 0),
                              ("created > 2026-03-04", 1), ("created < 2026-03-06", 1)] {
            #expect(try deck.noteCount(where: try FilterParser.parse(text)) == count, "\(text)")
        }
    }

    @Test func sortLimitOffset() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck(), mode: .readOnly)
        defer { try? deck.close() }
        // Text sorts as a reader expects (case ignored): Paris, chat, Café; by bytes: chat, Paris, Café.
        #expect(try deck.cards(where: nil, sortedBy: [(field: "front", descending: true)], limit: nil, offset: nil).map(\.id) == [4, 1, 2])
        var bytes: [Int64] = []
        try deck.forEachCardRow(where: nil, sortedBy: [(field: "front", descending: true)], byteOrder: true) { bytes.append($0.id); return true }
        #expect(bytes == [1, 4, 2])
        #expect(try deck.cards(where: nil, sortedBy: [(field: "id", descending: true)], limit: 1, offset: 1).map(\.id) == [2])
    }

    @Test(arguments: ["colour = red", "kind = flashy", "created > 12", "front > true", "ease contains \"1\""])
    func badFiltersGiveClearErrors(filter: String) throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck(), mode: .readOnly)
        defer { try? deck.close() }
        let expression = try FilterParser.parse(filter)
        #expect(throws: DeckQueryError.self) { try deck.cards(where: expression, sortedBy: [], limit: nil, offset: nil) }
    }

    @Test func unknownFieldErrorListsKnownFields() throws {
        do {
            _ = try DeckDocument.noteQuery(where: try FilterParser.parse("colour = red"), sortedBy: [], limit: nil, offset: nil)
            Issue.record("no error")
        } catch let error as DeckQueryError {
            #expect(error.field == "colour")
            #expect(error.description.contains("unknown field 'colour'"))
            #expect(error.description.contains("front"))
        }
        #expect(throws: DeckQueryError.self) { try DeckDocument.noteQuery(where: nil, sortedBy: [(field: "tag", descending: false)], limit: nil, offset: nil) }
    }
}
