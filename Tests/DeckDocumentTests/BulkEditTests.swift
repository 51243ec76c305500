import Foundation
import Persistence
import Testing
@testable import DeckDocument

/// `deck edit --where`'s document side: a plan read by SQL, written by SQL in one transaction
/// (fields, sort text, modification times, tag links, card moves, the search index), with the
/// models read before seeing the result, cards made when the new values generate them, and the
/// models' path kept for undo. (The sample deck: note 1 "chat" card 1, note 2 "Café" cards 2 and
/// 3, note 3 a cloze card 4.)
@Suite struct BulkEditTests {
    @Test func anEditIsWrittenAtOnceWithItsIndexAndTimes() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let deck = try DeckDocument.open(at: url)
        defer { try? deck.close() }
        let cached = try #require(try deck.note(id: 1))
        #expect(cached.tags.map(\.name).sorted() == ["animals", "nouns"])
        let noteModified = cached.modified
        let cardModified = try #require(try deck.card(id: 2)).modified
        let edit = NoteEdit(fieldsByOrdinal: [1: "edited <b>back</b>"], addTags: ["Marked", "ANIMALS"], removeTags: ["NOUNS"], deck: "Moved::Here")
        let plan = try deck.planEdit(ids: [2, 1, 1], edit)
        #expect(plan.changes.map(\.note) == [1, 2])
        #expect(plan.changes[0].removedTags == ["nouns"] && plan.changes[0].addedTags == ["Marked"])
        #expect(plan.changes[1].addedTags == ["Marked", "animals"], "an existing tag keeps its spelling")
        #expect(plan.changes[1].fromDecks == ["Default"] && plan.changes[1].toDeck == "Moved::Here")
        #expect(try deck.search("edited", limit: nil).isEmpty, "planning writes nothing")
        try deck.applyEdit(plan)
        #expect(!deck.mainContext.hasChanges)

        // The model read before sees the new row.
        #expect(cached.back == "edited <b>back</b>")
        #expect(cached.sortText == "chat")
        #expect(cached.tags.map(\.name).sorted() == ["Marked", "animals"])
        #expect(cached.modified > noteModified)
        let moved = try #require(try deck.card(id: 2))
        #expect(moved.deck?.name == "Moved::Here" && moved.modified > cardModified)
        #expect(try deck.card(id: 3)?.deck?.name == "Moved::Here")
        #expect(try deck.card(id: 4)?.deck?.name == "Default")
        #expect(try deck.search("edited back", limit: nil).map(\.id) == [1, 2])
        #expect(try deck.search("marked", limit: nil).map(\.id) == [1, 2])
        #expect(try deck.search("nouns", limit: nil).isEmpty)
        #expect(try deck.allTags().filter { $0.name.lowercased() == "animals" }.count == 1)
        #expect(deck.check().isEmpty, "\(deck.check())")
        try deck.close()

        let reopened = try DeckDocument.open(at: url, mode: .readOnly)
        defer { try? reopened.close() }
        #expect(try reopened.note(id: 2)?.back == "edited <b>back</b>")
        #expect(try reopened.note(id: 2)?.tags.map(\.name).sorted() == ["Marked", "animals", "drinks"])
        #expect(try reopened.planEdit(ids: [1, 2], edit).changes.isEmpty, "done: nothing left to change")
    }

    @Test func newValuesThatMakeCardsMakeThem() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        let plan = try deck.planEdit(ids: [1, 3], NoteEdit(fieldsByOrdinal: [0: "{{c1::Paris}} and {{c2::France}}"]))
        // Note 1 is Basic: its front changes, no card is made; note 3 gains cloze 2.
        #expect(plan.changes.map(\.note) == [1, 3])
        try deck.applyEdit(plan)
        #expect(try deck.cardCount() == 5)
        #expect(try deck.note(id: 3)?.cards.map(\.ordinal).sorted() == [0, 1])
        #expect(try deck.search("france", limit: nil).map(\.id).sorted() == [1, 4])
        #expect(deck.check().isEmpty, "\(deck.check())")
    }

    @Test func checksComeFirstAndNothingIsWritten() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        #expect(throws: NoteInputError.self) { try deck.planEdit(ids: [1, 3], NoteEdit(fieldsByName: [("Back", "x")])) }
        #expect(throws: NoteInputError.self) { try deck.planEdit(ids: [3], NoteEdit(fieldsByOrdinal: [0: "no cloze"])) }
        #expect(throws: DeckOrganizeError.self) { try deck.planEdit(ids: [1, 99], NoteEdit(addTags: ["x"])) }
        #expect(try deck.search("x", limit: nil).isEmpty)
    }

    @Test func withUndoOnTheEditGoesThroughTheModels() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        let context = deck.mainContext
        context.isUndoEnabled = true
        context.undoLevels = 0
        context.beginUndoGrouping()
        try deck.applyEdit(try deck.planEdit(ids: [1], NoteEdit(fieldsByOrdinal: [1: "dog"], addTags: ["pets"])))
        context.endUndoGrouping()
        #expect(context.hasChanges, "written by the next save")
        try deck.save()
        #expect(try deck.search("pets", limit: nil).map(\.id) == [1])
        context.undo()
        try deck.save()
        #expect(try deck.note(id: 1)?.back == "cat")
        #expect(try deck.search("pets", limit: nil).isEmpty)
        #expect(deck.check().isEmpty, "\(deck.check())")
    }
}
