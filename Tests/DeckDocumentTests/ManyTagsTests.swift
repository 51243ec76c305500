import Foundation
import SQLite
import Testing
@testable import DeckDocument

/// 20,000 tags on one note (issue 17: through version 1's search triggers a card's tag links
/// were quadratic, minutes for `migrate` and `add`): a save, a bulk import and a version 0
/// migration each link them all and index the note once, and search and `check` agree with
/// the tables afterwards. Timings are deck-bench's (`tags` section), not asserted here.
@Suite struct ManyTagsTests {
    static let tagCount = 20_000
    static let names = (0..<tagCount).map { "t\($0)" }

    /// The index row's tag words of note `id`, read with the sqlite3 tool.
    func indexedTags(_ deck: URL, store: String = "Deck.sqlite", note id: Int64) throws -> [String] {
        let result = try run("/usr/bin/sqlite3", [deck.appendingPathComponent(store).path,
                                                  "SELECT tags FROM NoteSearch WHERE rowid = \(id)"])
        #expect(result.status == 0)
        return result.output.split(whereSeparator: \.isWhitespace).map(String.init)
    }

    func expectHealthy(_ deck: DeckDocument) {
        let errors = deck.check().filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test func aSaveLinksTwentyThousandTagsAndIndexesThemOnce() throws {
        let playground = try Playground()
        let url = playground.file("Tags.sampledeck")
        let deck = try DeckDocument.create(at: url, title: "Tags")
        let other = try deck.addCard(kind: .basic, front: "other", back: "card", tags: ["t1", "solo"])
        let card = try deck.addCard(kind: .basic, front: "many", back: "tags", tags: Self.names)
        try deck.save()
        let (cardID, otherID) = (try #require(card.cards.first?.id), try #require(other.cards.first?.id))
        #expect(card.tags.count == Self.tagCount)
        #expect(try Set(indexedTags(url, note: card.id)) == Set(Self.names))
        #expect(try deck.search("t19999", limit: nil).map(\.id) == [cardID])
        #expect(try Set(deck.search("t1", limit: nil).map(\.id)) == [cardID, otherID])
        expectHealthy(deck)

        // Half the links go, then the note: the index follows each save.
        try deck.setTags(Array(Self.names.prefix(Self.tagCount / 2)), of: card)
        try deck.save()
        #expect(try indexedTags(url, note: card.id).count == Self.tagCount / 2)
        #expect(try deck.search("t19999", limit: nil).isEmpty)
        #expect(try deck.search("t9999", limit: nil).map(\.id) == [cardID])
        try deck.delete([card])
        try deck.save()
        #expect(try deck.search("t5", limit: nil).isEmpty)
        #expect(try deck.search("solo", limit: nil).map(\.id) == [otherID])
        expectHealthy(deck)
        let noteID = other.id
        try deck.close()

        // SQL can't strip HTML, so version 2 indexes in the writer, not in triggers: a tag linked
        // by plain SQL leaves the index behind, and check says so.
        let db = try Database(path: url.appendingPathComponent("Deck.sqlite").path, mode: .readWrite)
        try db.execute("INSERT INTO Note_tags (source, target) SELECT \(noteID), pk FROM Tag WHERE name = 't7'")
        db.close()
        #expect(try Set(indexedTags(url, note: noteID)) == ["t1", "solo"])
        let reopened = try DeckDocument.open(at: url, mode: .readOnly)
        #expect(reopened.check().contains { $0.message.contains("search index text differs") })
        try reopened.close()
    }

    @Test func aFailedSaveKeepsTheTriggersAndTheIndex() throws {
        let playground = try Playground()
        let url = playground.file("Tags.sampledeck")
        let deck = try DeckDocument.create(at: url, title: "Tags")
        let card = try deck.addCard(kind: .basic, front: "a", back: "b", tags: ["x"])
        try deck.save()
        let noteID = card.id
        // Another connection holds the write lock: the save fails inside its savepoint.
        let blocker = try Database(path: url.appendingPathComponent("Deck.sqlite").path, mode: .readWrite)
        try blocker.execute("PRAGMA busy_timeout = 0")
        try blocker.execute("BEGIN IMMEDIATE")
        try deck.setTags(["y", "z"], of: card)
        #expect(throws: (any Error).self) { try deck.save() }
        try blocker.execute("ROLLBACK")
        blocker.close()
        try deck.save()
        #expect(try Set(indexedTags(url, note: noteID)) == ["y", "z"])
        expectHealthy(deck)
        try deck.close()
    }

    @Test func aBulkImportLinksTwentyThousandTags() throws {
        let playground = try Playground()
        let url = playground.file("Tags.sampledeck")
        let deck = try DeckDocument.create(at: url, title: "Tags")
        // Repeated names count once.
        try deck.bulkImport { session in
            try session.add(ImportedNote(kind: .basic, front: "imported", back: "row"), tags: Self.names + ["t0", "t19999"])
        }
        let card = try #require(try deck.search("t12345", limit: nil).first)
        #expect(card.tags.count == Self.tagCount)
        expectHealthy(deck)
        try deck.close()
    }

    @Test func aVersion0CardWithTwentyThousandTagsMigrates() throws {
        let playground = try Playground()
        let url = playground.file("Old.sampledeck")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        try Data("""
            {"contentType": "com.example.flashcards", "created": "2026-01-01T00:00:00Z", "formatVersion": 0,
             "store": "Cards.sqlite", "title": "Old"}
            """.utf8).write(to: url.appendingPathComponent("manifest.json"))
        let db = try Database(path: url.appendingPathComponent("Cards.sqlite").path, mode: .create)
        try db.execute("""
            CREATE TABLE cards (id INTEGER PRIMARY KEY, kind TEXT NOT NULL DEFAULT 'basic', question TEXT NOT NULL,
              answer TEXT NOT NULL, tags TEXT NOT NULL DEFAULT '', created INTEGER NOT NULL)
            """)
        try db.execute("INSERT INTO cards VALUES (3, 'basic', 'many', 'tags', ?, 1767225600), (9, 'basic', 'few', 'tags', 't1 solo', 1767225600)",
                       [.text(Self.names.joined(separator: " "))])
        db.close()
        let result = try DeckDocument.migrate(at: url)
        #expect(result.from == 0)
        let deck = try DeckDocument.open(at: url)
        #expect(try deck.note(forCard: 3)?.tags.count == Self.tagCount)
        #expect(try deck.search("t19999", limit: nil).map(\.id) == [3])
        #expect(try Set(deck.search("t1", limit: nil).map(\.id)) == [3, 9])
        expectHealthy(deck)
        try deck.close()
    }
}
