import DeckFilter
import Foundation
import Persistence
import SQLite
import Testing
@testable import DeckDocument

/// The `Card` table's indexes: full ones for what most cards have, partial ones for the sparse
/// `due` and `ankiGUID`, and the upgrade of decks that still have the retired full indexes.
@Suite struct StoreIndexTests {
    static func cardIndexes(_ store: URL) throws -> [String: String] {
        let db = try Database(path: store.path, mode: .readOnly)
        defer { db.close() }
        var result: [String: String] = [:]
        for row in try db.rows("SELECT name, coalesce(sql, '') FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Card'") {
            if case .text(let name)? = row.first, case .text(let sql)? = row.last { result[name] = sql }
        }
        return result
    }

    static func plan(_ store: URL, _ sql: String, _ arguments: [SQLValue]) throws -> String {
        let db = try Database(path: store.path, mode: .readOnly)
        defer { db.close() }
        return try db.rows("EXPLAIN QUERY PLAN " + sql, arguments).compactMap { row in
            if case .text(let detail)? = row.last { detail } else { nil }
        }.joined(separator: "; ")
    }

    @Test func aNewDeckIndexesDueAndGUIDOnlyWhereSet() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let store = url.appendingPathComponent("Deck.sqlite")
        let indexes = try Self.cardIndexes(store)
        #expect(Set(indexes.keys).isSuperset(of: ["Card_created", "Card_entity", "Card_due_set", "Card_ankiGUID_set"]))
        #expect(indexes["Card_kind"] == nil && indexes["Card_due"] == nil && indexes["Card_ankiGUID"] == nil)
        #expect(indexes["Card_due_set"]?.contains("WHERE \"due\" IS NOT NULL") == true)
        // Comparisons imply IS NOT NULL, so the partial indexes serve them.
        #expect(try Self.plan(store, "SELECT pk FROM Card WHERE due <= ?", [.real(0)]).contains("Card_due_set"))
        #expect(try Self.plan(store, "SELECT pk FROM Card WHERE ankiGUID = ?", [.text("x")]).contains("Card_ankiGUID_set"))
        // Sorted by due, as `deck list --where 'due<=…' --sort due` asks.
        let (sql, arguments) = try DeckDocument.cardQuery(where: try FilterParser.parse("due<=2030-01-01"), sortedBy: [("due", false)],
                                                         limit: nil, offset: nil)
        let plan = try Self.plan(store, sql, arguments)
        #expect(plan.contains("Card_due_set"), "\(plan)")
    }

    @Test func aNewDeckHas16KiBPages() throws {
        let playground = try Playground()
        let store = try playground.sampleDeck().appendingPathComponent("Deck.sqlite")
        let db = try Database(path: store.path, mode: .readOnly)
        defer { db.close() }
        #expect(try db.scalar("PRAGMA page_size", as: Int.self) == DeckStore.pageSize)
        #expect(DeckStore.pageSize == 16_384)
    }

    @Test func openingAnOlderDeckForWritingSwapsTheRetiredIndexes() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let store = url.appendingPathComponent("Deck.sqlite")
        // Make it look like a deck written before: full indexes, no partial ones.
        do {
            let db = try Database(path: store.path, mode: .readWrite)
            defer { db.close() }
            try db.execute("""
                DROP INDEX "Card_due_set"; DROP INDEX "Card_ankiGUID_set";
                CREATE INDEX "Card_kind" ON "Card"("kind"); CREATE INDEX "Card_due" ON "Card"("due");
                CREATE INDEX "Card_ankiGUID" ON "Card"("ankiGUID");
                """)
        }
        // A reader leaves the store as it is.
        let reader = try DeckDocument.open(at: url, mode: .readOnly)
        #expect(try reader.cardCount(where: nil) == 3)
        try reader.close()
        #expect(try Self.cardIndexes(store)["Card_kind"] != nil)

        let writer = try DeckDocument.open(at: url)
        try writer.close()
        let indexes = try Self.cardIndexes(store)
        #expect(indexes["Card_kind"] == nil && indexes["Card_due"] == nil && indexes["Card_ankiGUID"] == nil)
        #expect(indexes["Card_due_set"] != nil && indexes["Card_ankiGUID_set"] != nil)
        let deck = try DeckDocument.open(at: url, mode: .readOnly)
        defer { try? deck.close() }
        #expect(deck.check().isEmpty, "\(deck.check())")
        #expect(try deck.cardCount(where: nil) == 3)
    }
}
