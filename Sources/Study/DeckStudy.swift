import CardTemplates
import DeckDocument
import Foundation
import Persistence
import Scheduling

/// Studying a format version 2 deck: today's queue of a deck and its subdecks, each card
/// rendered as its note type says, the four buttons with their next intervals, and answers
/// saved with their review row in one save, as Anki's v3 scheduler does it (see
/// docs/SCHEDULING.md for the algorithms and how they are checked against Anki and `fsrs`).
///
/// It works on a model context of the deck's store, so an app uses it on its own context and
/// `deck study`, `deck review` and `deck due` on the document's.
///
/// ```swift
/// let study = DeckStudy(context: document.mainContext)
/// var queue = try study.queue(deck: "Languages::Japanese", at: .now)
/// if let entry = queue.next(at: now), let card = try study.card(entry.cardID) {
///     let buttons = try study.preview(card, at: .now)      // "<1m", "<10m", "1d", "4d"
///     try study.answer(card, rating: .good, at: .now, timeTaken: 4200)
/// }
/// ```
public struct DeckStudy {
    public typealias Card = DeckSchemaV2.Card
    public typealias Deck = DeckSchemaV2.Deck

    /// The context answers are saved in.
    public let context: ModelContext
    /// Interval fuzz (``Fuzz/seeded``; ``Fuzz/off`` for `--no-fuzz` and tests).
    public var fuzz: Fuzz
    /// The local offset from UTC in seconds, for the day boundary.
    public var utcOffset: Int

    /// Study on `context`, a context of a format version 2 store.
    public init(context: ModelContext, fuzz: Fuzz = .seeded, utcOffset: Int = SchedulingTiming.localUTCOffset()) {
        self.context = context
        self.fuzz = fuzz
        self.utcOffset = utcOffset
    }

    // MARK: The deck's scheduling values

    /// The day boundary: the deck's day zero and "next day starts at" hour.
    public func timing() throws -> SchedulingTiming {
        let info = try context.fetch(FetchDescriptor<DeckSchemaV2.DeckInfo>()).first
        return SchedulingTiming(creation: info?.dayZero ?? 0, utcOffset: utcOffset, rolloverHour: info?.dayStartsAt ?? 4)
    }

    /// The scheduler for this deck.
    public func scheduler() throws -> Scheduler {
        Scheduler(timing: try timing(), fuzz: fuzz)
    }

    /// The card's scheduling state, column for column.
    public static func state(of card: Card) -> CardSchedulingState {
        CardSchedulingState(
            type: CardType(rawValue: card.type.rawValue) ?? .new,
            queue: CardQueue(rawValue: card.queue.rawValue) ?? .new,
            due: card.due, interval: card.interval, easeFactor: card.easeFactor, reps: card.repetitions,
            lapses: card.lapses, remainingSteps: card.remainingSteps,
            memory: card.stability.flatMap { stability in card.difficulty.map { MemoryState(stability: stability, difficulty: $0) } },
            desiredRetention: card.desiredRetention, lastReview: card.lastReview,
            originalPosition: card.originalPosition.flatMap { Int(exactly: $0) })
    }

    /// Writes `state` into the card's columns.
    static func apply(_ state: CardSchedulingState, to card: Card) {
        card.type = DeckSchemaV2.CardType(rawValue: state.type.rawValue) ?? .new
        card.queue = DeckSchemaV2.CardQueue(rawValue: state.queue.rawValue) ?? .new
        card.due = state.due
        card.interval = state.interval
        card.easeFactor = state.easeFactor
        card.repetitions = state.reps
        card.lapses = state.lapses
        card.remainingSteps = state.remainingSteps
        card.stability = state.memory?.stability
        card.difficulty = state.memory?.difficulty
        card.desiredRetention = state.desiredRetention
        card.lastReview = state.lastReview
        card.originalPosition = state.originalPosition.map(Int64.init)
    }

    /// The scheduling preset of a deck's options (the defaults when it has none: FSRS-6,
    /// desired retention 0.9, steps 1m 10m, relearning 10m).
    /// - Throws: ``StudyError`` for steps or FSRS parameters the preset holds that can't be used.
    public static func preset(of deck: Deck?) throws -> SchedulingPreset {
        guard let preset = deck?.preset else { return .default }
        let options = try jsonObject(preset.ankiOptions, field: "ankiOptions", preset: preset.name)
        func option(_ key: String) -> Int? { (options[key] as? NSNumber)?.intValue }
        let weights = try numbers(preset.fsrsParameters, field: "fsrsParameters", preset: preset.name)
        let parameters: FSRSParameters
        do {
            parameters = try FSRSParameters(weights)
        } catch {
            throw StudyError("preset \(preset.name): fsrsParameters can't be used (\(error))")
        }
        return SchedulingPreset(
            name: preset.name, newCardsPerDay: preset.newPerDay, reviewsPerDay: preset.reviewsPerDay,
            learningSteps: try numbers(preset.learningSteps, field: "learningSteps", preset: preset.name),
            relearningSteps: try numbers(preset.relearningSteps, field: "relearningSteps", preset: preset.name),
            fsrsEnabled: preset.usesFSRS, fsrsParameters: parameters, desiredRetention: preset.desiredRetention,
            historicalRetention: (options["sm2Retention"] as? NSNumber)?.doubleValue ?? 0.9,
            maximumInterval: preset.maximumInterval, graduatingInterval: preset.graduatingInterval,
            easyInterval: preset.easyInterval, initialEase: Double(preset.startingEase) / 1000,
            easyMultiplier: preset.easyBonus, hardMultiplier: preset.hardMultiplier,
            intervalMultiplier: preset.intervalMultiplier, lapseMultiplier: preset.lapseMultiplier,
            minimumLapseInterval: preset.minimumLapseInterval, leechThreshold: preset.leechThreshold,
            leechAction: option("leechAction").flatMap(SchedulingPreset.LeechAction.init(rawValue:)) ?? .tagOnly,
            buryNew: preset.buryNewSiblings, buryReviews: preset.buryReviewSiblings,
            buryInterdayLearning: preset.buryInterdaySiblings,
            newCardOrder: option("newSortOrder").flatMap(SchedulingPreset.NewCardOrder.init(rawValue:)) ?? .template,
            newMix: option("newMix").flatMap(SchedulingPreset.Mix.init(rawValue:)) ?? .mixWithReviews,
            interdayLearningMix: option("interdayLearningMix").flatMap(SchedulingPreset.Mix.init(rawValue:)) ?? .mixWithReviews)
    }

    private static func json(_ text: String, field: String, preset: String) throws -> Any {
        do {
            return try JSONSerialization.jsonObject(with: Data(text.utf8))
        } catch {
            throw StudyError("preset \(preset): \(field) is not JSON")
        }
    }

    private static func jsonObject(_ text: String, field: String, preset: String) throws -> [String: Any] {
        guard let object = try json(text, field: field, preset: preset) as? [String: Any] else {
            throw StudyError("preset \(preset): \(field) is not a JSON object")
        }
        return object
    }

    private static func numbers(_ text: String, field: String, preset: String) throws -> [Double] {
        guard let array = try json(text, field: field, preset: preset) as? [Any] else {
            throw StudyError("preset \(preset): \(field) is not a JSON array of numbers")
        }
        return try array.map { value in
            guard let number = value as? NSNumber, number.doubleValue.isFinite else {
                throw StudyError("preset \(preset): \(field) holds \(value), not a number")
            }
            return number.doubleValue
        }
    }

    // MARK: Cards

    /// The card with id `id` (its row key), or nil: one row read, not a scan.
    public func card(_ id: Int64) throws -> Card? {
        guard let store = context.container.configurations.first?.name else { return nil }
        do {
            return try context.model(for: PersistentIdentifier(storeIdentifier: store, entityName: Card.entityName, primaryKey: id)) as? Card
        } catch PersistenceError.modelNotFound {
            return nil
        }
    }

    /// The card's question and answer as terminal text: rendered from its note type's template
    /// (cloze gaps, `{{FrontSide}}`, conditionals), HTML made plain, images and sounds named.
    public static func render(_ card: Card) -> (question: String, answer: String) {
        guard let note = card.note, let type = note.noteType else { return ("(the card has no note)", "") }
        let rendered = layout(of: type).render(ordinal: card.ordinal, fieldValues: note.fields,
                                               context: CardContext(tags: note.tags.map(\.name), deckName: card.deck?.name ?? "",
                                                                    flag: card.flag, cardID: card.id))
        return (FieldText.terminalText(fromHTML: rendered.question), FieldText.terminalText(fromHTML: rendered.answer))
    }

    /// The templates of a note type as ``render(_:)`` applies them.
    static func layout(of type: DeckSchemaV2.NoteType) -> NoteLayout {
        NoteLayout(
            name: type.name, kind: type.kind == .cloze ? .cloze : .standard,
            fieldNames: type.fields.sorted { $0.ordinal < $1.ordinal }.map(\.name),
            templates: type.templates.sorted { $0.ordinal < $1.ordinal }.map {
                CardLayout(name: $0.name, questionFormat: $0.questionFormat, answerFormat: $0.answerFormat)
            },
            css: type.css)
    }

    /// The four buttons for `card` shown at `time`: Again to Easy with their intervals.
    public func preview(_ card: Card, at time: Date) throws -> [Scheduler.ButtonPreview] {
        try scheduler().preview(Self.state(of: card), at: time, preset: Self.preset(of: card.deck), cardID: card.id)
    }

    /// Answers `card` with `rating` at `time`, `timeTaken` milliseconds after it was shown:
    /// its new state, a review row, the `leech` tag when it became one, siblings buried as its
    /// preset says, in one save (one undo group when the context records undo).
    /// - Returns: the scheduler's answer (the new state and the review row).
    /// - Throws: ``SchedulingError`` for a card that can't be answered (in a preview queue),
    ///   ``StudyError`` for a preset that can't be used, the store's error.
    @discardableResult
    public func answer(_ card: Card, rating: Rating, at time: Date, timeTaken: Int = 0) throws -> Scheduler.Answer {
        let preset = try Self.preset(of: card.deck)
        let before = Self.state(of: card)
        let answer = try scheduler().answer(before, rating: rating, at: time, preset: preset, cardID: card.id, timeTaken: timeTaken)
        context.beginUndoGrouping()
        defer { context.endUndoGrouping() }
        Self.apply(answer.state, to: card)
        card.modified = time
        let review = DeckSchemaV2.Review(time: answer.log.id, rating: answer.log.ease, interval: answer.log.interval,
                                         lastInterval: answer.log.lastInterval, easeFactor: answer.log.factor,
                                         duration: answer.log.time,
                                         kind: DeckSchemaV2.ReviewKind(rawValue: answer.log.kind.rawValue) ?? .review)
        context.insert(review)
        review.card = card
        var retagged: [DeckSchemaV2.Note] = []
        if answer.becameLeech, let note = card.note, !note.tags.contains(where: { $0.name.lowercased() == "leech" }) {
            let tag = try context.fetch(FetchDescriptor<DeckSchemaV2.Tag>()).first { $0.name.lowercased() == "leech" }
                ?? { let made = DeckSchemaV2.Tag(name: "leech"); context.insert(made); return made }()
            note.tags.append(tag)
            note.modified = time
            retagged.append(note)
        }
        let bury = SiblingBurying.queuesToBury(afterAnswering: before.queue, preset: preset)
        if !bury.isEmpty, let note = card.note {
            for sibling in note.cards where sibling.id != card.id {
                if let queue = CardQueue(rawValue: sibling.queue.rawValue), bury.contains(queue) {
                    sibling.queue = .buriedSibling
                    sibling.modified = time
                }
            }
        }
        // The leech tag is in the note's search index row too (`deck search tag:leech`, `check`).
        try DeckStoreV2.save(context, reindexing: retagged)
        return answer
    }

    // MARK: Queues

    /// The deck named `name` (full name, `::` between levels; case ignored), or nil.
    public func deck(named name: String) throws -> Deck? {
        let wanted = name.lowercased()
        return try context.fetch(FetchDescriptor<Deck>()).first { $0.name.lowercased() == wanted }
    }

    /// Today's queue of the deck named `deckName` and its subdecks (all decks when nil), built
    /// at `time` as Anki builds it: learning cards due now, reviews due today, new cards within
    /// the daily limits (less what the review log shows was done today), sibling burying.
    /// - Throws: ``StudyError`` for an unknown deck or an unusable preset; the store's error.
    public func queue(deck deckName: String? = nil, at time: Date) throws -> StudyQueue {
        let timing = try timing()
        var tree = try decks(in: deckName).filter { $0.kind == .normal }
        let root = try deckName.map { name in
            try tree.first { $0.name.lowercased() == name.lowercased() }?.id ?? { throw StudyError("no deck named \(name)") }()
        } ?? 0
        tree.sort { Self.rank($0.name) < Self.rank($1.name) }
        let today = timing.today(at: Int64(time.timeIntervalSince1970.rounded(.down)))
        let dayStart = (today.nextDayAt - 86_400) * 1000
        let done = try DeckStoreV2.reviewCounts(in: context.container, since: dayStart)
        var studyDecks = try tree.map { deck in
            StudyDeck(id: deck.id, parentID: parentID(of: deck, among: tree) ?? (deckName == nil ? 0 : nil),
                      preset: try Self.preset(of: deck), newStudiedToday: done[deck.id]?.new ?? 0,
                      reviewsStudiedToday: done[deck.id]?.reviews ?? 0)
        }
        if deckName == nil {
            // All decks: a root above the top-level decks whose own limits don't bind.
            let unbounded = SchedulingPreset(newCardsPerDay: Int.max / 4, reviewsPerDay: Int.max / 4)
            studyDecks.append(StudyDeck(id: 0, preset: studyDecks.first?.preset.withLimits(of: unbounded) ?? unbounded))
        }
        var builder = try StudyQueueBuilder(root: root, decks: studyDecks, timing: timing, at: time)
        // The candidate query of StudyQueueBuilder, phase by phase, streamed from the store's
        // (deck, queue, due) index: a phase ends as soon as the builder can take no more of it.
        let ids = tree.map(\.id)
        func feed(_ queues: [DeckSchemaV2.CardQueue], dueAtMost: Int64?, order: StudyScanOrder, kind: StudyQueueBuilder.Phase) throws {
            guard builder.accepts(kind) else { return }
            try DeckStoreV2.forEachStudyCard(in: context.container, decks: ids, queues: queues, dueAtMost: dueAtMost, order: order) { row in
                guard let queue = CardQueue(rawValue: row.queue.rawValue) else { return .next }
                let more = builder.add(StudyCandidate(id: row.id, noteID: row.note, deckID: row.deck, queue: queue, due: row.due,
                                                      reps: row.repetitions, templateIndex: row.ordinal))
                if !more || !builder.accepts(kind) { return .stop }
                return builder.accepts(kind, inDeck: row.deck) ? .next : .skipDeck
            }
        }
        try feed([.learning, .preview], dueAtMost: today.nextDayAt - 1, order: .dueAcrossDecks, kind: .intradayLearning)
        try feed([.dayLearning], dueAtMost: today.day, order: .dueAcrossDecks, kind: .interdayLearning)
        try feed([.review], dueAtMost: today.day, order: .dueAcrossDecks, kind: .review)
        try feed([.new], dueAtMost: nil, order: .deckByDeck, kind: .new)
        return builder.build()
    }

    /// The deck named `name` (case ignored) and its subdecks; every deck when `name` is nil.
    /// - Throws: ``StudyError`` when no deck has that name.
    private func decks(in name: String?) throws -> [Deck] {
        let all = try context.fetch(FetchDescriptor<Deck>())
        guard let name else { return all }
        let wanted = name.lowercased()
        let tree = all.filter { $0.name.lowercased() == wanted || $0.name.lowercased().hasPrefix(wanted + "::") }
        guard tree.contains(where: { $0.name.lowercased() == wanted }) else { throw StudyError("no deck named \(name)") }
        return tree
    }

    /// A deck's full name as Anki sorts deck names: levels separated by U+001F.
    static func rank(_ name: String) -> String {
        name.lowercased().replacingOccurrences(of: "::", with: "\u{1F}")
    }

    private func parentID(of deck: Deck, among decks: [Deck]) -> Int64? {
        guard let range = deck.name.range(of: "::", options: .backwards) else { return nil }
        let parent = deck.name[..<range.lowerBound].lowercased()
        return decks.first { $0.name.lowercased() == parent }?.id
    }

    /// The ids of the cards of the deck (and subdecks; all decks when nil) that are due at
    /// `time`, in the order study takes them by kind: learning cards due by then (by due time),
    /// interday learning and reviews due today (by due day), then new cards deck by deck in
    /// name order, by position. Read from the store's (deck, queue, due) index, no models;
    /// unsaved changes are not seen.
    /// - Throws: ``StudyError`` for an unknown deck; the store's error.
    public func dueCardIDs(deck deckName: String? = nil, at time: Date) throws -> [Int64] {
        var due: [Int64] = []
        for phase in try duePhases(deck: deckName, at: time) {
            try DeckStoreV2.forEachStudyCard(in: context.container, decks: phase.decks, queues: phase.queues,
                                             dueAtMost: phase.dueAtMost, order: phase.order) {
                due.append($0.id)
                return .next
            }
        }
        return due
    }

    /// The scans of ``dueCardIDs(deck:at:)``, in its order: learning cards due by `time`,
    /// interday learning and reviews due today, new cards.
    private func duePhases(deck deckName: String?, at time: Date) throws
        -> [(decks: [Int64], queues: [DeckSchemaV2.CardQueue], dueAtMost: Int64?, order: StudyScanOrder)] {
        let timing = try timing()
        let now = Int64(time.timeIntervalSince1970.rounded(.down))
        let today = timing.today(at: now)
        let ids = try decks(in: deckName).sorted { Self.rank($0.name) < Self.rank($1.name) }.map(\.id)
        return [(ids, [.learning, .preview], now, .dueAcrossDecks), (ids, [.dayLearning], today.day, .dueAcrossDecks),
                (ids, [.review], today.day, .dueAcrossDecks), (ids, [.new], nil, .deckByDeck)]
    }

    /// The cards ``dueCardIDs(deck:at:)`` lists, in its order, as ``DueCardRow``s (their
    /// scheduling state and note, read by the same index scans, no model): what lists the cards
    /// due on a deck of any size, in bounded memory (`deck due`). `body` returns false to stop.
    ///
    /// The card and note of each row read are checked against `check`'s value rules, and a
    /// row breaking one is refused naming `package` (``DeckStoreV2/forEachDueCard(in:deck:decks:queues:dueAtMost:order:_:)``);
    /// the settings are for the caller to check (``DeckDocument/verifyValues(_:)`` `.settings`).
    /// Unsaved changes are not seen.
    /// - Throws: ``StudyError`` for an unknown deck; that refusal; the store's error; what `body` throws.
    public func forEachDueCard(deck deckName: String? = nil, at time: Date, package: URL, _ body: (DueCardRow) throws -> Bool) throws {
        for phase in try duePhases(deck: deckName, at: time) {
            var stopped = false
            try DeckStoreV2.forEachDueCard(in: context.container, deck: package, decks: phase.decks, queues: phase.queues,
                                           dueAtMost: phase.dueAtMost, order: phase.order) { row in
                guard try body(row) else {
                    stopped = true
                    return .stop
                }
                return .next
            }
            if stopped { return }
        }
    }

    /// The cards ``dueCardIDs(deck:at:)`` lists, as models of the context.
    public func dueCards(deck deckName: String? = nil, at time: Date) throws -> [Card] {
        try dueCardIDs(deck: deckName, at: time).compactMap { try card($0) }
    }
}

/// Renders ``DueCardRow``s as ``DeckStudy/render(_:)`` renders cards, from the note types'
/// templates and the deck names, read once (a deck has few of them).
public struct DueCardRenderer {
    private let layouts: [Int64: NoteLayout]
    private let deckNames: [Int64: String]

    /// The renderer of the cards of `context`'s store.
    /// - Throws: the store's error.
    public init(context: ModelContext) throws {
        var layouts: [Int64: NoteLayout] = [:]
        for type in try context.fetch(FetchDescriptor<DeckSchemaV2.NoteType>()) {
            layouts[type.persistentModelID.primaryKey] = DeckStudy.layout(of: type)
        }
        var names: [Int64: String] = [:]
        for deck in try context.fetch(FetchDescriptor<DeckSchemaV2.Deck>()) { names[deck.id] = deck.name }
        self.layouts = layouts
        self.deckNames = names
    }

    /// The card's question as terminal text, as ``DeckStudy/render(_:)`` gives it (the note's
    /// tags in name order); the answer is left as it is rendered, not made text.
    public func question(_ row: DueCardRow) -> String {
        guard let type = row.noteType, let layout = layouts[type] else { return "(the card has no note)" }
        let context = CardContext(tags: row.tags, deckName: deckNames[row.study.deck] ?? "", flag: row.flag, cardID: row.id)
        return FieldText.terminalText(fromHTML: layout.render(ordinal: row.study.ordinal, fieldValues: row.fields, context: context).question)
    }
}

extension DeckSchemaV2.Deck {
    /// The deck's key in the store.
    var id: Int64 { persistentModelID.primaryKey }
}

extension SchedulingPreset {
    /// This preset with the daily limits of `other`.
    func withLimits(of other: SchedulingPreset) -> SchedulingPreset {
        var copy = self
        copy.newCardsPerDay = other.newCardsPerDay
        copy.reviewsPerDay = other.reviewsPerDay
        return copy
    }
}

/// A deck that can't be studied as asked: an unknown deck, a preset whose values can't be used.
public struct StudyError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

// MARK: Statistics

/// What `deck stats` shows of a deck: its counts, what is due today and this week, a due
/// forecast and the retention of the last days' reviews.
public struct DeckStudyStatistics: Sendable, Hashable {
    /// Cards by state, deck and note type; media.
    public var counts: DeckCardStatistics
    /// The first day of the forecast (the study day `at` falls in).
    public var today: SchedulingTiming.Today
    /// Cards due on each day from today: index 0 is today (overdue cards included).
    public var forecast: [Int]
    /// Answers of the last `retentionDays` days (today included; none after the day of the time asked for).
    public var retention: ReviewRetention
    public var retentionDays: Int

    /// Cards due by the end of today: learning, interday learning and reviews (new cards apart).
    public var dueToday: Int { forecast.first ?? 0 }
    /// Cards due by the end of the seventh day from today.
    public var dueThisWeek: Int { forecast.prefix(7).reduce(0, +) }
}

extension DeckStudy {
    /// The deck's statistics at `time`: counts, a forecast of `forecastDays` days, and the
    /// retention of the last `retentionDays` days, each from one aggregate query of the store
    /// (unsaved changes are not seen).
    /// - Throws: the store's error.
    public func statistics(at time: Date, forecastDays: Int = 30, retentionDays: Int = 30) throws -> DeckStudyStatistics {
        let today = try timing().today(at: Int64(time.timeIntervalSince1970.rounded(.down)))
        let container = context.container
        let since = (today.nextDayAt - Int64(max(retentionDays, 1)) * 86_400) * 1000
        return DeckStudyStatistics(
            counts: try DeckStoreV2.cardStatistics(in: container, today: today.day, nextDayAt: today.nextDayAt),
            today: today,
            forecast: try DeckStoreV2.dueForecast(in: container, today: today.day, nextDayAt: today.nextDayAt, days: forecastDays),
            retention: try DeckStoreV2.retention(in: container, from: since, to: today.nextDayAt * 1000), retentionDays: max(retentionDays, 1))
    }
}
