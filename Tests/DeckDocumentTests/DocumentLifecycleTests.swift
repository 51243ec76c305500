import Foundation
import Persistence
import Testing
@testable import DeckDocument

@Suite struct DocumentLifecycleTests {
    @Test func createWritesLayoutAndManifest() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("manifest.json").path))
        #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("Deck.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("Deck.sqlite-wal").path))
        let manifest = try DeckDocument.readManifest(of: url)
        #expect(manifest.contentType == "com.example.flashcards")
        #expect(manifest.formatVersion == DeckManifest.currentFormatVersion)
        #expect(manifest.title == "French")
        #expect(manifest.store == "Deck.sqlite")
        #expect(manifest.modified >= manifest.created)
        // No staging directory left behind.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: playground.url.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
    }

    @Test func createRefusesExistingPath() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        #expect(throws: DeckError.self) { try DeckDocument.create(at: url, title: "again") }
        do { _ = try DeckDocument.create(at: url, title: "again") } catch let error as DeckError {
            #expect(error.kind == .alreadyExists)
            #expect(error.path == url.path)
        }
    }

    @Test func reopenKeepsCardsKindsAndTags() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let deck = try DeckDocument.open(at: url)
        defer { try? deck.close() }
        // Three notes; the reversed one has two cards.
        #expect(try deck.cardCount() == 4)
        #expect(try deck.noteCount() == 3)
        let cards = try deck.cards(where: nil, sortedBy: [(field: "id", descending: false)], limit: nil, offset: nil)
        #expect(cards.map(\.front) == ["chat", "Café", "Paris is the capital of {{c1::France}}"])
        #expect(cards.map(\.kind) == ["basic", "reversible", "cloze"])
        let notes = try deck.notes(where: nil, sortedBy: [(field: "id", descending: false)])
        #expect(notes.map { $0.noteType?.name } == ["Basic", "Basic (and reversed card)", "Cloze"])
        #expect(notes.map { $0.cards.map(\.ordinal).sorted() } == [[0], [0, 1], [0]])
        #expect(Set(cards[0].tags) == ["animals", "nouns"])
        #expect(cards.map(\.id) == [1, 2, 4])
        #expect(try deck.note(forCard: 2)?.front == "Café")
        #expect(try deck.note(forCard: 3)?.front == "Café")
        #expect(try deck.card(id: 99) == nil)
    }

    @Test func tagsAreReusedByName() throws {
        let playground = try Playground()
        let deck = try DeckDocument.create(at: playground.file("T.sampledeck"), title: "T")
        defer { try? deck.close() }
        _ = try deck.addCard(kind: .basic, front: "a", back: "b", tags: ["x", "x", " "])
        try deck.save()
        _ = try deck.addCard(kind: .basic, front: "c", back: "d", tags: ["x", "y"])
        try deck.save()
        #expect(try deck.allTags().map(\.name) == ["x", "y"])
        let x = try deck.cards(where: .comparison(field: "tag", op: .equal, value: .string("x")), sortedBy: [], limit: nil, offset: nil)
        #expect(x.map(\.front) == ["a", "c"])
    }

    @Test func deleteRemovesCardsAndSearchRows() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let deck = try DeckDocument.open(at: url)
        defer { try? deck.close() }
        let chat = try #require(try deck.note(forCard: 1))
        try deck.delete([chat])
        try deck.save()
        #expect(try deck.noteCount() == 2)
        #expect(try deck.search("chat", limit: nil).isEmpty)
        #expect(try deck.search("coffee", limit: nil).count == 1)
    }

    @Test func twoDocumentsAreIndependent() throws {
        let playground = try Playground()
        let a = try DeckDocument.create(at: playground.file("A.sampledeck"), title: "A")
        let b = try DeckDocument.create(at: playground.file("B.sampledeck"), title: "B")
        _ = try a.addCard(kind: .basic, front: "only in a", back: "", tags: ["t"])
        try a.save()
        #expect(try a.cardCount() == 1)
        #expect(try b.cardCount() == 0)
        #expect(try b.search("only", limit: nil).isEmpty)
        try a.close()
        try b.close()
        #expect(try DeckDocument.readManifest(of: playground.file("B.sampledeck")).title == "B")
    }

    @Test func secondWriterIsRefusedAndLockIsReleasedOnClose() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let first = try DeckDocument.open(at: url)
        #expect(throws: DeckError(path: url.path, reason: "deck is open for writing by another process", kind: .inUse)) {
            try DeckDocument.open(at: url)
        }
        // A reader is still allowed.
        let reader = try DeckDocument.open(at: url, mode: .readOnly)
        #expect(try reader.noteCount() == 3)
        try reader.close()
        try first.close()
        try first.close() // idempotent
        let second = try DeckDocument.open(at: url)
        try second.close()
    }

    @Test func readOnlyOpeningWritesNothing() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let before = try snapshot(of: url)
        let deck = try DeckDocument.open(at: url, mode: .readOnly)
        #expect(try deck.noteCount() == 3)
        #expect(try deck.search("cafe", limit: 5).count == 1)
        #expect(throws: DeckError.self) { try deck.addCard(kind: .basic, front: "x", back: "y", tags: []) }
        #expect(throws: DeckError.self) { try deck.save() }
        try deck.close()
        #expect(try snapshot(of: url) == before)
    }

    @Test func sqlite3OpensTheClosedStore() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let store = url.appendingPathComponent("Deck.sqlite").path
        let check = try run("/usr/bin/sqlite3", [store, "PRAGMA integrity_check;"])
        #expect(check.status == 0)
        #expect(check.output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
        let count = try run("/usr/bin/sqlite3", [store, "SELECT count(*) FROM Note;"])
        #expect(count.output.trimmingCharacters(in: .whitespacesAndNewlines) == "3")
    }
}
