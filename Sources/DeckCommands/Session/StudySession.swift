import ArgumentParsing
import Foundation
import Scheduling

/// What a study session needs from a deck: the card to show next, the answer to record, the
/// answer to take back. The deck's implementation builds the queue with `StudyQueueBuilder`,
/// renders the card from its note's template and answers with `Scheduler`, saving each answer
/// in one transaction (so quitting at any moment keeps every answer given).
protocol StudySource: AnyObject {
    /// The next card due at `time`, rendered, with its buttons and the counts left; `nil` when
    /// nothing more is due today.
    func next(at time: Date) throws -> StudyPrompt?
    /// Records `rating` for the card of `prompt`, answered at `time` after `timeTaken`
    /// milliseconds on it; saved before returning.
    func answer(_ prompt: StudyPrompt, rating: Rating, at time: Date, timeTaken: Int) throws
    /// Takes back the last answer of this session; `false` when there is none.
    func undo() throws -> Bool
}

/// One card as a study session shows it.
struct StudyPrompt: Sendable, Hashable {
    /// The card's id (what `deck review` takes).
    var card: Int64
    /// Where it is from: the deck's full name (`Languages::Japanese`).
    var deck: String
    /// The question and the answer as terminal text (HTML made plain, images and sounds
    /// named, cloze gaps shown as `[...]`).
    var question: String
    var answer: String
    /// The four buttons, Again to Easy, with their next intervals.
    var buttons: [Scheduler.ButtonPreview]
    /// The cards left, this one included.
    var counts: StudyQueue.Counts
}

/// `deck study`: shows each due card's question, reveals its answer on Enter, and takes
/// `1`–`4` or `again`/`hard`/`good`/`easy`; `u` (undo) takes back the last answer, `q`
/// (quit) or the end of input leaves with every answer kept. Line-based, so it works on a
/// terminal and through a pipe alike (a script can feed it answers).
final class StudySession {
    private let source: any StudySource
    private let terminal: Terminal
    private let limit: Int?
    private let clock: () -> Date
    /// The longest time counted for one answer (Anki's default "maximum answer seconds").
    static let maximumAnswerMilliseconds = 60_000

    /// How the session ended.
    struct Outcome: Sendable, Hashable {
        var answered: Int
        var undone: Int
        var finished: Bool
    }

    init(source: any StudySource, limit: Int? = nil, terminal: Terminal = .current, clock: @escaping () -> Date = Date.init) {
        self.source = source
        self.limit = limit
        self.terminal = terminal
        self.clock = clock
    }

    /// Runs the session until nothing is due, the limit is reached, `quit` or end of input.
    func run() throws -> Outcome {
        var outcome = Outcome(answered: 0, undone: 0, finished: false)
        while limit.map({ outcome.answered - outcome.undone < $0 }) ?? true {
            guard let prompt = try source.next(at: clock()) else {
                say("Nothing more is due now: \(outcome.answered - outcome.undone) answered this session.")
                // The last answer can still be taken back; anything else ends the session.
                if outcome.answered > outcome.undone,
                   case .undo = try ask("u undoes the last answer; Enter quits> ", accepting: []) {
                    if try undo() { outcome.undone += 1 }
                    continue
                }
                outcome.finished = true
                return outcome
            }
            let shownAt = clock()
            say(countsLine(prompt))
            say(indented(prompt.question, marker: "Q"))
            switch try ask("Enter shows the answer (u undo, q quit)> ", accepting: ["", "show", "s", " "]) {
            case .quit: return outcome
            case .undo:
                if try undo() { outcome.undone += 1 }
                continue
            case .word, .rating: break
            }
            say(indented(prompt.answer, marker: "A"))
            say(buttonsLine(prompt))
            answering: while true {
                switch try ask("1 again, 2 hard, 3 good, 4 easy (u undo, q quit)> ", accepting: []) {
                case .quit: return outcome
                case .undo:
                    if try undo() { outcome.undone += 1 }
                    break answering
                case .rating(let rating):
                    let now = clock()
                    let taken = min(Self.maximumAnswerMilliseconds, max(0, Int(now.timeIntervalSince(shownAt) * 1000)))
                    try source.answer(prompt, rating: rating, at: now, timeTaken: taken)
                    outcome.answered += 1
                    break answering
                case .word(let word):
                    say("'\(word.escapingControlCharacters())' is not an answer: type 1-4 or again, hard, good, easy")
                }
            }
        }
        say("Reached the limit of \(limit ?? 0) card\(limit == 1 ? "" : "s").")
        return outcome
    }

    private enum Reply { case quit, undo, rating(Rating), word(String) }

    private func ask(_ prompt: String, accepting words: Set<String>) throws -> Reply {
        terminal.stdout.write(prompt)
        try? terminal.stdout.flush()
        let line: String?
        do { line = try terminal.stdin.readLine() } catch {
            throw CommandFailure(.ioError, path: "-", reason: "cannot read standard input (\(error.message))")
        }
        guard let line else {
            terminal.stdout.write("\n")
            return .quit
        }
        if !terminal.stdin.isTerminal { terminal.stdout.write(line + "\n") }
        let word = line.trimmingCharacters(in: .whitespaces).lowercased()
        switch word {
        case "q", "quit", "exit": return .quit
        case "u", "undo": return .undo
        default:
            if words.contains(word) { return .word(word) }
            if let rating = Rating(name: word) { return .rating(rating) }
            return .word(word)
        }
    }

    private func undo() throws -> Bool {
        if try source.undo() {
            say("Undid the last answer.")
            return true
        }
        say("Nothing to undo.")
        return false
    }

    private func say(_ text: String) { terminal.stdout.write(text + "\n") }

    /// `Languages::Japanese  new 12 · learning 3 · review 40`.
    func countsLine(_ prompt: StudyPrompt) -> String {
        "\(prompt.deck.escapingControlCharacters())  new \(prompt.counts.new) · learning \(prompt.counts.learning) · review \(prompt.counts.review)"
    }

    /// `1 Again <1m   2 Hard <6m   3 Good <10m   4 Easy 4d`.
    func buttonsLine(_ prompt: StudyPrompt) -> String {
        prompt.buttons.map { "\($0.rating.rawValue) \($0.rating.name.capitalized) \($0.label)" }.joined(separator: "   ")
    }

    /// The card text under a `Q:`/`A:` marker, every line indented, control characters escaped.
    func indented(_ text: String, marker: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).escapingControlCharacters() }
        return ([marker + ": " + (lines.first ?? "")] + lines.dropFirst().map { "   " + $0 }).joined(separator: "\n")
    }
}
