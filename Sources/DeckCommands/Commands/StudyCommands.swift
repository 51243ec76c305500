import ArgumentParsing
import DeckDocument
import Foundation
import Scheduling
import Study

/// `--at <time>`: when an answer is given or what is due, for scripts and tests.
struct StudyTimeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The time to act at: ISO 8601 (2026-12-01T09:30:00Z) or Unix seconds (default: now).", valueName: "time"))
    var at: String?
    @Flag(name: .customLong("no-fuzz"), help: "Give exact intervals (no random spread), as tests and comparisons need.")
    var noFuzz = false

    init() {}

    func validate() throws { _ = try time() }

    func time() throws -> Date { try Self.parse(at) }

    /// `at` as a time: ISO 8601 or Unix seconds; now when nil.
    static func parse(_ at: String?) throws -> Date {
        guard let at else { return Date() }
        if let seconds = Double(at), seconds.isFinite, abs(seconds) < 1e11 { return Date(timeIntervalSince1970: seconds) }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: at) { return date }
        }
        throw ValidationError("--at: '\(at.escapingControlCharacters())' is not a time (ISO 8601 such as 2026-12-01T09:30:00Z, or Unix seconds)")
    }

    var fuzz: Fuzz { noFuzz ? .off : .seeded }
}

/// A card's scheduling columns, as `deck review` and `deck due` print them: from a model or
/// from a row of the due scan.
struct CardStateColumns {
    var id: Int64
    var type: DeckSchemaV2.CardType
    var queue: DeckSchemaV2.CardQueue
    var due: Int64
    var interval: Int
    var repetitions: Int
    var lapses: Int
    var stability: Double?
    var difficulty: Double?

    init(_ card: DeckSchemaV2.Card) {
        self.init(id: card.id, type: card.type, queue: card.queue, due: card.due, interval: card.interval,
                  repetitions: card.repetitions, lapses: card.lapses, stability: card.stability, difficulty: card.difficulty)
    }

    init(_ row: DueCardRow) {
        self.init(id: row.id, type: row.type, queue: row.study.queue, due: row.study.due, interval: row.interval,
                  repetitions: row.study.repetitions, lapses: row.lapses, stability: row.stability, difficulty: row.difficulty)
    }

    init(id: Int64, type: DeckSchemaV2.CardType, queue: DeckSchemaV2.CardQueue, due: Int64, interval: Int, repetitions: Int,
         lapses: Int, stability: Double?, difficulty: Double?) {
        self.id = id
        self.type = type
        self.queue = queue
        self.due = due
        self.interval = interval
        self.repetitions = repetitions
        self.lapses = lapses
        self.stability = stability
        self.difficulty = difficulty
    }

    /// How `due` is read (docs/FORMAT.md, `Card.due`): by the queue, and for a suspended or
    /// buried card by its type (a learning card's due a time when above 1,000,000,000).
    enum DueMeaning { case position, time, day }

    var dueMeaning: DueMeaning {
        switch queue {
        case .new: return .position
        case .learning, .preview: return .time
        case .review, .dayLearning: return .day
        case .suspended, .buriedSibling, .buriedManually:
            switch type {
            case .new: return .position
            case .review: return .day
            case .learning, .relearning: return due > 1_000_000_000 ? .time : .day
            }
        }
    }
}

/// The JSON of a card's scheduling state that `deck review --json` and `deck due --json` print.
enum StudyJSON {
    static func stateName(_ card: CardStateColumns) -> String {
        switch card.queue {
        case .suspended: return "suspended"
        case .buriedSibling, .buriedManually: return "buried"
        default: break
        }
        switch card.type {
        case .new: return "new"
        case .learning: return "learning"
        case .review: return "review"
        case .relearning: return "relearning"
        }
    }

    /// When the card is due (ISO 8601, milliseconds): a learning card's due is a Unix time, a
    /// review's a day number; null for a new card (its due is its place in the new queue,
    /// ``position(_:)``) and for a day beyond the dates.
    static func due(_ card: CardStateColumns, timing: SchedulingTiming) -> String {
        switch card.dueMeaning {
        case .position: return "null"
        case .time: return JSONText.quoted(timestamp(card.due))
        case .day:
            let start = timing.today(at: timing.creation).nextDayAt - 86_400
            let (product, overflow) = card.due.multipliedReportingOverflow(by: 86_400)
            guard !overflow else { return "null" }
            let (sum, overflow2) = start.addingReportingOverflow(product)
            return overflow2 ? "null" : JSONText.quoted(timestamp(sum))
        }
    }

    /// A new card's position in the new queue (its `due`, lower first); null for other cards.
    static func position(_ card: CardStateColumns) -> String {
        card.dueMeaning == .position ? "\(card.due)" : "null"
    }

    /// What the text of `deck review` says of when the card is due: the date, or its position.
    static func dueText(_ card: CardStateColumns, timing: SchedulingTiming) -> String {
        card.dueMeaning == .position ? "position \(card.due)" : due(card, timing: timing).trimmingCharacters(in: ["\""])
    }

    static func timestamp(_ seconds: Int64) -> String {
        JSONText.date(Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return String(value)
    }

    static func card(_ card: CardStateColumns, timing: SchedulingTiming) -> String {
        "{\"card\": \(card.id), \"state\": \(JSONText.quoted(stateName(card))), \"stability\": \(number(card.stability)), "
            + "\"difficulty\": \(number(card.difficulty)), \"interval\": \(card.interval), \"due\": \(due(card, timing: timing)), "
            + "\"position\": \(position(card)), \"reps\": \(card.repetitions), \"lapses\": \(card.lapses)}"
    }
}

/// `deck review <deck> <card-id> <again|hard|good|easy>`
struct ReviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "Answer one card without a session.",
        discussion: """
            Answers the card as deck study would: its new state, memory state and due date are saved with a \
            review row, siblings are buried as the deck's preset says, and a card that lapsed too often is tagged \
            leech. Prints the card's next due time; with --json its new state as {"card", "state", "stability", \
            "difficulty", "interval", "due", "position", "reps", "lapses"} ("position" is a new card's place \
            in the new queue, null once answered).
            """,
        examples: [.init("Answer card 12 Good at a fixed time with exact intervals.",
                         command: "deck review French.sampledeck 12 good --at 2026-12-01T09:30:00Z --no-fuzz --json")])

    @Argument(help: ArgumentHelp("The deck.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The card to answer.", valueName: "card-id")) var cardID: Int64
    @Argument(help: ArgumentHelp("The answer: again, hard, good or easy (or 1-4).", valueName: "rating")) var ratingName: String
    @OptionGroup var time: StudyTimeOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    func validate() throws {
        guard Rating(name: ratingName) != nil else {
            throw ValidationError("'\(ratingName.escapingControlCharacters())' is not an answer: use again, hard, good or easy")
        }
    }

    mutating func run() async throws {
        let rating = try Rating(name: ratingName) ?? { throw ValidationError("not an answer") }()
        let at = try time.time()
        // One answer, one save: the rollback journal costs fewer disk syncs than a WAL turned on and off.
        let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy, writeAheadLog: false)
        // The rows the answer reads, not the whole deck: one answer stays fast on a deck of millions.
        try store.verifyValues(.card(cardID))
        let study = DeckStudy(context: store.document.mainContext, fuzz: time.fuzz)
        try StudyErrors.run(deck) {
            guard let card = try study.card(cardID) else {
                throw CommandFailure(.failure, path: deck, reason: "no card with id \(cardID)")
            }
            try study.answer(card, rating: rating, at: at)
            // The answer is saved; the manifest's `modified` says when the deck last changed.
            try store.document.save()
            let timing = try study.timing()
            let state = CardStateColumns(card)
            if output.json {
                Terminal.current.stdout.write(StudyJSON.card(state, timing: timing) + "\n")
            } else {
                output.say("card \(card.id): \(StudyJSON.stateName(state)), due \(StudyJSON.dueText(state, timing: timing))")
            }
        }
    }
}

/// `deck due <deck>`
struct DueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "due",
        abstract: "List the cards due now.",
        discussion: """
            Learning cards due by now, reviews due today, and new cards (which count as due), in the order \
            deck study takes them by kind. With --json an array of the cards' states, as deck review --json prints them. \
            The cards stream from the store's index as they are printed; each card listed and its note are checked \
            against the value rules of deck check (the rest of the deck is not read).
            """,
        examples: [.init("What is due tomorrow morning?", command: "deck due French.sampledeck --at 2026-12-02T08:00:00Z"),
                   .init("The next ten cards due.", command: "deck due French.sampledeck --limit 10")])

    @Argument(help: ArgumentHelp("The deck.", valueName: "deck")) var deck: String
    @Option(name: .customLong("deck"), help: ArgumentHelp("Only this deck of the tree and its subdecks (Languages::Japanese).", valueName: "name"))
    var subdeck: String?
    @Option(help: ArgumentHelp("At most this many cards.", valueName: "n")) var limit: Int?
    @OptionGroup var time: StudyTimeOptions
    @OptionGroup var output: OutputOptions

    init() {}

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be zero or more") }
    }

    mutating func run() async throws {
        let at = try time.time()
        let store = try OpenDeck.open(at: deck, readOnly: true)
        // The settings here; each card listed and its note as the scan reads them.
        try store.verifyValues(.settings)
        let study = DeckStudy(context: store.document.mainContext)
        let (json, quiet, maximum) = (output.json, output.quiet, limit ?? Int.max)
        try StudyErrors.run(deck) {
            let timing = try study.timing()
            let renderer = json || quiet ? nil : try DueCardRenderer(context: study.context)
            let out = Terminal.current.stdout
            var listed = 0
            if json { out.write("[") }
            // A value refused as the scan read it is named against the deck as typed.
            do {
                try study.forEachDueCard(deck: subdeck, at: at, package: store.document.url) { row in
                    guard listed < maximum else { return false }
                    let state = CardStateColumns(row)
                    if json {
                        out.write((listed == 0 ? "" : ", ") + StudyJSON.card(state, timing: timing))
                    } else if let renderer {
                        let question = renderer.question(row).split(separator: "\n").first.map(String.init) ?? ""
                        out.write("\(row.id)\t\(StudyJSON.stateName(state))\t\(question.escapingControlCharacters())\n")
                    }
                    listed += 1
                    return listed < maximum
                }
            } catch let error as DeckError where error.kind == .corrupt {
                throw CommandFailure(.dataError, path: deck, reason: error.reason)
            }
            if json { out.write("]\n") }
        }
    }
}

/// `deck study <deck>`
struct StudyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "study",
        abstract: "Study the cards due, one by one.",
        discussion: """
            Shows each card's question; Enter shows the answer and the four buttons with the interval each would \
            give. Answer with 1-4 or again, hard, good, easy; u undoes the last answer; q (or the end of input) \
            quits. Every answer is saved as it is given. Works through a pipe too: each line is one reply.
            """,
        examples: [.init("Study the Japanese subdeck, at most 20 cards.", command: "deck study Languages.sampledeck --deck Languages::Japanese --limit 20")])

    @Argument(help: ArgumentHelp("The deck.", valueName: "deck")) var deck: String
    @Option(name: .customLong("deck"), help: ArgumentHelp("Study this deck of the tree and its subdecks.", valueName: "name"))
    var subdeck: String?
    @Option(help: ArgumentHelp("Stop after this many answers.", valueName: "n")) var limit: Int?
    @OptionGroup var time: StudyTimeOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
        try store.verifyValues(.settings)
        let context = store.document.mainContext
        context.isUndoEnabled = true
        // Each card's rows are checked as it comes up, so the session starts at once on any deck.
        let source = DeckStudySource(study: DeckStudy(context: context, fuzz: time.fuzz), deck: subdeck,
                                     verify: { try store.verifyValues(.card($0)) })
        try StudyErrors.run(deck) {
            // --at moves the session's clock, which then runs on as the session goes.
            let offset = try time.time().timeIntervalSinceNow
            let outcome = try StudySession(source: source, limit: limit, clock: { Date().addingTimeInterval(offset) }).run()
            // Each answer was saved as it was given; the manifest's `modified` says when.
            if outcome.answered > 0 || outcome.undone > 0 { try store.document.save() }
        }
    }
}

/// The study session's cards from a deck: the queue rebuilt before each card (answers move
/// cards between queues), rendered with its note type's templates.
final class DeckStudySource: StudySource {
    let study: DeckStudy
    let deck: String?
    /// Refuses a card whose rows break the format's value rules, before it is read.
    let verify: (Int64) throws -> Void
    private var answered = 0

    init(study: DeckStudy, deck: String?, verify: @escaping (Int64) throws -> Void) {
        self.study = study
        self.deck = deck
        self.verify = verify
    }

    func next(at time: Date) throws -> StudyPrompt? {
        let queue = try study.queue(deck: deck, at: time)
        let now = Int64(time.timeIntervalSince1970.rounded(.down))
        guard let entry = queue.next(at: now) else { return nil }
        try verify(entry.cardID)
        guard let card = try study.card(entry.cardID) else { return nil }
        let text = DeckStudy.render(card)
        return StudyPrompt(card: card.id, deck: card.deck?.name ?? "", question: text.question, answer: text.answer,
                           buttons: try study.preview(card, at: time), counts: queue.counts(at: now))
    }

    func answer(_ prompt: StudyPrompt, rating: Rating, at time: Date, timeTaken: Int) throws {
        guard let card = try study.card(prompt.card) else { throw StudyError("card \(prompt.card) is gone") }
        try study.answer(card, rating: rating, at: time, timeTaken: timeTaken)
        answered += 1
    }

    func undo() throws -> Bool {
        guard answered > 0, study.context.canUndo else { return false }
        study.context.undo()
        try study.context.save()
        answered -= 1
        return true
    }
}

/// Study and scheduling errors as command failures.
enum StudyErrors {
    static func run<T>(_ deck: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StudyError {
            throw CommandFailure(.dataError, path: deck, reason: error.message)
        } catch let error as SchedulingError {
            throw CommandFailure(.dataError, path: deck, reason: error.description)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw ErrorMapping.map(error, path: deck)
        }
    }
}
