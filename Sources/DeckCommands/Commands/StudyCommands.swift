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

/// The JSON of a card's scheduling state that `deck review --json` and `deck due --json` print.
enum StudyJSON {
    static func stateName(_ card: DeckSchemaV2.Card) -> String {
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

    /// A new card's due is its position; a learning card's a Unix time; a review's a day number:
    /// given as a position for new cards and as a time (ISO 8601, milliseconds) otherwise.
    static func due(_ card: DeckSchemaV2.Card, timing: SchedulingTiming) -> String {
        switch card.queue {
        case .new: return "\(card.due)"
        case .learning, .preview: return JSONText.quoted(timestamp(card.due))
        default:
            let start = timing.today(at: timing.creation).nextDayAt - 86_400
            let (product, overflow) = card.due.multipliedReportingOverflow(by: 86_400)
            guard !overflow else { return "null" }
            let (sum, overflow2) = start.addingReportingOverflow(product)
            return overflow2 ? "null" : JSONText.quoted(timestamp(sum))
        }
    }

    static func timestamp(_ seconds: Int64) -> String {
        JSONText.date(Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return String(value)
    }

    static func card(_ card: DeckSchemaV2.Card, timing: SchedulingTiming) -> String {
        "{\"card\": \(card.id), \"state\": \(JSONText.quoted(stateName(card))), \"stability\": \(number(card.stability)), "
            + "\"difficulty\": \(number(card.difficulty)), \"interval\": \(card.interval), \"due\": \(due(card, timing: timing)), "
            + "\"reps\": \(card.repetitions), \"lapses\": \(card.lapses)}"
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
            "difficulty", "interval", "due", "reps", "lapses"}.
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
            if output.json {
                Terminal.current.stdout.write(StudyJSON.card(card, timing: timing) + "\n")
            } else {
                output.say("card \(card.id): \(StudyJSON.stateName(card)), due \(StudyJSON.due(card, timing: timing).trimmingCharacters(in: ["\""]))")
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
            deck study takes them by kind. With --json an array of the cards' states, as deck review --json prints them.
            """,
        examples: [.init("What is due tomorrow morning?", command: "deck due French.sampledeck --at 2026-12-02T08:00:00Z")])

    @Argument(help: ArgumentHelp("The deck.", valueName: "deck")) var deck: String
    @Option(name: .customLong("deck"), help: ArgumentHelp("Only this deck of the tree and its subdecks (Languages::Japanese).", valueName: "name"))
    var subdeck: String?
    @OptionGroup var time: StudyTimeOptions
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func run() async throws {
        let at = try time.time()
        let store = try OpenDeck.open(at: deck, readOnly: true)
        try store.verifyValues()
        let study = DeckStudy(context: store.document.mainContext)
        try StudyErrors.run(deck) {
            let cards = try study.dueCards(deck: subdeck, at: at)
            let timing = try study.timing()
            if output.json {
                Terminal.current.stdout.write("[" + cards.map { StudyJSON.card($0, timing: timing) }.joined(separator: ", ") + "]\n")
            } else if !output.quiet {
                for card in cards {
                    let question = DeckStudy.render(card).question.split(separator: "\n").first.map(String.init) ?? ""
                    Terminal.current.stdout.write("\(card.id)\t\(StudyJSON.stateName(card))\t\(question.escapingControlCharacters())\n")
                }
            }
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
