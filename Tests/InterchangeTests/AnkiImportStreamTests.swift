import Anki
import DeckDocument
import Foundation
import Persistence
import Testing
@testable import Interchange

/// The importer reads each note with all its cards and their reviews in one merged pass: packages
/// whose cards are not stored in note order, notes whose first card was added last, notes without
/// cards and GUIDs repeated inside one package.
@Suite struct AnkiImportStreamTests {
    static let creation: Int64 = 1_699_920_000

    /// A package with four notes (note ids are creation times in milliseconds):
    /// - "reversed": a reversible note whose ordinal-1 card (new) has a lower id than its ordinal-0
    ///   card (a review card in "Deck::Sub"); both cards have reviews;
    /// - "later": a basic note whose card has the lowest id of all (cards out of note order);
    /// - "again": a basic note repeating the GUID of "reversed";
    /// - "lonely": a basic note without cards.
    static func package(in scratch: Scratch) throws -> URL {
        let url = scratch.file("stream.apkg")
        let writer = try AnkiPackageWriter(url: url, options: .init(format: .anki2, creationTime: creation))
        try writer.addNoteType(.basic(id: 1))
        try writer.addNoteType(.basicAndReversed(id: 2))
        try writer.addDeck(AnkiDeck(id: 50, name: "Deck::Sub"))
        try writer.addNote(AnkiNote(id: 1_700_000_000_000, guid: "guid-r", noteTypeID: 2, modified: 1_700_000_100,
                                    fields: ["reversed", "back"]))
        try writer.addNote(AnkiNote(id: 1_700_000_001_000, guid: "guid-l", noteTypeID: 1, modified: 1_700_000_200,
                                    fields: ["later", "back"]))
        try writer.addNote(AnkiNote(id: 1_700_000_002_000, guid: "guid-r", noteTypeID: 1, fields: ["again", "back"]))
        try writer.addNote(AnkiNote(id: 1_700_000_003_000, guid: "guid-n", noteTypeID: 1, fields: ["lonely", "back"]))
        try writer.addCard(AnkiCard(id: 500, noteID: 1_700_000_000_000, deckID: 1, ordinal: 1))
        try writer.addCard(AnkiCard(id: 600, noteID: 1_700_000_000_000, deckID: 50, ordinal: 0, type: .review,
                                    queue: .review, due: 10, interval: 12, factor: 2650, reps: 3, lapses: 1))
        try writer.addCard(AnkiCard(id: 100, noteID: 1_700_000_001_000, deckID: 1, ordinal: 0))
        try writer.addCard(AnkiCard(id: 700, noteID: 1_700_000_002_000, deckID: 1, ordinal: 0))
        for (time, card) in [(1_700_000_300_000, 600), (1_700_000_100_000, 500), (1_700_000_200_000, 600), (1_700_000_400_000, 100)] {
            try writer.addReview(AnkiReview(id: Int64(time), cardID: Int64(card), ease: 3, interval: 1, lastInterval: 0,
                                            factor: 2500, timeTaken: 2000, kind: .review))
        }
        try writer.finish()
        return url
    }

    /// An importer that finds repeated GUIDs with a set of every GUID (the limit above the
    /// package's 4 notes) or by asking the package first (limit 0, as for large packages).
    static func importer(guidSetLimit: Int) -> AnkiImporter {
        var importer = AnkiImporter()
        importer.guidSetLimit = guidSetLimit
        return importer
    }

    @Test(arguments: [250_000, 0])
    func eachNoteGetsEveryCardWithItsOwnReviews(guidSetLimit: Int) throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        let report = try Self.importer(guidSetLimit: guidSetLimit).importPackage(at: Self.package(in: scratch), into: deck)
        #expect(report.notesRead == 4)
        #expect(report.notesAdded == 3)
        #expect(report.cardsAdded == 3, "two of reversed, one of later; lonely has none")
        #expect(report.duplicatesSkipped == 1, "the second note with GUID guid-r")
        #expect(report.reviews == 4)

        let reversed = try #require(try deck.card(front: "reversed"))
        #expect(reversed.kind == .reversible)
        #expect(reversed.interval == 12 && reversed.ease == 2.65 && reversed.repetitions == 3 && reversed.lapses == 1,
                "scheduling of the ordinal-0 card, though it has the higher id")
        #expect(reversed.deckPath == "Deck::Sub")
        // Review cards are due on a day of the deck (days start at its day 0): the nearest one.
        let due = try #require(reversed.due)
        #expect(abs(due.timeIntervalSince1970 - TimeInterval(Self.creation + 10 * 86_400)) <= 12 * 3600, "\(due)")
        #expect(reversed.created == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(reversed.modified == Date(timeIntervalSince1970: 1_700_000_100))
        #expect(reversed.reviews.map(\.date.timeIntervalSince1970).sorted() == [1_700_000_200, 1_700_000_300],
                "the reviews of the ordinal-0 card")
        let sibling = try #require(try deck.mainContext.fetch(FetchDescriptor<DeckSchemaV2.Card>(predicate: #Predicate { $0.ankiID == 500 })).first)
        #expect(sibling.ordinal == 1 && sibling.queue == .new && sibling.note?.guid == "guid-r")
        #expect(sibling.reviews.map(\.time) == [1_700_000_100_000], "its own review, not moved onto card 0")

        let later = try #require(try deck.card(front: "later"))
        #expect(later.due == nil && later.deckPath == nil)
        #expect(later.reviews.map(\.date.timeIntervalSince1970) == [1_700_000_400])

        // A note without cards stays one (as in Anki): no card is made up for it.
        #expect(try deck.card(front: "lonely") == nil)
        #expect(try deck.mainContext.fetchCount(FetchDescriptor<Note>(predicate: #Predicate { $0.guid == "guid-n" })) == 1)
        #expect(try deck.card(front: "again") == nil)
        #expect(deck.check().isEmpty)
    }

    @Test(arguments: [250_000, 0])
    func aGUIDAlreadyInTheDeckIsSkippedOnce(guidSetLimit: Int) throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        try deck.addNote(type: try deck.stockNoteType(.basic), fields: ["mine", ""], guid: "guid-l")
        try deck.save()
        let report = try Self.importer(guidSetLimit: guidSetLimit).importPackage(at: Self.package(in: scratch), into: deck)
        #expect(report.notesAdded == 2)
        #expect(report.cardsAdded == 2)
        #expect(report.duplicatesSkipped == 1, "guid-r repeats in the package")
        // guid-l is in the deck, of the deck's own Basic, not the package's type: skipped, as Anki does.
        #expect(report.updates.skippedNotes.map(\.reason) == [.noteType])
        #expect(try deck.card(front: "later") == nil)
        #expect(try deck.noteCount() == 3)
    }
}
