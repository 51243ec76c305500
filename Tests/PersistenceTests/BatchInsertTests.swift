import Foundation
import Testing
@testable import Persistence
import SQLite
import PersistenceTestSupport

@Suite struct BatchInsertTests {
    /// Every row of `tables`, ordered by key, as stored.
    static func rows(_ container: ModelContainer, _ tables: [String]) throws -> [String: [[SQLValueDescription]]] {
        try container.withDatabase(for: Card.self) { db in
            var result: [String: [[SQLValueDescription]]] = [:]
            for table in tables {
                result[table] = try db.rows("SELECT * FROM \"\(table)\" ORDER BY 1").map { $0.map { SQLValueDescription(text: "\($0)") } }
            }
            return result
        }
    }

    /// The same cards, built twice with fixed dates so two stores can be compared; more than
    /// one group of rows (64), with reviews on some.
    static func cards() -> [Card] {
        (0..<150).map { index in
            let card = Card(front: "front \(index)", back: "back \(index)", creationDate: Date(timeIntervalSince1970: Double(index) * 1000))
            card.kind = index % 2 == 0 ? .basic : .cloze
            card.score = index % 4 == 3 ? nil : Double(index) / 2
            if index % 5 != 1 {
                card.reviews = (0...index % 4).map { ease in
                    let review = Review(ease: ease + 1)
                    review.date = Date(timeIntervalSince1970: Double(index * 10 + ease))
                    return review
                }
            }
            return card
        }
    }

    static func everything() -> Everything {
        let model = Everything()
        model.i8 = -8; model.i16 = 16; model.i32 = -32; model.i64 = 1 << 40; model.u8 = 200; model.u64 = 1 << 63; model.int = 7
        model.double = 0.25; model.float = 1.5; model.bool = true; model.string = "été"; model.date = Date(timeIntervalSince1970: 12)
        model.data = Data([0, 1, 2]); model.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()
        model.url = URL(string: "https://example.com/a"); model.decimal = Decimal(string: "3.14") ?? 0; model.mood = .high
        model.point = Everything.Point(x: 1, y: 2); model.optionalString = "x"
        return model
    }

    @Test(arguments: StoreKind.allCases)
    func writesTheRowsASaveWrites(kind: StoreKind) throws {
        let playground = try Playground()
        let types: [any PersistentModel.Type] = [Card.self, Deck.self, Tag.self, Review.self, Everything.self]
        let saved = try kind.container(types, in: playground, name: "saved.sqlite")
        let context = ModelContext(saved)
        for card in Self.cards() { context.insert(card) }
        context.insert(Self.everything())
        try context.save()

        let batched = try kind.container(types, in: playground, name: "batched.sqlite")
        let keys = try ModelContext(batched).batchInsert { batch in
            var keys = try Self.cards().map { try batch.insert($0).primaryKey }
            keys.append(try batch.insertReturningKey(Self.everything()))
            return (keys, batch.count)
        }
        let reviews = (0..<150).filter { $0 % 5 != 1 }.map { $0 % 4 + 1 }.reduce(0, +)
        #expect(keys.0 == Array(1...150) + [1])
        #expect(keys.1 == 150 + reviews + 1)
        let tables = ["Card", "Review", "Everything"]
        let expected = try Self.rows(saved, tables)
        #expect(expected["Review"]?.count == reviews)
        let actual = try Self.rows(batched, tables)
        #expect(actual == expected, "\(actual) vs \(expected)")
    }

    @Test(arguments: StoreKind.allCases)
    func setsTheDiscriminatorOfSubentities(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Media.self, Book.self, Film.self], in: playground)
        let context = ModelContext(container)
        try context.batchInsert { batch in
            try batch.insert(Media(title: "Pamphlet", year: 1900))
            try batch.insert(Book(title: "Dune", year: 1965, pages: 412))
            try batch.insert(Film(title: "Alien", year: 1979, minutes: 117))
        }
        let stored = try container.withDatabase(for: Media.self) { db in
            try db.rows("SELECT \"pk\", \"entity\", \"title\", \"pages\", \"minutes\" FROM \"Media\" ORDER BY \"pk\"")
        }
        #expect(stored.map { "\($0)" } == [
            "\([SQLValue.integer(1), .text("Media"), .text("Pamphlet"), .null, .null])",
            "\([SQLValue.integer(2), .text("Book"), .text("Dune"), .integer(412), .null])",
            "\([SQLValue.integer(3), .text("Film"), .text("Alien"), .null, .integer(117)])",
        ])
        let films = try ModelContext(container).fetch(FetchDescriptor<Film>())
        #expect(films.map(\.title) == ["Alien"])
        #expect(try ModelContext(container).fetch(FetchDescriptor<Media>()).compactMap { $0 as? Book }.map(\.pages) == [412])
    }

    @Test func keysFollowTheLargestAndUniqueValuesUpsert() throws {
        let playground = try Playground()
        let container = try StoreKind.file.container([Card.self, Deck.self, Tag.self, Review.self], in: playground)
        let context = ModelContext(container)
        context.insert(Tag(name: "old"))
        context.insert(Tag(name: "older"))
        try context.save()
        let keys = try ModelContext(container).batchInsert { batch in
            [try batch.insertReturningKey(Tag(name: "new")), try batch.insertReturningKey(Tag(name: "old")),
             try batch.insertReturningKey(Tag(name: "new"))]
        }
        #expect(keys == [3, 1, 3])
        #expect(try ModelContext(container).fetch(FetchDescriptor<Tag>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["new", "old", "older"])
    }

    @Test func modelsAreNeitherRegisteredNorKept() throws {
        let playground = try Playground()
        let container = try StoreKind.memory.container([Card.self, Deck.self, Tag.self, Review.self], in: playground)
        let context = ModelContext(container)
        context.isUndoEnabled = true
        weak var released: Card?
        let id = try context.batchInsert { batch in
            let card = Card(front: "a", back: "b")
            card.reviews = [Review(ease: 3)]
            released = card
            return try batch.insert(card)
        }
        #expect(released == nil)
        #expect(!id.isTemporary && id.entityName == "Card" && id.primaryKey == 1)
        #expect(!context.hasChanges && context.insertedModelsArray.isEmpty && !context.canUndo)
        let reader = ModelContext(container)
        let fetched = try #require(try reader.fetch(FetchDescriptor<Card>()).first)
        #expect(fetched.front == "a" && fetched.reviews.map(\.ease) == [3])
    }

    @Test func aFailureLeavesNothing() throws {
        struct Stop: Error {}
        let playground = try Playground()
        let container = try StoreKind.file.container([Card.self, Deck.self, Tag.self, Review.self], in: playground)
        #expect(throws: Stop.self) {
            try ModelContext(container).batchInsert { batch in
                for index in 0..<3 { try batch.insert(Card(front: "\(index)", back: "")) }
                throw Stop()
            }
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Card>()) == 0)
        // The connection is usable again.
        let context = ModelContext(container)
        context.insert(Card(front: "after", back: ""))
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Card>()) == 1)
    }

    @Test func aFailedWriteEndsTheBatch() throws {
        let playground = try Playground()
        let container = try StoreKind.file.container([Card.self, Deck.self, Tag.self, Review.self], in: playground)
        try container.withDatabase(for: Card.self) { db in
            try db.execute("CREATE TRIGGER refuse BEFORE INSERT ON Card WHEN new.front = 'bad' BEGIN SELECT RAISE(FAIL, 'refused'); END")
        }
        var errors = 0
        #expect(throws: PersistenceError.self) {
            try ModelContext(container).batchInsert { batch in
                for front in ["a", "bad", "b", "c"] {
                    try batch.insert(Card(front: front, back: ""))
                }
                do { try batch.flush() } catch { errors += 1 }
                // Swallowing the error doesn't help: the batch stays failed.
                do { try batch.insert(Card(front: "d", back: "")) } catch { errors += 1 }
            }
        }
        #expect(errors == 2)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Card>()) == 0)
    }

    @Test func refusesModelsItCannotWrite() throws {
        let playground = try Playground()
        let container = try StoreKind.memory.container([Card.self, Deck.self, Tag.self, Review.self], in: playground)
        let context = ModelContext(container)
        let tracked = Card(front: "tracked", back: "")
        context.insert(tracked)
        #expect(throws: PersistenceError.self) { try context.batchInsert { batch in try batch.insert(tracked) } }
        let card = Card(front: "new", back: "")
        card.tags = [Tag(name: "unsaved")]
        #expect(throws: PersistenceError.self) { try ModelContext(container).batchInsert { batch in try batch.insert(card) } }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Card>()) == 0)
    }

    @Test func joinsAnOpenTransactionAsASavepoint() throws {
        struct Stop: Error {}
        let playground = try Playground()
        let container = try StoreKind.file.container([Card.self, Deck.self, Tag.self, Review.self], in: playground)
        #expect(throws: Stop.self) {
            try container.withDatabase(for: Card.self) { db in
                try db.transaction {
                    try ModelContext(container).batchInsert { batch in try batch.insert(Card(front: "inner", back: "")) }
                    #expect(try db.scalar("SELECT count(*) FROM Card", as: Int.self) == 1)
                    throw Stop()
                }
            }
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Card>()) == 0)
    }

    @Test func recordsOneHistoryTransaction() throws {
        let playground = try Playground()
        let container = try StoreKind.file.container([Card.self, Deck.self, Tag.self, Review.self], in: playground)
        container.isHistoryEnabled = true
        let start = try container.currentHistoryToken()
        let context = ModelContext(container)
        context.author = "importer"
        try context.batchInsert { batch in
            let card = Card(front: "a", back: "")
            card.reviews = [Review(ease: 1)]
            try batch.insert(card)
            try batch.insert(Card(front: "b", back: ""))
        }
        let history = try container.fetchHistory(after: start)
        #expect(history.count == 1)
        #expect(history.first?.author == "importer")
        #expect(history.first.map { Set($0.inserted.map { "\($0.entityName) \($0.primaryKey)" }) } == ["Card 1", "Review 1", "Card 2"])
    }

    @Test func refusesReadOnlyStores() throws {
        let playground = try Playground()
        let url = playground.file("store.sqlite")
        try ModelContainer(for: Schema([Card.self, Deck.self, Tag.self, Review.self]), configurations: [ModelConfiguration(url: url)]).close()
        let container = try ModelContainer(for: Schema([Card.self, Deck.self, Tag.self, Review.self]),
                                           configurations: [ModelConfiguration(url: url, allowsSave: false)])
        #expect(throws: PersistenceError.self) { try ModelContext(container).batchInsert { batch in try batch.insert(Card(front: "x", back: "")) } }
    }
}

/// A stored value as text, so rows of two stores compare with `==`.
struct SQLValueDescription: Equatable, CustomStringConvertible {
    let text: String
    var description: String { text }
}
