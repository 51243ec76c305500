import Foundation
import Persistence
import SQLite
import Testing
@testable import DeckDocument

/// Revisions of format version 2 (docs/FORMAT.md, "Revisions of format version 2"): a store of
/// revision 2.0.0, as the program wrote it before 2.1, is read as it is, upgraded by a writer
/// (and by `deck migrate`) to 2.1.0, and checked against its own revision's layout.
@Suite struct StoreRevisionTests {
    static let version2_0SQL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/decks/store-v2.0.sql")

    /// A deck of three notes whose store is what revision 2.0.0 wrote: today's tables, 2.0's two
    /// indexes more (the statements of `Fixtures/decks/store-v2.0.sql`), `schemaVersion` 2.0.0.
    static func version2_0Deck(_ playground: Playground) throws -> URL {
        let url = try playground.sampleDeck()
        let db = try Database(path: store(url).path, mode: .readWrite)
        defer { db.close() }
        for statement in DeckStoreV2.version2_0Indexes { try db.execute(statement) }
        try db.execute("UPDATE persistence_metadata SET value = '2.0.0' WHERE key = 'schemaVersion'")
        return url
    }

    static func store(_ url: URL) -> URL { url.appendingPathComponent("Deck.sqlite") }

    /// `type name sql` of every object with a statement, without FTS5's shadow tables.
    static func schemaObjects(_ path: String) throws -> Set<String> {
        let db = try Database(path: path, mode: .readOnly)
        defer { db.close() }
        let rows = try db.rows("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'")
        return Set(rows.compactMap { row -> String? in
            guard case .text(let type) = row[0], case .text(let name) = row[1], case .text(let sql) = row[2],
                  !DeckStoreV2.searchShadowTables.contains(name) else { return nil }
            return "\(type) \(name) \(sql)"
        })
    }

    static func indexNames(_ url: URL) throws -> Set<String> {
        let db = try Database(path: store(url).path, mode: .readOnly)
        defer { db.close() }
        return Set(try db.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").compactMap {
            if case .text(let name)? = $0.first { name } else { nil }
        })
    }

    static func schemaVersion(_ url: URL) throws -> String? {
        let db = try Database(path: store(url).path, mode: .readOnly)
        defer { db.close() }
        return try db.scalar("SELECT value FROM persistence_metadata WHERE key = 'schemaVersion'", as: String.self)
    }

    static func plan(_ url: URL, _ sql: String) throws -> String {
        let db = try Database(path: store(url).path, mode: .readOnly)
        defer { db.close() }
        return try db.rows("EXPLAIN QUERY PLAN " + sql, [.integer(1)]).compactMap { row in
            if case .text(let detail)? = row.last { detail } else { nil }
        }.joined(separator: "; ")
    }

    @Test func theVersion2_0StoreOfTheseTestsIsWhatTheOldDDLMade() throws {
        let playground = try Playground()
        let url = try Self.version2_0Deck(playground)
        let old = playground.file("old.sqlite")
        let db = try Database(path: old.path, mode: .create)
        try db.execute(try String(contentsOf: Self.version2_0SQL, encoding: .utf8))
        db.close()
        #expect(try Self.schemaObjects(Self.store(url).path) == Self.schemaObjects(old.path))
        #expect(try Self.schemaVersion(url) == "2.0.0")
    }

    @Test func aNewStoreHasNoIndexOfItsOwnForTheCardsNoteAndDeck() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let names = try Self.indexNames(url)
        #expect(!names.contains("Card_note") && !names.contains("Card_deck"), "\(names.sorted())")
        #expect(names.isSuperset(of: ["Card_note_ordinal", "Card_deck_queue_due", "Card_originalDeck", "Card_ankiID_set"]))
        #expect(try Self.schemaVersion(url) == "2.1.0")
        // Reopened for writing, twice: nothing adds them back.
        for _ in 0..<2 { try DeckDocument.open(at: url, mode: .readWrite).close() }
        #expect(try Self.indexNames(url) == names)
    }

    @Test func aVersion2_0DeckIsReadAsItIsAndChecksClean() throws {
        let playground = try Playground()
        let url = try Self.version2_0Deck(playground)
        let before = try snapshot(of: url)
        let deck = try DeckDocument.open(at: url, mode: .readOnly)
        #expect(try deck.noteCount() == 3)
        #expect(try deck.storeRevision() == Schema.Version(2, 0, 0))
        let problems = deck.check()
        try deck.close()
        #expect(!problems.contains { $0.severity == .error }, "\(problems)")
        #expect(problems.contains { $0.severity == .warning && $0.message.contains("schemaVersion is 2.0.0") }, "\(problems)")
        #expect(try snapshot(of: url) == before)
    }

    @Test func aWriterUpgradesAVersion2_0DeckAndItChecksClean() throws {
        let playground = try Playground()
        let url = try Self.version2_0Deck(playground)
        let deck = try DeckDocument.open(at: url, mode: .readWrite)
        #expect(try deck.storeRevision() == Schema.Version(2, 1, 0))
        #expect(try deck.noteCount() == 3)
        _ = try deck.addCard(kind: .basic, front: "chien", back: "dog", tags: ["animals"])
        try deck.save()
        try deck.close()
        let names = try Self.indexNames(url)
        #expect(!names.contains("Card_note") && !names.contains("Card_deck"), "\(names.sorted())")
        // The store's own partial indexes, which the stage drops with the others, are made again.
        #expect(names.isSuperset(of: ["Card_note_ordinal", "Card_deck_queue_due", "Card_ankiID_set", "Note_ankiID_set"]))
        #expect(try Self.schemaVersion(url) == "2.1.0")
        // Exactly what a new store holds.
        let fresh = try playground.sampleDeck("Fresh.sampledeck")
        #expect(try Self.schemaObjects(Self.store(url).path) == Self.schemaObjects(Self.store(fresh).path))
        let reopened = try DeckDocument.open(at: url, mode: .readOnly)
        defer { try? reopened.close() }
        #expect(try reopened.noteCount() == 4)
        #expect(reopened.check().isEmpty, "\(reopened.check())")
    }

    @Test func deckMigrateUpgradesAVersion2_0DeckWithoutABackup() throws {
        let playground = try Playground()
        let url = try Self.version2_0Deck(playground)
        let result = try DeckDocument.migrate(at: url)
        #expect(result.from == 2 && result.to == 2 && result.backup == nil)
        #expect(try Self.schemaVersion(url) == "2.1.0")
        let names = try Self.indexNames(url)
        #expect(!names.contains("Card_note"))
        // Once more: nothing to do.
        let again = try DeckDocument.migrate(at: url)
        #expect(again.backup == nil)
        #expect(try Self.schemaVersion(url) == "2.1.0")
    }

    @MainActor @Test func theLookupsOfTheDroppedIndexesStillUseAnIndex() throws {
        let playground = try Playground()
        let url = try Self.version2_0Deck(playground)
        try DeckDocument.open(at: url, mode: .readWrite).close()
        let ofNote = try Self.plan(url, #"SELECT "pk" FROM "Card" WHERE "note" = ?"#)
        #expect(ofNote.contains("INDEX Card_note_ordinal"), "\(ofNote)")
        let ofDeck = try Self.plan(url, #"SELECT "pk" FROM "Card" WHERE "deck" = ?"#)
        #expect(ofDeck.contains("INDEX Card_deck_queue_due"), "\(ofDeck)")
        let counted = try Self.plan(url, #"SELECT count(*) FROM "Card" WHERE "deck" = ?"#)
        #expect(counted.contains("INDEX Card_deck_queue_due"), "\(counted)")
        // The delete rules look the same keys up: deleting a note deletes its cards.
        let deck = try DeckDocument.open(at: url, mode: .readWrite)
        let cardsBefore = try deck.mainContext.fetchCount(FetchDescriptor<DeckSchemaV2.Card>())
        let note = try #require(try deck.mainContext.fetch(FetchDescriptor<DeckSchemaV2.Note>()).first)
        let itsCards = note.cards.count
        deck.mainContext.delete(note)
        try deck.save()
        #expect(try deck.mainContext.fetchCount(FetchDescriptor<DeckSchemaV2.Card>()) == cardsBefore - itsCards)
        try deck.close()
    }

    @Test func aCurrentStoreWithTheOldIndexesIsRefusedAndReported() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        do {
            let db = try Database(path: Self.store(url).path, mode: .readWrite)
            defer { db.close() }
            try db.execute(DeckStoreV2.version2_0Indexes[0])
        }
        // 2.1.0 holds exactly its own layout: Card_note is not part of it.
        #expect(throws: DeckError.self) { try DeckDocument.open(at: url, mode: .readOnly) }
        let problems = DeckStoreV2.check(storeAt: Self.store(url), mediaFolder: url.appendingPathComponent("Media"))
        #expect(problems.contains { $0.severity == .error && $0.message.contains("Card_note is not part of the format") }, "\(problems)")
    }
}
