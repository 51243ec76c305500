import Foundation
import SQLite
import Testing
@testable import Anki

/// ``AnkiCollection/forEachNoteWithCards(includingReviews:_:)``: each note with its first card
/// and its reviews, merged from three ordered queries, whether the cards are stored in note
/// order (read in storage order) or not (read through the `nid` index or a sort).
@Suite struct NoteStreamTests {
    /// Card ids by (note, ordinal), for a collection whose cards are stored in note order or not.
    struct Layout: Sendable, CustomStringConvertible {
        let inNoteOrder: Bool
        let withIndexes: Bool
        /// Note 10: ordinal 1 then ordinal 0 (the first card is added second); note 20: one card;
        /// note 30: none; note 40: two cards with ordinal 0 (the lower id is the first).
        var cardIDs: [(note: Int64, ordinal: Int, id: Int64)] {
            inNoteOrder
                ? [(10, 1, 101), (10, 0, 102), (20, 0, 201), (40, 0, 401), (40, 0, 402)]
                : [(40, 0, 101), (40, 0, 102), (20, 0, 201), (10, 1, 301), (10, 0, 302)]
        }
        func card(note: Int64, ordinal: Int) -> Int64 {
            cardIDs.first { $0.note == note && $0.ordinal == ordinal }?.id ?? 0
        }
        var description: String { (inNoteOrder ? "cards in note order" : "cards out of note order") + (withIndexes ? ", indexed" : "") }
    }

    static let layouts = [Layout(inNoteOrder: true, withIndexes: false), Layout(inNoteOrder: false, withIndexes: false),
                          Layout(inNoteOrder: false, withIndexes: true)]

    /// Writes the layout's collection, adds a card and a review of a missing note and a review of
    /// a missing card with SQL, and opens it.
    static func collection(_ layout: Layout, in dir: TemporaryDirectory) throws -> AnkiCollection {
        let url = dir.file("collection.anki2")
        let writer = try AnkiCollectionWriter(url: url, creationTime: 0, buildsIndexes: layout.withIndexes)
        try writer.add(AnkiNoteType.basicAndReversed(id: 1))
        for id: Int64 in [10, 20, 30, 40] {
            try writer.add(AnkiNote(id: id, guid: "g\(id)", noteTypeID: 1, fields: ["front \(id)", "back \(id)"]))
        }
        for (note, ordinal, id) in layout.cardIDs {
            try writer.add(AnkiCard(id: id, noteID: note, deckID: 1, ordinal: ordinal, type: .review, queue: .review,
                                    due: id, interval: id))
        }
        // Review times (ids) out of card order: note 10's reviews come from both its cards.
        let reviews: [(time: Int64, card: Int64)] = [
            (1000, layout.card(note: 20, ordinal: 0)), (2000, layout.card(note: 10, ordinal: 1)),
            (3000, layout.card(note: 10, ordinal: 0)), (1500, layout.card(note: 10, ordinal: 0)),
        ]
        for (time, card) in reviews {
            try writer.add(AnkiReview(id: time, cardID: card, ease: 3, interval: 1, lastInterval: 0, factor: 2500,
                                      timeTaken: time, kind: .review))
        }
        try writer.finish()
        let database = try Database(path: url.path, mode: .readWrite)
        try database.execute("""
            INSERT INTO cards (id, nid, did, ord, mod, usn, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags, data)
                VALUES (250, 25, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '');
            INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) VALUES (2500, 999, 0, 1, 1, 0, 0, 1, 1);
            INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) VALUES (2600, 250, 0, 1, 1, 0, 0, 1, 1);
            """)
        database.close()
        return try AnkiCollection(url: url, label: "test")
    }

    @Test(arguments: layouts)
    func eachNoteComesWithItsFirstCardAndItsReviews(_ layout: Layout) throws {
        let dir = try TemporaryDirectory()
        let collection = try Self.collection(layout, in: dir)
        defer { collection.close() }
        #expect(try collection.cardsAreInNoteOrder() == layout.inNoteOrder)
        var seen: [(note: Int64, card: Int64?, reviews: [Int64])] = []
        try collection.forEachNoteWithCards(includingReviews: true) { note, card, reviews in
            #expect(card.map { $0.noteID == note.id } ?? true)
            #expect(reviews.allSatisfy { $0.timeTaken == $0.id }, "every column of a review is read")
            seen.append((note.id, card?.id, reviews.map(\.id)))
        }
        #expect(seen.map(\.note) == [10, 20, 30, 40], "notes in id order, the one without cards included")
        let lowestOfNote40 = layout.cardIDs.filter { $0.note == 40 }.map(\.id).min()
        #expect(seen.map(\.card) == [layout.card(note: 10, ordinal: 0), layout.card(note: 20, ordinal: 0), nil, lowestOfNote40],
                "the lowest ordinal, even when added later; the lowest id between equal ordinals")
        #expect(seen.map(\.reviews) == [[1500, 2000, 3000], [1000], [], []],
                "each note's reviews of all its cards, in time order; those of missing cards and notes are dropped")
    }

    @Test(arguments: layouts)
    func theFirstCardKeepsEveryColumn(_ layout: Layout) throws {
        let dir = try TemporaryDirectory()
        let collection = try Self.collection(layout, in: dir)
        defer { collection.close() }
        var cards: [AnkiCard] = []
        try collection.forEachNoteWithCards(includingReviews: false) { _, card, reviews in
            #expect(reviews.isEmpty, "no reviews asked for")
            if let card { cards.append(card) }
        }
        var stored: [Int64: AnkiCard] = [:]
        try collection.forEachCard { stored[$0.id] = $0 }
        #expect(cards.count == 3)
        for card in cards { #expect(stored[card.id] == card) }
    }

    @Test func repeatedGUIDsAreThoseOfMoreThanOneNote() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("repeats.anki2")
        let writer = try AnkiCollectionWriter(url: url, creationTime: 0)
        try writer.add(AnkiNoteType.basic(id: 1))
        for (id, guid) in [(1, "a"), (2, "b"), (3, "a"), (4, "c"), (5, "c"), (6, "c"), (7, "d")] {
            try writer.add(AnkiNote(id: Int64(id), guid: guid, noteTypeID: 1, fields: ["\(id)", ""]))
        }
        try writer.finish()
        let collection = try AnkiCollection(url: url, label: "test")
        defer { collection.close() }
        #expect(try collection.repeatedGUIDs() == ["a", "c"])
        let unique = try Self.collection(Self.layouts[0], in: dir)
        defer { unique.close() }
        #expect(try unique.repeatedGUIDs().isEmpty)
    }

    @Test func errorsOfTheCallerPassThroughAsTheyAre() throws {
        let dir = try TemporaryDirectory()
        let collection = try Self.collection(Self.layouts[0], in: dir)
        defer { collection.close() }
        let scratch = try Database(path: ":memory:")
        let error = try #require(throws: DatabaseError.self) { try scratch.execute("SELECT * FROM nowhere") }
        var calls = 0
        let thrown = try #require(throws: DatabaseError.self) {
            try collection.forEachNoteWithCards(includingReviews: true) { _, _, _ in
                calls += 1
                throw error
            }
        }
        #expect(thrown == error, "a store error of the caller is not reported as a corrupt collection")
        #expect(calls == 1, "throwing stops the stream")
    }

    @Test func aDamagedCardsTableIsACorruptCollection() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("collection.anki2")
        let writer = try AnkiCollectionWriter(url: url, creationTime: 0)
        try writer.add(AnkiNoteType.basic(id: 1))
        try writer.add(AnkiNote(id: 1, noteTypeID: 1, fields: ["a", "b"]))
        try writer.finish()
        let database = try Database(path: url.path, mode: .readWrite)
        try database.execute("DROP TABLE cards; CREATE TABLE cards (id INTEGER PRIMARY KEY)")
        database.close()
        let collection = try AnkiCollection(url: url, label: "damaged")
        defer { collection.close() }
        let error = try #require(throws: AnkiError.self) {
            try collection.forEachNoteWithCards(includingReviews: false) { _, _, _ in }
        }
        #expect(error.kind == .corruptCollection && error.path == "damaged")
    }
}
