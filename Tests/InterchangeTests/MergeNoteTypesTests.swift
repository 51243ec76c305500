import Anki
import DeckDocument
import Foundation
import Persistence
import Testing
import Interchange

/// `--merge-notetypes` in Swift alone (the peer comparison is AnkiPeerUpdateTests): a field
/// the package inserted in the middle (it goes after the deck's fields, as in Anki's merge, which
/// keeps the deck's order) and a template added, with the deck's notes and cards and the incoming
/// ones mapped onto the merged type; a cloze type against a standard one of the same id refused.
@Suite struct MergeNoteTypesTests {
    typealias V2 = DeckSchemaV2
    static let typeID: Int64 = 7

    /// Basic-like type 7: Front, Back and one template (the first package), or Front, Hint, Back
    /// and a second template reading the hint (the second, an hour later).
    static func package(_ name: String, edited: Bool, in scratch: Scratch) throws -> URL {
        let url = scratch.file(name)
        let writer = try AnkiPackageWriter(url: url, options: .init(format: .anki2, creationTime: 1_699_920_000))
        var type = AnkiNoteType.basic(id: typeID, name: "Vocab")
        type.modified = edited ? 1_700_003_600 : 1_700_000_000
        if edited {
            type.fields = [.init(name: "Front", ordinal: 0), .init(name: "Hint", ordinal: 1), .init(name: "Back", ordinal: 2)]
            type.templates.append(.init(name: "Hint card", ordinal: 1, questionFormat: "{{#Hint}}{{Hint}}{{/Hint}}", answerFormat: "{{Front}}"))
        }
        try writer.addNoteType(type)
        try writer.addNote(AnkiNote(id: 1_700_000_000_000, guid: "g1", noteTypeID: typeID, modified: edited ? 1_700_003_600 : 1_700_000_000,
                                    fields: edited ? ["q", "a hint", "a (edited)"] : ["q", "a"]))
        try writer.addCard(AnkiCard(id: 100, noteID: 1_700_000_000_000, deckID: 1, ordinal: 0, type: .review, queue: .review,
                                    due: 10, interval: 12, factor: 2650, reps: 3, lapses: 1))
        if edited {
            try writer.addCard(AnkiCard(id: 101, noteID: 1_700_000_000_000, deckID: 1, ordinal: 1))
            try writer.addNote(AnkiNote(id: 1_700_000_001_000, guid: "g2", noteTypeID: typeID, modified: 1_700_003_600,
                                        fields: ["q2", "", "a2"]))
            try writer.addCard(AnkiCard(id: 200, noteID: 1_700_000_001_000, deckID: 1, ordinal: 0))
        }
        try writer.finish()
        return url
    }

    static func note(_ guid: String, in deck: DeckDocument) throws -> V2.Note? {
        try deck.mainContext.fetch(FetchDescriptor<V2.Note>()).first { $0.guid == guid }
    }

    @Test(arguments: [ImportUpdatePolicy.always, .newer])
    func mergesAFieldAndATemplateTheDeckLacks(_ policy: ImportUpdatePolicy) throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        try AnkiImporter().importPackage(at: Self.package("first.apkg", edited: false, in: scratch), into: deck)
        let report = try AnkiImporter(update: policy, mergesNoteTypes: true)
            .importPackage(at: Self.package("second.apkg", edited: true, in: scratch), into: deck)
        #expect(report.updates.noteTypes.map(\.action) == [.merged])
        let types = try deck.mainContext.fetch(FetchDescriptor<V2.NoteType>()).filter { $0.ankiID == Self.typeID }
        #expect(types.count == 1)
        #expect(types.first?.fields.sorted { $0.ordinal < $1.ordinal }.map(\.name) == ["Front", "Back", "Hint"])
        #expect(types.first?.templates.sorted { $0.ordinal < $1.ordinal }.map(\.name) == ["Card 1", "Hint card"])
        let first = try #require(try Self.note("g1", in: deck))
        // The merge rewrote the deck's note (a field inserted) at the time of the import, as Anki
        // does: under newer the package's note is older now; always applies it.
        #expect(first.fields == (policy == .always ? ["q", "a (edited)", "a hint"] : ["q", "a", ""]))
        #expect(report.updates.updated == (policy == .always ? 1 : 0))
        #expect(report.updates.skippedNotes.map(\.reason) == (policy == .always ? [] : [.older]))
        // Its review card kept its scheduling; the hint card is added (Anki adds cards at new ordinals).
        let cards = first.cards.sorted { $0.ordinal < $1.ordinal }
        #expect(cards.map(\.ordinal) == [0, 1])
        #expect(cards.first?.interval == 12 && cards.first?.repetitions == 3)
        #expect(try Self.note("g2", in: deck)?.fields == ["q2", "a2", ""])
        #expect(report.notesAdded == 1)
        #expect(deck.check().isEmpty, "\(deck.check())")
    }

    @Test func aClozeTypeAndAStandardOneAreNotMerged() throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        try AnkiImporter().importPackage(at: Self.package("first.apkg", edited: false, in: scratch), into: deck)
        let url = scratch.file("cloze.apkg")
        let writer = try AnkiPackageWriter(url: url, options: .init(format: .anki2))
        try writer.addNoteType(.cloze(id: Self.typeID, name: "Vocab"))
        try writer.addNote(AnkiNote(id: 1_700_000_005_000, guid: "g9", noteTypeID: Self.typeID, fields: ["{{c1::x}}", ""]))
        try writer.addCard(AnkiCard(id: 900, noteID: 1_700_000_005_000, deckID: 1, ordinal: 0))
        try writer.finish()
        let notes = try deck.mainContext.fetchCount(FetchDescriptor<V2.Note>())
        #expect {
            try AnkiImporter(mergesNoteTypes: true).importPackage(at: url, into: deck)
        } throws: { error in
            guard let error = error as? InterchangeError else { return false }
            return error.kind == .malformed && error.path == url.path && "\(error)".contains("can't be merged")
        }
        #expect(try deck.mainContext.fetchCount(FetchDescriptor<V2.Note>()) == notes, "nothing imported")
        #expect(try Self.note("g9", in: deck) == nil)
    }
}
