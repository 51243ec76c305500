import Foundation
import Persistence
import SQLite
import Testing
@testable import DeckDocument

/// A bulk import leaves the new notes out of the full-text index; the next search indexes them.
/// (The sample deck holds notes 1–3 with cards 1–4: its reversed note has two cards.)
@Suite struct DeferredSearchIndexTests {
    /// Imports `count` cards "imported N" tagged "batch" and "nN".
    static func importCards(_ deck: DeckDocument, count: Int, word: String = "imported") throws {
        try deck.bulkImport { session in
            for index in 0..<count {
                try session.add(ImportedNote(kind: .basic, front: "\(word) \(index)", back: "back \(index)"), tags: ["batch", "n\(index)"])
            }
        }
    }

    static func indexRows(_ deck: DeckDocument) throws -> Int {
        try deck.container.withDatabase(for: Note.self) { db in try db.scalar("SELECT count(*) FROM NoteSearch", as: Int.self) ?? -1 }
    }

    static func fronts(_ cards: [CardRow]) -> [String] { cards.map(\.front).sorted() }

    @Test func theFirstSearchIndexesTheImportedCards() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        try Self.importCards(deck, count: 5)
        // The import ran with a rollback journal (no other connection) and went back to WAL.
        let journal = try deck.container.withDatabase(for: Note.self) { db in try db.scalar("PRAGMA journal_mode", as: String.self) }
        #expect(journal == "wal")
        #expect(try deck.hasPendingSearchIndex())
        #expect(try Self.indexRows(deck) == 3)
        #expect(deck.check().isEmpty, "\(deck.check())")
        #expect(try Self.fronts(deck.search("imported", limit: nil)) == (0..<5).map { "imported \($0)" })
        #expect(try !deck.hasPendingSearchIndex())
        #expect(try Self.indexRows(deck) == 8)
        #expect(try deck.search("n3", limit: nil).map(\.front) == ["imported 3"])
        #expect(try deck.search("chat", limit: nil).map(\.front) == ["chat"])
        #expect(deck.check().isEmpty)
    }

    @Test func changesBeforeTheCatchUpAreIndexed() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        try Self.importCards(deck, count: 4)
        // Edit, delete, retag and rename before anything searched.
        let edited = try #require(try deck.note(forCard: 5))
        try deck.setFields(["renamed card", edited.back], of: edited)
        let retagged = try #require(try deck.note(forCard: 7))
        try deck.setTags(["solo"], of: retagged)
        try deck.delete([try #require(try deck.note(forCard: 6))])
        try deck.save()
        let batchTag = try #require(try deck.allTags().first { $0.name == "batch" })
        batchTag.name = "lot"
        try deck.save()
        _ = try deck.addCard(kind: .basic, front: "added after", back: "", tags: ["lot"])
        try deck.save()
        #expect(deck.check().isEmpty, "\(deck.check())")

        #expect(try Self.fronts(deck.search("imported", limit: nil)) == ["imported 2", "imported 3"])
        #expect(try deck.search("renamed", limit: nil).map(\.id) == [5])
        #expect(try deck.search("imported 1", limit: nil).isEmpty)
        #expect(try deck.search("batch", limit: nil).isEmpty)
        #expect(try Self.fronts(deck.search("lot", limit: nil)) == ["added after", "imported 3", "renamed card"])
        #expect(try deck.search("solo", limit: nil).map(\.id) == [7])
        #expect(try Self.indexRows(deck) == deck.noteCount())
        #expect(deck.check().isEmpty)
    }

    @Test func aReadOnlyDocumentSearchesPendingCardsWithoutWriting() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let writer = try DeckDocument.open(at: url)
        try Self.importCards(writer, count: 3)
        try writer.close()

        let reader = try DeckDocument.open(at: url, mode: .readOnly)
        defer { try? reader.close() }
        #expect(try reader.hasPendingSearchIndex())
        #expect(try Self.fronts(reader.search("imported", limit: nil)) == ["imported 0", "imported 1", "imported 2"])
        #expect(try reader.search("drinks", limit: nil).map(\.front) == ["Café"])
        #expect(try reader.search("imported", limit: 2).count == 2)
        #expect(throws: DeckError.self) { try reader.updateSearchIndex() }
        #expect(reader.check().isEmpty, "\(reader.check())")

        // Another import while the reader is open: its temporary index follows the store.
        let second = try DeckDocument.open(at: url)
        try Self.importCards(second, count: 2, word: "second")
        try second.close()
        let before = try snapshot(of: url)
        #expect(try Self.fronts(reader.search("second", limit: nil)) == ["second 0", "second 1"])
        #expect(try reader.search("imported", limit: nil).count == 3)
        try reader.close()
        #expect(try snapshot(of: url) == before)
    }

    @Test func laterImportsKeepTheLowestMarker() throws {
        let playground = try Playground()
        let deck = try DeckDocument.create(at: playground.file("Empty.sampledeck"), title: "Empty")
        defer { try? deck.close() }
        try Self.importCards(deck, count: 2)
        try Self.importCards(deck, count: 2, word: "later")
        let marker = try deck.container.withDatabase(for: Note.self) { db in
            try db.rows("SELECT indexedThrough FROM NoteSearchPending")
        }
        #expect(marker == [[.integer(0)]])
        #expect(try deck.search("later", limit: nil).count == 2)
        #expect(try deck.search("imported", limit: nil).count == 2)
        #expect(try Self.indexRows(deck) == 4)
    }

    @Test func checkStillFindsDamageBelowTheMarker() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        try Self.importCards(deck, count: 2)
        try deck.container.withDatabase(for: Note.self) { db in try db.execute("DELETE FROM NoteSearch WHERE rowid = 2") }
        #expect(deck.check().contains { $0.severity == .error && $0.message.contains("1 note(s) missing from the search index") })
    }

    @Test func repeatedTagsAndMediaLinkOnce() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        let media = try deck.addMedia(Data([1, 2, 3]), originalName: "a.png")
        try deck.bulkImport { session in
            try session.add(ImportedNote(kind: .basic, front: "twice", back: ""), tags: ["x", "x", " x ", "animals"], media: [media.originalName, media.fileName])
            try session.add(ImportedNote(kind: .basic, front: "once", back: ""), tags: ["x"])
        }
        let links = try deck.container.withDatabase(for: Note.self) { db in
            (try db.scalar("SELECT count(*) FROM Note_tags WHERE source = 4", as: Int.self),
             try db.scalar("SELECT count(*) FROM Note_media WHERE source = 4", as: Int.self))
        }
        #expect(links.0 == 2 && links.1 == 1)
        #expect(try deck.allTags().filter { $0.name == "x" }.count == 1)
        #expect(try Self.fronts(deck.search("x", limit: nil)) == ["once", "twice"])
        #expect(deck.check().isEmpty, "\(deck.check())")
    }

    @Test func aFailedImportLeavesNoMarker() throws {
        struct Stop: Error {}
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        #expect(throws: Stop.self) {
            try deck.bulkImport { session in
                try session.add(ImportedNote(kind: .basic, front: "lost", back: ""), tags: ["x"])
                throw Stop()
            }
        }
        #expect(try !deck.hasPendingSearchIndex())
        #expect(try deck.cardCount() == 4)
        #expect(try deck.noteCount() == 3)
        #expect(deck.check().isEmpty)
    }
}
