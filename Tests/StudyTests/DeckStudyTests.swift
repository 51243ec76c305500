import DeckDocument
import Foundation
import Persistence
import Scheduling
@testable import Study
import Testing

/// A version 2 store in a temporary folder with a small deck tree: `Languages` and
/// `Languages::Japanese` sharing a preset, a Basic (and reversed card) note with both cards in
/// the subdeck, a cloze note in the parent.
private final class StudyDeckFixture {
    typealias V2 = DeckSchemaV2
    let folder: URL
    let container: ModelContainer
    let context: ModelContext
    let preset: V2.Preset
    let parent: V2.Deck
    let child: V2.Deck
    let reversed: V2.Note
    let cloze: V2.Note
    /// 2026-12-01 12:00 UTC; the deck's day zero is a year earlier.
    static let now = Date(timeIntervalSince1970: 1_796_126_400)
    static let dayZero: Int64 = 1_764_547_200

    init(newPerDay: Int = 20, buryNewSiblings: Bool = false) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("study-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = folder.appendingPathComponent("Deck.sqlite")
        try DeckStoreV2.createStore(at: store, title: "Study", dayZero: Self.dayZero)
        container = try ModelContainer(for: DeckStoreV2.schema(), configurations: [ModelConfiguration("Deck", url: store)])
        context = ModelContext(container)

        preset = V2.Preset(name: "Languages")
        preset.newPerDay = newPerDay
        preset.buryNewSiblings = buryNewSiblings
        context.insert(preset)
        parent = V2.Deck(name: "Languages")
        child = V2.Deck(name: "Languages::Japanese")
        for deck in [parent, child] {
            context.insert(deck)
            deck.preset = preset
        }

        let basic = V2.NoteType(name: "Basic (and reversed card)", kind: .standard, stockKind: .basicAndReversed)
        context.insert(basic)
        for (ordinal, name) in ["Front", "Back"].enumerated() {
            let field = V2.NoteField(ordinal: ordinal, name: name)
            context.insert(field)
            field.noteType = basic
        }
        for (ordinal, (question, answer)) in [("{{Front}}", "{{FrontSide}}<hr id=answer>{{Back}}"),
                                              ("{{Back}}", "{{FrontSide}}<hr id=answer>{{Front}}")].enumerated() {
            let template = V2.CardTemplate(ordinal: ordinal, name: "Card \(ordinal + 1)", questionFormat: question, answerFormat: answer)
            context.insert(template)
            template.noteType = basic
        }
        let clozeType = V2.NoteType(name: "Cloze", kind: .cloze, stockKind: .cloze)
        context.insert(clozeType)
        for (ordinal, name) in ["Text", "Back Extra"].enumerated() {
            let field = V2.NoteField(ordinal: ordinal, name: name)
            context.insert(field)
            field.noteType = clozeType
        }
        let clozeTemplate = V2.CardTemplate(ordinal: 0, name: "Cloze", questionFormat: "{{cloze:Text}}", answerFormat: "{{cloze:Text}}<br>{{Back Extra}}")
        context.insert(clozeTemplate)
        clozeTemplate.noteType = clozeType

        reversed = V2.Note(guid: "reversed-guid", fields: ["<b>犬</b>", "dog"])
        context.insert(reversed)
        reversed.noteType = basic
        cloze = V2.Note(guid: "cloze-guid", fields: ["Le {{c1::chat}} dort", "a cat"])
        context.insert(cloze)
        cloze.noteType = clozeType
        for (note, ordinal, deck, position) in [(reversed, 0, child, Int64(0)), (reversed, 1, child, 1), (cloze, 0, parent, 2)] {
            let card = V2.Card(ordinal: ordinal)
            context.insert(card)
            card.note = note
            card.deck = deck
            card.due = position
        }
        try context.save()
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func card(_ note: V2.Note, _ ordinal: Int) throws -> V2.Card {
        try #require(note.cards.first { $0.ordinal == ordinal })
    }

    /// Contexts that read back what was saved (kept: a model reads its relationships through its context).
    private var readers: [ModelContext] = []

    /// The card as a fresh context reads it from the file.
    func stored(_ card: V2.Card) throws -> V2.Card {
        let fresh = ModelContext(container)
        readers.append(fresh)
        return try #require(try fresh.fetch(FetchDescriptor<V2.Card>()).first { $0.id == card.id })
    }
}

@Suite struct DeckStudyTests {
    @Test func anAnswerStoresTheSchedulersStateAndAReviewRowInOneSave() throws {
        let deck = try StudyDeckFixture()
        let study = DeckStudy(context: deck.context, fuzz: .off, utcOffset: 0)
        let card = try deck.card(deck.reversed, 0)
        let expected = try Scheduler(timing: SchedulingTiming(creation: StudyDeckFixture.dayZero), fuzz: .off)
            .answer(.new(position: 0), rating: .good, at: StudyDeckFixture.now, preset: .default, cardID: card.id, timeTaken: 4200)
        let answer = try study.answer(card, rating: .good, at: StudyDeckFixture.now, timeTaken: 4200)
        #expect(answer == expected)
        let stored = try deck.stored(card)
        #expect(DeckStudy.state(of: stored) == expected.state, "every scheduling column round-trips through the store")
        #expect(stored.queue == .learning && stored.type == .learning)
        #expect(stored.stability != nil && stored.difficulty != nil, "FSRS memory state kept")
        let reviews = stored.reviews
        #expect(reviews.count == 1)
        #expect(reviews.first?.time == expected.log.id && reviews.first?.rating == 3 && reviews.first?.duration == 4200)
        #expect(reviews.first?.kind == .learn && reviews.first?.lastInterval == 0)
    }

    @Test func theQueueTakesTheTreeInAnkisOrderAndRespectsLimitsAndBurying() throws {
        let deck = try StudyDeckFixture()
        let study = DeckStudy(context: deck.context, fuzz: .off, utcOffset: 0)
        let all = try study.queue(deck: "languages", at: StudyDeckFixture.now)
        #expect(all.counts(at: Int64(StudyDeckFixture.now.timeIntervalSince1970)) == .init(new: 3, learning: 0, review: 0))
        #expect(try study.queue(deck: "Languages::Japanese", at: StudyDeckFixture.now).main.count == 2, "the subdeck alone")
        #expect(try study.queue(at: StudyDeckFixture.now).main.count == 3, "all decks")
        #expect(throws: StudyError.self) { try study.queue(deck: "Nowhere", at: StudyDeckFixture.now) }

        let limited = try StudyDeckFixture(newPerDay: 2)
        let limitedStudy = DeckStudy(context: limited.context, fuzz: .off, utcOffset: 0)
        #expect(try limitedStudy.queue(deck: "Languages", at: StudyDeckFixture.now).main.count == 2)
        try limitedStudy.answer(try limited.card(limited.cloze, 0), rating: .good, at: StudyDeckFixture.now)
        let after = try limitedStudy.queue(deck: "Languages", at: StudyDeckFixture.now.addingTimeInterval(5))
        #expect(after.main.count == 1, "one of today's two new cards was introduced: \(after)")
        #expect(after.learning.count == 1, "the answered card is learning, due within the day")

        let burying = try StudyDeckFixture(buryNewSiblings: true)
        let buryingStudy = DeckStudy(context: burying.context, fuzz: .off, utcOffset: 0)
        let queue = try buryingStudy.queue(deck: "Languages", at: StudyDeckFixture.now)
        #expect(queue.main.count == 2, "one card per note when new siblings are buried")
        try buryingStudy.answer(try burying.card(burying.reversed, 0), rating: .good, at: StudyDeckFixture.now)
        #expect(try burying.stored(try burying.card(burying.reversed, 1)).queue == .buriedSibling)
        #expect(try burying.stored(try burying.card(burying.cloze, 0)).queue == .new, "other notes untouched")
    }

    @Test func cardsRenderFromTheirTemplatesAsTerminalText() throws {
        let deck = try StudyDeckFixture()
        let forward = DeckStudy.render(try deck.card(deck.reversed, 0))
        #expect(forward.question == "犬")
        #expect(forward.answer.contains("犬") && forward.answer.contains("dog"))
        let backward = DeckStudy.render(try deck.card(deck.reversed, 1))
        #expect(backward.question == "dog")
        let cloze = DeckStudy.render(try deck.card(deck.cloze, 0))
        #expect(cloze.question.contains("[...]") && !cloze.question.contains("chat"), "\(cloze.question)")
        #expect(cloze.answer.contains("chat") && cloze.answer.contains("a cat"))
    }

    @Test func buttonsPreviewWithoutChangingTheCard() throws {
        let deck = try StudyDeckFixture()
        let study = DeckStudy(context: deck.context, fuzz: .off, utcOffset: 0)
        let card = try deck.card(deck.reversed, 0)
        let buttons = try study.preview(card, at: StudyDeckFixture.now)
        #expect(buttons.map(\.label) == ["<1m", "<6m", "<10m", "8d"])
        #expect(try deck.stored(card).queue == .new && card.reviews.isEmpty)
    }

    @Test func undoTakesBackTheWholeAnswer() throws {
        let deck = try StudyDeckFixture(buryNewSiblings: true)
        deck.context.isUndoEnabled = true
        let study = DeckStudy(context: deck.context, fuzz: .off, utcOffset: 0)
        let card = try deck.card(deck.reversed, 0)
        try study.answer(card, rating: .easy, at: StudyDeckFixture.now)
        #expect(try deck.stored(card).queue == .review)
        #expect(try deck.stored(try deck.card(deck.reversed, 1)).queue == .buriedSibling)
        #expect(deck.context.canUndo)
        deck.context.undo()
        try deck.context.save()
        let stored = try deck.stored(card)
        #expect(stored.queue == .new && stored.repetitions == 0 && stored.stability == nil)
        #expect(stored.reviews.isEmpty, "the review row went with it")
        #expect(try deck.stored(try deck.card(deck.reversed, 1)).queue == .new, "the sibling is unburied")
    }

    @Test func aLeechIsTaggedAndAPresetThatCantBeUsedIsAnError() throws {
        let deck = try StudyDeckFixture()
        let study = DeckStudy(context: deck.context, fuzz: .off, utcOffset: 0)
        let card = try deck.card(deck.cloze, 0)
        card.type = .review
        card.queue = .review
        card.interval = 10
        card.easeFactor = 2500
        card.repetitions = 12
        card.lapses = 7
        card.due = 360
        card.stability = 10
        card.difficulty = 6
        card.lastReview = Int64(StudyDeckFixture.now.timeIntervalSince1970) - 10 * 86_400
        try deck.context.save()
        let answer = try study.answer(card, rating: .again, at: StudyDeckFixture.now)
        #expect(answer.becameLeech)
        #expect(deck.cloze.tags.map(\.name) == ["leech"])

        deck.preset.learningSteps = "[1, \"ten\"]"
        #expect(throws: StudyError("preset Languages: learningSteps holds ten, not a number")) {
            try study.preview(try deck.card(deck.reversed, 0), at: StudyDeckFixture.now)
        }
        deck.preset.learningSteps = "[1,10]"
        deck.preset.ankiOptions = "not json"
        #expect(throws: StudyError("preset Languages: ankiOptions is not JSON")) {
            try DeckStudy.preset(of: deck.parent)
        }
    }

    @Test func dueListsNewCardsAndWhatIsDueNow() throws {
        let deck = try StudyDeckFixture()
        let study = DeckStudy(context: deck.context, fuzz: .off, utcOffset: 0)
        #expect(try study.dueCards(at: StudyDeckFixture.now).count == 3)
        try study.answer(try deck.card(deck.reversed, 0), rating: .good, at: StudyDeckFixture.now)
        #expect(try study.dueCards(at: StudyDeckFixture.now).count == 2, "learning, due in 10 minutes")
        #expect(try study.dueCards(at: StudyDeckFixture.now.addingTimeInterval(601)).count == 3)
        #expect(try study.dueCards(deck: "Languages::Japanese", at: StudyDeckFixture.now).count == 1)
    }
}
