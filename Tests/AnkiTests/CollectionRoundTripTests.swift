import Foundation
import Testing
@testable import Anki

/// Writes a schema 11 collection with ``AnkiCollectionWriter`` and reads it back with ``AnkiCollection``.
@Suite struct CollectionRoundTripTests {
    @Test func valuesSurviveAWriteAndARead() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("collection.anki21")
        let writer = try AnkiCollectionWriter(url: url, creationTime: 1_700_000_000)
        let basic = AnkiNoteType.basic(id: 100)
        let cloze = AnkiNoteType.cloze(id: 200)
        try writer.add(basic)
        try writer.add(cloze)
        try writer.add(AnkiDeck(id: 10, name: "French::Verbs", description: "<b>verbs</b>"))
        let note = try writer.add(AnkiNote(id: 1000, guid: "abc", noteTypeID: 100, modified: 1_700_000_100,
                                           tags: ["verb", "lesson1"], fields: ["être", "to be"]))
        let generated = try writer.add(AnkiNote(id: 0, noteTypeID: 200, fields: ["{{c1::Paris}}", ""]))
        #expect(generated.id > 0 && !generated.guid.isEmpty)
        try writer.add(AnkiCard(id: 5000, noteID: 1000, deckID: 10, ordinal: 0, type: .review, queue: .review,
                                due: 30, interval: 12, factor: 2650, reps: 4, lapses: 1))
        let newCard = try writer.add(AnkiCard(id: 0, noteID: generated.id, deckID: 1, ordinal: 0))
        #expect(newCard.due == 1, "a new card gets the next new position")
        try writer.add(AnkiReview(id: 1_700_000_000_123, cardID: 5000, ease: 3, interval: 12, lastInterval: 3,
                                  factor: 2650, timeTaken: 4200, kind: .review))
        try writer.finish()

        let collection = try AnkiCollection(url: url, label: "test")
        #expect(collection.schemaVersion == 11)
        #expect(collection.creationTime == 1_700_000_000)
        #expect(collection.noteTypes.map(\.shape) == [basic, cloze])
        // The parent of "French::Verbs" is created, with a fresh id.
        #expect(Set(collection.decks.map(\.name)) == ["Default", "French", "French::Verbs"])
        #expect(collection.decks.first { $0.id == 10 }?.description == "<b>verbs</b>")
        var notes: [AnkiNote] = []
        try collection.forEachNote { notes.append($0) }
        #expect(notes.count == 2)
        #expect(notes.first == note)
        var cards: [AnkiCard] = []
        try collection.forEachCard { cards.append($0) }
        #expect(cards.map(\.id) == [5000, newCard.id])
        #expect(cards.first?.interval == 12 && cards.first?.factor == 2650 && cards.first?.queue == .review)
        var reviews: [AnkiReview] = []
        try collection.forEachReview { reviews.append($0) }
        #expect(reviews.map(\.timeTaken) == [4200])
        #expect(try collection.noteCount() == 2 && collection.cardCount() == 2 && collection.reviewCount() == 1)
    }

    @Test func theWriterRefusesInconsistentInput() throws {
        let dir = try TemporaryDirectory()
        let writer = try AnkiCollectionWriter(url: dir.file("c"), creationTime: 0)
        try writer.add(AnkiNoteType.basic(id: 1))
        let errors: [AnkiError] = [
            try #require(throws: AnkiError.self) { try writer.add(AnkiNote(id: 1, noteTypeID: 99, fields: ["a", "b"])) },
            try #require(throws: AnkiError.self) { try writer.add(AnkiNote(id: 1, noteTypeID: 1, fields: ["only one"])) },
            try #require(throws: AnkiError.self) { try writer.add(AnkiCard(id: 1, noteID: 42, deckID: 1, ordinal: 0)) },
            try #require(throws: AnkiError.self) { try writer.add(AnkiDeck(id: 5, name: "A::::B")) },
            try #require(throws: AnkiError.self) { try writer.add(AnkiNoteType.cloze(id: 2, name: " ")) },
        ]
        #expect(errors.allSatisfy { $0.kind == .invalidInput })
        try writer.add(AnkiNote(id: 7, noteTypeID: 1, fields: ["a", "b"]))
        let twice = try #require(throws: AnkiError.self) { try writer.add(AnkiNote(id: 7, noteTypeID: 1, fields: ["a", "b"])) }
        #expect(twice.kind == .invalidInput && twice.reason.contains("note id 7 was added twice"))
        try writer.add(AnkiNote(id: 8, noteTypeID: 1, fields: ["c", "d"]))
        // A card of an earlier note (not the last one added) is accepted; a repeated card id is not.
        try writer.add(AnkiCard(id: 70, noteID: 7, deckID: 1, ordinal: 0))
        let card = try #require(throws: AnkiError.self) { try writer.add(AnkiCard(id: 70, noteID: 8, deckID: 1, ordinal: 0)) }
        #expect(card.kind == .invalidInput && card.reason.contains("card id 70 was added twice"))
        try writer.add(AnkiCard(id: 80, noteID: 8, deckID: 1, ordinal: 0))
        try writer.finish()
        let closed = try #require(throws: AnkiError.self) { try writer.add(AnkiNote(id: 9, noteTypeID: 1, fields: ["a", "b"])) }
        #expect(closed.kind == .closed)
    }

    @Test func readingSomethingElseFailsClearly() throws {
        let dir = try TemporaryDirectory()
        let text = try dir.write("notsqlite", Data("hello".utf8))
        #expect(throws: AnkiError.self) { try AnkiCollection(url: text, label: "notsqlite") }
        let missing = try #require(throws: AnkiError.self) { try AnkiCollection(url: dir.file("absent"), label: "absent") }
        #expect(missing.kind == .corruptCollection)
    }
}
