import ArgumentParsing
@testable import DeckCommands
import Foundation
import Scheduling
import Testing

/// A deck in memory, answered through the real scheduler: cards are due when their state says
/// so, answers and undo change the states, as the store's source does.
private final class MemorySource: StudySource {
    struct Card { var id: Int64; var question: String; var answer: String; var state: CardSchedulingState }
    var cards: [Card]
    var answers: [(card: Int64, rating: Rating, timeTaken: Int, before: CardSchedulingState)] = []
    let scheduler = Scheduler(timing: SchedulingTiming(creation: 1_764_547_200), fuzz: .off)

    init(_ cards: [(String, String)]) {
        self.cards = cards.enumerated().map { index, text in
            Card(id: Int64(index + 1), question: text.0, answer: text.1,
                 state: CardSchedulingState(type: .new, queue: .new, due: Int64(index)))
        }
    }

    func isDue(_ card: Card, at time: Date) -> Bool {
        switch card.state.queue {
        case .new: true
        case .learning: card.state.due <= Int64(time.timeIntervalSince1970)
        default: false
        }
    }

    func next(at time: Date) throws -> StudyPrompt? {
        let due = cards.filter { isDue($0, at: time) }
        guard let card = due.first(where: { $0.state.queue == .learning }) ?? due.first else { return nil }
        return StudyPrompt(card: card.id, deck: "Default", question: card.question, answer: card.answer,
                           buttons: try scheduler.preview(card.state, at: time, preset: .default, cardID: card.id),
                           counts: .init(new: due.filter { $0.state.queue == .new }.count,
                                         learning: due.filter { $0.state.queue == .learning }.count, review: 0))
    }

    func answer(_ prompt: StudyPrompt, rating: Rating, at time: Date, timeTaken: Int) throws {
        let index = try #require(cards.firstIndex { $0.id == prompt.card })
        answers.append((prompt.card, rating, timeTaken, cards[index].state))
        cards[index].state = try scheduler.answer(cards[index].state, rating: rating, at: time, preset: .default,
                                                  cardID: prompt.card, timeTaken: timeTaken).state
    }

    func undo() throws -> Bool {
        guard let last = answers.popLast(), let index = cards.firstIndex(where: { $0.id == last.card }) else { return false }
        cards[index].state = last.before
        return true
    }
}

@Suite struct StudySessionTests {
    /// A clock that moves on a second at each reading.
    final class Clock: @unchecked Sendable {
        var now = Date(timeIntervalSince1970: 1_764_590_400)
        func read() -> Date {
            now += 1
            return now
        }
    }

    @Test func aPipedSessionShowsQuestionThenAnswerWithButtonsAndRecordsEachRating() throws {
        let source = MemorySource([("chat", "cat"), ("chien", "dog")])
        let clock = Clock()
        let (terminal, output, _) = Terminal.capturing(input: Array("\n3\n\nagain\nq\n".utf8))
        let outcome = try StudySession(source: source, terminal: terminal, clock: clock.read).run()
        #expect(outcome == .init(answered: 2, undone: 0, finished: true), "both cards are learning, due in minutes")
        #expect(source.answers.map(\.rating) == [.good, .again])
        #expect(source.answers.map(\.card) == [1, 2])
        #expect(source.answers.allSatisfy { $0.timeTaken == 1000 }, "the time from the question to the answer")
        let text = output.text
        let question = try #require(text.range(of: "Q: chat"))
        let answer = try #require(text.range(of: "A: cat"))
        #expect(question.upperBound <= answer.lowerBound, "the answer only after Enter")
        #expect(text.contains("Default  new 2 · learning 0 · review 0"))
        #expect(text.contains("1 Again <1m   2 Hard <6m   3 Good <10m   4 Easy 8d"), "FSRS-6 defaults: \(text)")
        #expect(text.contains("Q: chien"))
        #expect(source.cards[0].state.queue == .learning && source.cards[1].state.queue == .learning)
    }

    @Test func undoTakesBackTheLastAnswerAndShowsTheCardAgain() throws {
        let source = MemorySource([("uno", "one")])
        let (terminal, output, _) = Terminal.capturing(input: Array("\n4\nu\n\n2\n\n".utf8))
        let outcome = try StudySession(source: source, terminal: terminal, clock: Clock().read).run()
        #expect(outcome.answered == 2 && outcome.undone == 1)
        #expect(source.answers.map(\.rating) == [.hard], "the easy answer was undone")
        #expect(output.text.contains("Undid the last answer."))
        #expect(output.text.components(separatedBy: "Q: uno").count == 3, "shown, undone, shown again: \(output.text)")
        #expect(source.cards[0].state.queue == .learning)
    }

    @Test func endOfInputQuitsKeepingEveryAnswerAndNothingDueFinishes() throws {
        let source = MemorySource([("a", "b")])
        let (terminal, _, _) = Terminal.capturing(input: Array("\n4\n\n".utf8))
        let outcome = try StudySession(source: source, terminal: terminal, clock: Clock().read).run()
        #expect(outcome == .init(answered: 1, undone: 0, finished: true), "easy graduates the only card: nothing more today")
        #expect(source.cards[0].state.queue == .review)

        let (again, output, _) = Terminal.capturing(input: Array("\n".utf8))
        let unfinished = MemorySource([("x", "y")])
        let ended = try StudySession(source: unfinished, terminal: again, clock: Clock().read).run()
        #expect(ended == .init(answered: 0, undone: 0, finished: false))
        #expect(unfinished.answers.isEmpty)
        #expect(output.text.contains("A: y"))
    }

    @Test func aWrongAnswerIsExplainedAndAskedAgainAndTheLimitStops() throws {
        let source = MemorySource([("a", "b"), ("c", "d"), ("e", "f")])
        let (terminal, output, _) = Terminal.capturing(input: Array("\nmaybe\n3\n\n3\n\n3\n".utf8))
        let outcome = try StudySession(source: source, limit: 2, terminal: terminal, clock: Clock().read).run()
        #expect(outcome.answered == 2)
        #expect(output.text.contains("'maybe' is not an answer: type 1-4 or again, hard, good, easy"))
        #expect(output.text.contains("Reached the limit of 2 cards."))
        #expect(!output.text.contains("Q: e"))
    }

    @Test func cardTextIsEscapedAndIndented() throws {
        let source = MemorySource([("line one\nline two \u{1B}[31mred", "ok")])
        let (terminal, output, _) = Terminal.capturing(input: Array("q\n".utf8))
        _ = try StudySession(source: source, terminal: terminal, clock: Clock().read).run()
        #expect(output.text.contains("Q: line one\n   line two \\x1B[31mred"), "\(output.text)")
        #expect(!output.text.contains("\u{1B}"))
    }
}
