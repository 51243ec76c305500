import DeckFilter
import Foundation
import Testing
@testable import DeckDocument

/// The deck tree, tags, note types and card states of format version 2 through DeckDocument,
/// and the filter fields that select by them.
@Suite struct OrganizeTests {
    /// The sample deck with its notes spread over decks: chat in Languages::French, Café's two
    /// cards in Languages::French::Drinks, the cloze note in Default.
    func organizedDeck(_ playground: Playground) throws -> DeckDocument {
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        let french = try deck.createDeck(named: "Languages::French")
        let drinks = try deck.createDeck(named: "Languages::French::Drinks")
        try #require(try deck.card(id: 1)).deck = french
        try #require(try deck.card(id: 2)).deck = drinks
        try #require(try deck.card(id: 3)).deck = drinks
        try deck.save()
        return deck
    }

    func ids(_ deck: DeckDocument, _ filter: String, perCard: Bool = true) throws -> [Int64] {
        try deck.cardIDs(where: try FilterParser.parse(filter), perCard: perCard)
    }

    @Test(arguments: [
        ("deck = Languages", [1, 2, 3]),
        ("deck = \"languages::french::drinks\"", [2, 3]),
        ("deck != Languages", [4]),
        ("deck = Lang", []),
        ("deck starts with \"Languages::French::\"", [2, 3]),
        ("notetype = \"Basic (and reversed card)\"", [2, 3]),
        ("notetype contains cloze", [4]),
        ("card = 2", [3]),
        ("card = \"Card 2\"", [3]),
        ("card = 1 and notetype != Cloze", [1, 2]),
        ("card = Cloze", [4]),
        ("field.Back = coffee", [2, 3]),
        ("field.back contains \"CAT\"", [1]),
        ("field.Text contains France", [4]),
        ("field.Nope = x", []),
        ("is = new", [1, 2, 3, 4]),
        ("is = suspended", []),
        ("is != suspended", [1, 2, 3, 4]),
        ("is = due", []),
        ("flag = 0", [1, 2, 3, 4]),
        ("note = 2", [2, 3]),
    ])
    func v2FilterFields(filter: String, expected: [Int64]) throws {
        let playground = try Playground()
        let deck = try organizedDeck(playground)
        defer { try? deck.close() }
        #expect(try ids(deck, filter) == expected, "\(filter)")
    }

    @Test func tagHierarchyInFilters() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        try deck.setTags(["lang::fr::nouns"], of: try #require(try deck.note(forCard: 1)))
        try deck.setTags(["language"], of: try #require(try deck.note(forCard: 2)))
        try deck.save()
        #expect(try ids(deck, "tag = lang", perCard: false) == [1])
        #expect(try ids(deck, "tag = \"lang::fr\"", perCard: false) == [1])
        #expect(try ids(deck, "tag != lang", perCard: false) == [2, 3, 4])
    }

    @Test func statesAndFlags() throws {
        let playground = try Playground()
        let deck = try organizedDeck(playground)
        defer { try? deck.close() }
        let cards = try deck.cards(ids: [2, 3])
        #expect(try deck.setSuspended(true, cards: cards) == BulkChange(matched: 2, changed: 2))
        #expect(try deck.setFlag(4, cards: try deck.cards(ids: [3, 1])) == BulkChange(matched: 2, changed: 2))
        try deck.save()
        #expect(try ids(deck, "is = suspended") == [2, 3])
        #expect(try ids(deck, "flag = 4") == [1, 3])
        #expect(try ids(deck, "is = suspended and flag = 4") == [3])
        #expect(try deck.setSuspended(true, cards: cards) == BulkChange(matched: 2, changed: 0))
        #expect(try deck.setSuspended(false, cards: try deck.cards(ids: [1, 2, 3])) == BulkChange(matched: 3, changed: 2))
        try deck.save()
        #expect(try ids(deck, "is = suspended").isEmpty)
        #expect(try deck.card(id: 2)?.queue == .new)
        #expect(throws: DeckOrganizeError.self) { try deck.setFlag(8, cards: cards) }
        #expect(throws: DeckOrganizeError(.notFound, "no card with id 99")) { try deck.cards(ids: [1, 99]) }
    }

    @Test func unsuspendRestoresTheQueueOfTheType() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        let review = try #require(try deck.card(id: 1)), learning = try #require(try deck.card(id: 2)),
            dayLearning = try #require(try deck.card(id: 3))
        review.type = .review
        review.due = 10
        learning.type = .relearning
        learning.due = 1_900_000_000
        dayLearning.type = .learning
        dayLearning.due = 12
        try deck.setSuspended(true, cards: [review, learning, dayLearning])
        try deck.setSuspended(false, cards: [review, learning, dayLearning])
        #expect([review.queue, learning.queue, dayLearning.queue] == [.review, .learning, .dayLearning])
    }

    @Test func deckTreeCountsAndRenames() throws {
        let playground = try Playground()
        let deck = try organizedDeck(playground)
        defer { try? deck.close() }
        try deck.setSuspended(true, cards: try deck.cards(ids: [3]))
        try deck.save()
        let tree = try deck.deckSummaries()
        #expect(tree.map(\.name) == ["Default", "Languages", "Languages::French", "Languages::French::Drinks"])
        let languages = try #require(tree.first { $0.name == "Languages" })
        #expect(languages.own.cards == 0)
        #expect(languages.total.cards == 3)
        #expect(languages.total.suspended == 1)
        #expect(languages.total.new == 2)
        #expect(tree.last?.depth == 2)

        #expect(throws: DeckOrganizeError.self) { try deck.createDeck(named: "languages") }
        #expect(throws: DeckOrganizeError.self) { try deck.createDeck(named: "A::::B") }
        #expect(throws: DeckOrganizeError.self) { try deck.renameDeck("Languages", to: "Languages::Old") }
        #expect(throws: DeckOrganizeError.self) { try deck.renameDeck("Nope", to: "X") }
        #expect(throws: DeckOrganizeError.self) { try deck.renameDeck("Languages::French", to: "Default") }
        #expect(try deck.renameDeck("languages::french", to: "Study::Français") == 2)
        try deck.setDeckDescription("Boissons", ofDeck: "study::français::drinks")
        try deck.save()
        let renamed = try deck.deckSummaries()
        #expect(renamed.map(\.name) == ["Default", "Languages", "Study", "Study::Français", "Study::Français::Drinks"])
        #expect(renamed.last?.deckDescription == "Boissons")
        #expect(try ids(deck, "deck = Study") == [1, 2, 3])
        #expect(try ids(deck, "deck = Languages").isEmpty)
    }

    @Test func tagsRenameMergeAndRemove() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        try deck.setTags(["animals", "lang::fr"], of: try #require(try deck.note(forCard: 1)))
        try deck.setTags(["drinks", "lang"], of: try #require(try deck.note(forCard: 2)))
        try deck.save()
        #expect(try deck.tagSummaries().map { "\($0.name) \($0.notes)" } == ["animals 1", "drinks 1", "geo 1", "lang 1", "lang::fr 1", "nouns 0"])
        #expect(try deck.renameTag("LANG", to: "language") == 2)
        try deck.save()
        #expect(try deck.tagSummaries().map(\.name) == ["animals", "drinks", "geo", "language", "language::fr", "nouns"])
        #expect(Set(try deck.search("language", limit: nil).map(\.id)) == [1, 2], "the search index follows a renamed tag")
        // Renaming onto an existing tag merges them.
        #expect(try deck.renameTag("drinks", to: "animals") == 1)
        try deck.save()
        #expect(try deck.tagSummaries().map { "\($0.name) \($0.notes)" } == ["animals 2", "geo 1", "language 1", "language::fr 1", "nouns 0"])
        #expect(throws: DeckOrganizeError.self) { try deck.renameTag("nope", to: "x") }
        #expect(throws: DeckOrganizeError.self) { try deck.renameTag("geo", to: "two words") }
        #expect(throws: DeckOrganizeError.self) { try deck.removeTags(["geo", "nope"]) }
        #expect(try deck.removeTags(["language"]) == 2, "language and language::fr")
        try deck.save()
        #expect(try deck.tagSummaries().map(\.name) == ["animals", "geo", "nouns"])
        #expect(try deck.note(forCard: 1)?.tags.map(\.name) == ["animals"])
        #expect(try deck.search("language", limit: nil).isEmpty)
    }

    @Test func noteTypeSummaries() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck(), mode: .readOnly)
        defer { try? deck.close() }
        let types = try deck.noteTypeSummaries()
        #expect(types.map(\.name) == ["Basic", "Basic (and reversed card)", "Cloze"])
        #expect(types.map(\.notes) == [1, 1, 1])
        #expect(types.map(\.cards) == [1, 2, 1])
        #expect(types[1].templates.map(\.name) == ["Card 1", "Card 2"])
        #expect(types[2].kind == "cloze")
        #expect(types[2].fields == ["Text", "Back Extra"])
    }

    @Test func cardRowsWithDetails() throws {
        let playground = try Playground()
        let deck = try organizedDeck(playground)
        defer { try? deck.close() }
        var rows: [CardRow] = []
        try deck.forEachCardRow(where: try FilterParser.parse("note = 2"), perCard: true, details: true) { rows.append($0); return true }
        #expect(rows.map(\.id) == [2, 3])
        #expect(rows.map { $0.details?.template } == ["Card 1", "Card 2"])
        #expect(rows.map { $0.details?.deck } == ["Languages::French::Drinks", "Languages::French::Drinks"])
        #expect(rows.map { $0.details?.state } == ["new", "new"])
        #expect(rows.first?.details?.noteType == "Basic (and reversed card)")
        var sorted: [Int64] = []
        try deck.forEachCardRow(where: nil, sortedBy: [("deck", true)], perCard: true) { sorted.append($0.id); return true }
        #expect(sorted == [2, 3, 1, 4])
    }
}
