import Foundation
import Testing
import Scheduling

/// The scheduler's own rules, in process (the peers check the numbers at scale).
@Suite struct SchedulerTests {
    static let creation: Int64 = 1_767_585_600 // 2026-01-05 04:00 UTC
    let scheduler = Scheduler(timing: SchedulingTiming(creation: creation, rolloverHour: 4), fuzz: .off)

    func at(day: Int64, hour: Int64, minute: Int64 = 0) -> Date {
        Date(timeIntervalSince1970: TimeInterval(Self.creation + day * 86_400 + (hour - 4) * 3600 + minute * 60))
    }

    @Test func parametersAreValidatedAndOlderSetsConverted() throws {
        #expect(throws: SchedulingError.self) { try FSRSParameters([1, 2, 3]) }
        #expect(throws: SchedulingError.self) { try FSRSParameters(Array(repeating: .nan, count: 21)) }
        #expect(try FSRSParameters([]) == .default)
        let fsrs5 = try FSRSParameters(Array(FSRSParameters.default.weights.prefix(19)))
        #expect(fsrs5.weights[20] == 0.5 && fsrs5.weights.count == 21)
    }

    @Test func firstAnswersUseTheInitialWeights() {
        let fsrs = FSRS()
        let good = fsrs.initialState(rating: .good)
        #expect(good.stability == 2.3065)
        #expect(abs(good.difficulty - (6.4133 - exp(0.8334 * 2) + 1)) < 1e-12)
        // With decay 0.1542, stability is the 90 % interval.
        #expect(abs(fsrs.interval(stability: 10, desiredRetention: 0.9) - 10) < 1e-9)
        #expect(abs(fsrs.retrievability(elapsedDays: 10, stability: 10) - 0.9) < 1e-12)
    }

    @Test func dayBoundaryFollowsTheRolloverHour() {
        let timing = SchedulingTiming(creation: Self.creation, rolloverHour: 4)
        #expect(timing.today(at: Self.creation).day == 0)
        #expect(timing.today(at: Self.creation - 1).day == 0) // before the creation day's rollover
        #expect(timing.today(at: Self.creation + 86_399).day == 0)
        #expect(timing.today(at: Self.creation + 86_400).day == 1)
        #expect(timing.today(at: Self.creation + 3600).nextDayAt == Self.creation + 86_400)
        let east = SchedulingTiming(creation: Self.creation, utcOffset: 3600, rolloverHour: 4)
        #expect(east.today(at: Self.creation).nextDayAt == Self.creation + 86_400 - 3600)
    }

    /// The offset DeckStudy uses by default is the C library's (no ICU load); it must be the
    /// one Foundation's `TimeZone.current` gives, at every moment of a year (DST included,
    /// where this machine's zone has it) and at dates far from now.
    @Test func localOffsetIsTheCurrentTimeZones() {
        let zone = TimeZone.current
        let moments = (0..<53).map { Int64(1_767_225_600) + $0 * 7 * 86_400 + 13 * 3600 } // 2026, weekly
            + [0, 946_684_800, 2_147_483_647, 4_102_444_800]
        for moment in moments {
            #expect(SchedulingTiming.localUTCOffset(at: time_t(moment))
                        == zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(moment))),
                    "at \(moment) in \(zone.identifier)")
        }
    }

    @Test func aNewCardWalksTheLearningSteps() throws {
        var card = CardSchedulingState.new(position: 7)
        let labels = try scheduler.preview(card, at: at(day: 1, hour: 10), preset: .default, cardID: 1).map(\.label)
        #expect(labels == ["<1m", "<6m", "<10m", "8d"])
        let first = try scheduler.answer(card, rating: .good, at: at(day: 1, hour: 10), preset: .default, cardID: 1)
        card = first.state
        #expect(card.type == .learning && card.queue == .learning && card.remainingSteps == 1)
        #expect(card.due == Int64(at(day: 1, hour: 10).timeIntervalSince1970) + 600)
        #expect(card.originalPosition == 7 && card.reps == 1)
        #expect(first.log.interval == -600 && first.log.lastInterval == 0 && first.log.kind == .learning && first.log.ease == 3)
        let second = try scheduler.answer(card, rating: .good, at: at(day: 1, hour: 10, minute: 10), preset: .default, cardID: 1)
        #expect(second.state.type == .review && second.state.queue == .review)
        #expect(second.state.due == 1 + Int64(second.state.interval) && second.state.interval >= 1)
        #expect(second.log.interval == second.state.interval && second.log.lastInterval == -600)
    }

    @Test func sm2FollowsAnkisEaseRules() throws {
        let review = CardSchedulingState(type: .review, queue: .review, due: 10, interval: 10, easeFactor: 2500, reps: 5)
        let now = at(day: 10, hour: 12)
        let previews = try scheduler.preview(review, at: now, preset: .sm2, cardID: 1)
        #expect(previews.map { $0.intervalSeconds / 86_400 } == [0, 12, 25, 33])
        #expect(previews.map(\.label) == ["<10m", "12d", "25d", "1.1mo"])
        let lapse = try scheduler.answer(review, rating: .again, at: now, preset: .sm2, cardID: 1)
        #expect(lapse.state.type == .relearning && lapse.state.lapses == 1 && lapse.state.easeFactor == 2300)
        #expect(lapse.state.interval == 1) // new interval 0 × 10, at least the minimum 1
        #expect(lapse.log.kind == .review && lapse.log.factor == 2300)
        let easy = try scheduler.answer(review, rating: .easy, at: now, preset: .sm2, cardID: 1)
        #expect(easy.state.easeFactor == 2650 && easy.state.interval == 33)
    }

    @Test func leechesAreFlaggedAtTheThresholdAndEveryHalfAfter() throws {
        var preset = SchedulingPreset.sm2
        preset.leechAction = .suspend
        preset.leechThreshold = 4
        var leeched: [Int] = []
        for lapses in 3...8 {
            let card = CardSchedulingState(type: .review, queue: .review, due: 10, interval: 5, easeFactor: 2500, reps: 9, lapses: lapses)
            let answer = try scheduler.answer(card, rating: .again, at: at(day: 10, hour: 12), preset: preset)
            if answer.becameLeech {
                leeched.append(answer.state.lapses)
                #expect(answer.state.queue == .suspended)
            }
        }
        #expect(leeched == [4, 6, 8])
    }

    @Test func fuzzStaysWithinAnkisRange() throws {
        let fuzzed = Scheduler(timing: scheduler.timing, fuzz: .seeded)
        let review = CardSchedulingState(type: .review, queue: .review, due: 100, interval: 100, easeFactor: 2500, reps: 5)
        var seen = Set<Int>()
        for id in 1...200 {
            let state = try fuzzed.answer(review, rating: .good, at: at(day: 100, hour: 12), preset: .sm2, cardID: Int64(id)).state
            seen.insert(state.interval)
        }
        // 250 days ± (1 + 0.15·4.5 + 0.1·13 + 0.05·230) = ±14.475.
        #expect(seen.min()! >= 236 && seen.max()! <= 264 && seen.count > 10)
    }

    @Test func labelsReadAsAnkisButtons() {
        #expect(IntervalLabel.answerButton(seconds: 0, collapseBelow: 1200) == "(end)")
        #expect(IntervalLabel.answerButton(seconds: 45, collapseBelow: 0) == "45s")
        #expect(IntervalLabel.answerButton(seconds: 5400, collapseBelow: 1200) == "1.5h")
        #expect(IntervalLabel.answerButton(seconds: 86_400 * 96, collapseBelow: 1200) == "3.2mo")
        #expect(IntervalLabel.answerButton(seconds: 86_400 * 400, collapseBelow: 1200) == "1.1y")
    }
}
