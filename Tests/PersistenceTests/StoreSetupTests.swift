import Foundation
import Testing
import SQLite
@testable import Persistence
import PersistenceTestSupport

/// Opening a store that already holds the schema reads its schema table and writes nothing;
/// any other store is still brought in line (tables, indexes, columns).
@Suite struct StoreSetupTests {
    static let types: [any PersistentModel.Type] = [Card.self, Deck.self, Tag.self, Review.self]

    static func makeStore(_ playground: Playground) throws -> URL {
        let url = playground.file("store.sqlite")
        let container = try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(url: url)])
        let context = ModelContext(container)
        let deck = Deck(title: "French")
        context.insert(deck)
        let card = Card(front: "chat", back: "cat")
        card.deck = deck
        context.insert(card)
        try context.save()
        try container.close()
        return url
    }

    static func schemaTexts(_ url: URL) throws -> [String: String] {
        let db = try Database(path: url.path, mode: .readOnly)
        defer { db.close() }
        var result: [String: String] = [:]
        for row in try db.rows("SELECT name, sql FROM sqlite_schema WHERE sql IS NOT NULL") {
            if case .text(let name) = row[0], case .text(let sql) = row[1] { result[name] = sql }
        }
        return result
    }

    @Test func aStoreItMadeHoldsEveryStatementExactly() throws {
        let playground = try Playground()
        let url = try Self.makeStore(playground)
        let stored = Set(try Self.schemaTexts(url).values)
        let statements = Schema(Self.types).makeDDL()
        #expect(!statements.isEmpty)
        for statement in statements {
            let kept = try #require(StoreSetup.removingIfNotExists(statement), "\(statement)")
            #expect(stored.contains(kept), "\(kept) is not in \(stored.sorted())")
        }
    }

    @Test func aDroppedIndexIsCreatedAgain() throws {
        let playground = try Playground()
        let url = try Self.makeStore(playground)
        let before = try Self.schemaTexts(url)
        let index = try #require(before.keys.first { $0 == "Card_deck" }, "\(before.keys.sorted())")
        do {
            let db = try Database(path: url.path, mode: .readWrite)
            try db.execute("DROP INDEX \(quoteIdentifier(index))")
            db.close()
        }
        #expect(try Self.schemaTexts(url)[index] == nil)
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: url)])
        try container.close()
        #expect(try Self.schemaTexts(url) == before)
    }

    @Test func aMissingColumnIsAddedAgain() throws {
        let playground = try Playground()
        let url = playground.file("store.sqlite")
        // The store of an older model: Card's table without its `score` column.
        do {
            let db = try Database(path: url.path, mode: .create)
            for statement in Schema(Self.types).makeDDL() {
                try db.execute(statement.replacingOccurrences(of: #", "score" REAL"#, with: ""))
            }
            db.close()
        }
        #expect(try Self.schemaTexts(url)["Card"]?.contains(#""score""#) == false)
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: url)])
        try container.close()
        let db = try Database(path: url.path, mode: .readOnly)
        defer { db.close() }
        #expect(try db.columns(of: "Card").contains("score"))
    }

    @Test func removingIfNotExists() {
        #expect(StoreSetup.removingIfNotExists(#"CREATE TABLE IF NOT EXISTS "A" ("pk" INTEGER PRIMARY KEY)"#)
                == #"CREATE TABLE "A" ("pk" INTEGER PRIMARY KEY)"#)
        #expect(StoreSetup.removingIfNotExists(#"CREATE UNIQUE INDEX IF NOT EXISTS "A_b" ON "A"("b")"#)
                == #"CREATE UNIQUE INDEX "A_b" ON "A"("b")"#)
        #expect(StoreSetup.removingIfNotExists(#"CREATE TABLE "A" ("pk")"#) == nil)
        #expect(StoreSetup.range(of: "IF", in: "") == nil)
        #expect(StoreSetup.range(of: "xy", in: "axxy") == 2..<4)
    }
}
