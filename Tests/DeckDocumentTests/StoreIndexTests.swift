import DeckFilter
import Foundation
import Persistence
import SQLite
import Testing
@testable import DeckDocument

/// The `Card` table's indexes (format version 2): the study queue's (`deck`, `queue`, `due`), one
/// card per template of a note, partial indexes of Anki's ids only where set; listings find a
/// note's first card through an index.
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

    @Test func aNewDeckHasTheStudyAndIdentityIndexes() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let store = url.appendingPathComponent("Deck.sqlite")
        let indexes = try Self.cardIndexes(store)
        #expect(Set(indexes.keys).isSuperset(of: ["Card_note_ordinal", "Card_deck_queue_due", "Card_ankiID_set"]))
        #expect(indexes["Card_ankiID_set"]?.contains("WHERE \"ankiID\" IS NOT NULL") == true)
        #expect(try Self.plan(store, "SELECT pk FROM Card WHERE deck = ? AND queue = ? AND due <= ?",
                              [.integer(1), .integer(2), .integer(10)]).contains("Card_deck_queue_due"))
        #expect(try Self.plan(store, "SELECT pk FROM Card WHERE ankiID = ?", [.integer(5)]).contains("Card_ankiID_set"))
        // A listing sorted by id finds each note's first card through an index, not a scan of Card.
        let (sql, arguments) = try DeckDocument.noteQuery(where: try FilterParser.parse("due<=2030-01-01"), sortedBy: [("id", false)],
                                                         limit: nil, offset: nil)
        let plan = try Self.plan(store, sql, arguments)
        #expect(plan.contains("USING INDEX Card_note") || plan.contains("USING COVERING INDEX Card_note"), "\(plan)")
    }

    @Test func aNewDeckHas16KiBPages() throws {
        let playground = try Playground()
        let store = try playground.sampleDeck().appendingPathComponent("Deck.sqlite")
        let db = try Database(path: store.path, mode: .readOnly)
        defer { db.close() }
        #expect(try db.scalar("PRAGMA page_size", as: Int.self) == DeckStore.pageSize)
        #expect(DeckStore.pageSize == 16_384)
    }

    @Test func checkReportsAMissingIndex() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let store = url.appendingPathComponent("Deck.sqlite")
        do {
            let db = try Database(path: store.path, mode: .readWrite)
            defer { db.close() }
            try db.execute("DROP INDEX \"Card_deck_queue_due\"")
        }
        let deck = try DeckDocument.open(at: url, mode: .readOnly)
        defer { try? deck.close() }
        #expect(deck.check().contains { $0.severity == .error && $0.message.contains("Card_deck_queue_due is missing") }, "\(deck.check())")
        #expect(try deck.noteCount(where: nil) == 3)
    }
}
