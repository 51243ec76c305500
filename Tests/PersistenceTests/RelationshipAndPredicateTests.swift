import Foundation
import Testing
import SQLite
@testable import Persistence
import PersistenceTestSupport

@Suite struct RelationshipTests {
    @Test(arguments: StoreKind.allCases)
    func oneToManyKeepsInverseAndLoadsLazily(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Deck.self, Card.self], in: playground)
        let context = ModelContext(container)
        let deck = Deck(title: "French")
        context.insert(deck)
        let a = Card(front: "a", back: ""), b = Card(front: "b", back: "")
        a.deck = deck
        deck.cards.append(b)
        #expect(b.deck === deck, "appending to the to-many side sets the inverse")
        #expect(Set(deck.cards.map(\.front)) == ["a", "b"])
        try context.save()
        #expect(a.modelContext === context, "related models were inserted with their owner")
        let other = ModelContext(container)
        let loaded = try #require(try other.fetch(FetchDescriptor<Deck>()).first)
        #expect(loaded.cards.map(\.front).sorted() == ["a", "b"])
        #expect(loaded.cards.first?.deck === loaded)
        // Moving a card to another deck removes it from the first.
        let second = Deck(title: "Spanish")
        other.insert(second)
        loaded.cards.first { $0.front == "a" }?.deck = second
        #expect(loaded.cards.map(\.front) == ["b"] && second.cards.map(\.front) == ["a"])
        try other.save()
        let third = ModelContext(container)
        let spanish = try third.fetch(FetchDescriptor<Deck>(predicate: #Predicate { $0.title == "Spanish" }))
        #expect(spanish.first?.cards.map(\.front) == ["a"])
    }

    @Test(arguments: StoreKind.allCases)
    func manyToManyUsesAJoinTable(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Card.self, Tag.self], in: playground)
        let context = ModelContext(container)
        let verbs = Tag(name: "verbs"), irregular = Tag(name: "irregular")
        let etre = Card(front: "être", back: "to be"), parler = Card(front: "parler", back: "to speak")
        context.insert(etre); context.insert(parler)
        etre.tags = [verbs, irregular]
        parler.tags = [verbs]
        #expect(verbs.cards.count == 2 && irregular.cards.map(\.front) == ["être"])
        try context.save()
        let other = ModelContext(container)
        let tags = try other.fetch(FetchDescriptor<Tag>(sortBy: [SortDescriptor(\.name)]))
        #expect(tags.map { $0.cards.count } == [1, 2])
        // Removing a link is written too.
        let card = try #require(try other.fetch(FetchDescriptor<Card>(predicate: #Predicate { $0.front == "être" })).first)
        card.tags.removeAll { $0.name == "irregular" }
        try other.save()
        let names = ["irregular"]
        let stillTagged = try ModelContext(container).fetchCount(FetchDescriptor<Card>(predicate: #Predicate { card in
            card.tags.filter { names.contains($0.name) }.count > 0
        }))
        #expect(stillTagged == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func deleteRules(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Deck.self, Card.self, Review.self, Tag.self], in: playground)
        let context = ModelContext(container)
        let deck = Deck(title: "d")
        context.insert(deck)
        let card = Card(front: "c", back: "")
        card.deck = deck
        card.reviews = [Review(ease: 3), Review(ease: 4)]
        card.tags = [Tag(name: "t")]
        try context.save()
        // Card.reviews cascades; Card.tags nullifies (the tag stays); Deck.cards cascades.
        let fresh = ModelContext(container)
        let loadedDeck = try #require(try fresh.fetch(FetchDescriptor<Deck>()).first)
        fresh.delete(loadedDeck)
        try fresh.save()
        let check = ModelContext(container)
        #expect(try check.fetchCount(FetchDescriptor<Card>()) == 0)
        #expect(try check.fetchCount(FetchDescriptor<Review>()) == 0)
        #expect(try check.fetchCount(FetchDescriptor<Tag>()) == 1)
        let (violations, links) = try container.withDatabase(for: Card.self) { db throws in
            (try db.foreignKeyViolations(), try db.scalar("SELECT count(*) FROM Card_tags", as: Int.self))
        }
        #expect(violations == 0 && links == 0)
    }

    @Test func uniqueAttributeInsertIsAnUpsert() throws {
        let container = try ModelContainer(for: Tag.self, isStoredInMemoryOnly: true)
        let context = ModelContext(container)
        context.insert(Tag(name: "verbs"))
        try context.save()
        let again = Tag(name: "verbs")
        context.insert(again)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Tag>()) == 1)
        #expect(try context.fetch(FetchDescriptor<Tag>()).first === again)
    }

    @Test func prefetchLoadsRelationshipsInOneQuery() throws {
        let container = try ModelContainer(for: Deck.self, Card.self, isStoredInMemoryOnly: true)
        let context = ModelContext(container)
        for i in 0..<3 {
            let deck = Deck(title: "d\(i)")
            context.insert(deck)
            deck.cards = [Card(front: "x\(i)", back: ""), Card(front: "y\(i)", back: "")]
        }
        try context.save()
        let fresh = ModelContext(container)
        var descriptor = FetchDescriptor<Deck>()
        descriptor.relationshipKeyPathsForPrefetching = [\.cards]
        let decks = try fresh.fetch(descriptor)
        #expect(decks.allSatisfy { if case .toMany? = $0.persistentBackingData.relationships[\Deck.cards] { true } else { false } })
        #expect(decks.map { $0.cards.count } == [2, 2, 2])
    }
}

@Suite struct PredicateTests {
    static func populated() throws -> ModelContext {
        let context = ModelContext(try ModelContainer(for: Card.self, Tag.self, isStoredInMemoryOnly: true))
        let rows: [(String, String, Card.Kind, Double?)] = [
            ("chat", "cat", .basic, 1.5), ("chien", "dog", .basic, nil), ("{{c1::Paris}} is the capital", "", .cloze, 3),
            ("Chat noir", "black cat", .basic, 2.5), ("oiseau", "bird", .cloze, nil),
        ]
        for (i, row) in rows.enumerated() {
            let card = Card(front: row.0, back: row.1, creationDate: Date(timeIntervalSince1970: Double(i) * 100))
            card.kind = row.2
            card.score = row.3
            context.insert(card)
        }
        try context.save()
        return context
    }

    func fronts(_ context: ModelContext, _ predicate: Predicate<Card>) throws -> [String] {
        var descriptor = FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.front)])
        descriptor.includePendingChanges = false
        return try context.fetch(descriptor).map(\.front)
    }

    @Test func comparisonsLogicAndOptionals() throws {
        let context = try Self.populated()
        let cloze = Card.Kind.cloze
        #expect(try fronts(context, #Predicate { $0.kind == cloze }) == ["oiseau", "{{c1::Paris}} is the capital"])
        #expect(try fronts(context, #Predicate { $0.kind != cloze && $0.score == nil }) == ["chien"])
        #expect(try fronts(context, #Predicate { ($0.score ?? 0) > 2 }) == ["Chat noir", "{{c1::Paris}} is the capital"])
        #expect(try fronts(context, #Predicate { !($0.front.contains("chat") || $0.front.contains("Chat")) && $0.back != "" }) == ["chien", "oiseau"])
        let cutoff = Date(timeIntervalSince1970: 250)
        #expect(try fronts(context, #Predicate { $0.creationDate > cutoff }) == ["Chat noir", "oiseau"])
        #expect(try fronts(context, #Predicate { $0.score != nil && $0.score! * 2 >= 5 }) == ["Chat noir", "{{c1::Paris}} is the capital"])
    }

    @Test func stringsInAndSubqueries() throws {
        let context = try Self.populated()
        #expect(try fronts(context, #Predicate { $0.front.starts(with: "ch") }) == ["chat", "chien"], "case-sensitive like Swift")
        let wanted = ["dog", "bird", "nothing"]
        #expect(try fronts(context, #Predicate { wanted.contains($0.back) }) == ["chien", "oiseau"])
        let tagged = try #require(try context.fetch(FetchDescriptor<Card>(predicate: #Predicate { $0.front == "chat" })).first)
        tagged.tags = [Tag(name: "animals")]
        try context.save()
        let names = ["animals"]
        #expect(try fronts(context, #Predicate { card in card.tags.filter { names.contains($0.name) }.count > 0 }) == ["chat"])
        #expect(try fronts(context, #Predicate { card in card.tags.contains { $0.name == "animals" } }) == ["chat"])
        #expect(try context.fetchCount(FetchDescriptor(predicate: #Predicate<Card> { $0.tags.isEmpty })) == 4)
    }

    @Test func predicateResultsMatchInMemoryEvaluation() throws {
        // The SQL translation agrees with Foundation's own evaluation of the same predicate.
        let context = try Self.populated()
        let all = try context.fetch(FetchDescriptor<Card>())
        let predicates: [Predicate<Card>] = [
            #Predicate { $0.front.contains("at") },
            #Predicate { ($0.score ?? -1) < 2 || $0.back.isEmpty },
            #Predicate { $0.front.count > 5 },
            #Predicate { $0.score == nil ? true : false },
        ]
        for predicate in predicates {
            let expected = try all.filter { try predicate.evaluate($0) }.map(\.front).sorted()
            #expect(try fronts(context, predicate).sorted() == expected)
        }
    }

    @Test func untranslatablePredicateThrowsNamingIt() throws {
        let context = try Self.populated()
        let error = #expect(throws: PersistenceError.self) {
            _ = try context.fetch(FetchDescriptor(predicate: #Predicate<Card> { $0.creationDate.timeIntervalSince1970 > 0 }))
        }
        #expect(error.map { "\($0)".contains("unsupported") } == true)
    }
}

@Suite struct SchemaTests {
    @Test func ddlIsDeterministicAndDocumented() {
        let first = Schema([Card.self, Tag.self, Deck.self, Review.self]).makeDDL()
        let second = Schema([Review.self, Deck.self, Tag.self, Card.self]).makeDDL()
        #expect(first == second)
        #expect(first.contains { $0.contains("CREATE TABLE IF NOT EXISTS \"Card_tags\"") })
        #expect(first.contains { $0.contains("\"deck\" INTEGER REFERENCES \"Deck\"(\"pk\") ON DELETE CASCADE") })
        #expect(first.contains { $0.contains("UNIQUE(\"name\")") })
        #expect(first.contains { $0.contains("CREATE INDEX IF NOT EXISTS \"Card_creationDate\"") })
    }

    @Test func lightweightColumnAdditionKeepsRows() throws {
        let playground = try Playground()
        let url = playground.file("evolve.sqlite")
        do {
            let db = try Database(path: url.path)
            try db.execute("CREATE TABLE \"Trip\" (\"pk\" INTEGER PRIMARY KEY); INSERT INTO \"Trip\" VALUES (7)")
        }
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
        let trip = try #require(try ModelContext(container).fetch(FetchDescriptor<Trip>()).first)
        #expect(trip.name == "" && trip.persistentModelID.primaryKey == 7)
    }

    @Test func newerStoreIsRefusedNamingBothVersions() throws {
        let playground = try Playground()
        let url = playground.file("newer.sqlite")
        do {
            let db = try Database(path: url.path)
            try db.execute("CREATE TABLE persistence_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO persistence_metadata VALUES ('schemaVersion', '9.0.0')")
        }
        let error = #expect(throws: PersistenceError.self) {
            _ = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
        }
        #expect(error.map { "\($0)".contains("9.0.0") && "\($0)".contains("1.0.0") } == true)
    }
}

@Suite struct LargeRelationshipTests {
    /// Linking many cards to one tag, one at a time from the card side, keeps the tag's
    /// inverse list complete and in order, and the links are all written.
    @Test func manyCardsLinkedToOneTag() throws {
        let container = try ModelContainer(for: Card.self, Tag.self, isStoredInMemoryOnly: true)
        let context = ModelContext(container)
        let tag = Tag(name: "common")
        context.insert(tag)
        var cards: [Card] = []
        for i in 0..<5_000 {
            let card = Card(front: "f\(i)", back: "")
            context.insert(card)
            card.tags.append(tag)
            cards.append(card)
        }
        #expect(tag.cards.count == 5_000)
        #expect(tag.cards.first === cards.first && tag.cards.last === cards.last)
        try context.save()
        let names = ["common"]
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Card>(predicate: #Predicate { card in
            card.tags.filter { names.contains($0.name) }.count > 0
        })) == 5_000)
        cards[10].tags = []
        #expect(tag.cards.count == 4_999 && !tag.cards.contains { $0 === cards[10] })
    }
}
