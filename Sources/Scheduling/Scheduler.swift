import Foundation

/// Answers cards and previews their next intervals as Anki's v3 scheduler does, with FSRS-6 or
/// SM-2 as the preset says.
///
/// A scheduler holds the day boundary, the learn-ahead limit and the fuzz source; the card state
/// and the preset are plain values passed to each call, so one scheduler serves every deck and
/// nothing is stored. An answer costs a few microseconds and allocates nothing but its result.
///
/// ```swift
/// let scheduler = Scheduler(timing: SchedulingTiming(creation: collectionCreated, rolloverHour: 4))
/// let answer = try scheduler.answer(card.state, rating: .good, at: .now, preset: .default, cardID: card.id)
/// // store answer.state in the card's row and answer.log as a review-log row, in one save
/// ```
public struct Scheduler: Sendable {
    /// The day boundary.
    public var timing: SchedulingTiming
    /// How far ahead intraday learning cards may be shown, and below which an answer button's
    /// label gets a `<` (Anki's "learn ahead limit", 20 minutes).
    public var learnAheadSeconds: Int
    /// Interval fuzz (``Fuzz/seeded`` unless told; ``Fuzz/off`` for tests).
    public var fuzz: Fuzz

    /// A scheduler.
    public init(timing: SchedulingTiming, learnAheadSeconds: Int = 1200, fuzz: Fuzz = .seeded) {
        self.timing = timing
        self.learnAheadSeconds = learnAheadSeconds
        self.fuzz = fuzz
    }

    /// The outcome of answering a card.
    public struct Answer: Sendable, Hashable {
        /// The card's new scheduling state.
        public var state: CardSchedulingState
        /// The review-log row to add.
        public var log: ReviewLogEntry
        /// Whether this answer made the card a leech: tag its note `leech` (the state is already
        /// suspended when the preset says so).
        public var becameLeech: Bool
    }

    /// One answer button's outcome, without answering.
    public struct ButtonPreview: Sendable, Hashable {
        /// The button.
        public var rating: Rating
        /// The state the card would get.
        public var state: CardSchedulingState
        /// The interval until the card is due again, in seconds (days × 86,400 for day intervals).
        public var intervalSeconds: Int
        /// The button's label as Anki shows it: `<1m`, `<10m`, `1d`, `3.2mo`, `(end)`.
        public var label: String
    }

    /// Answers a card.
    ///
    /// - Parameters:
    ///   - state: the card's state before the answer.
    ///   - rating: the button.
    ///   - time: when the card was answered (the review log's id is this time in milliseconds).
    ///   - preset: the preset of the card's home deck.
    ///   - cardID: the card's id, which seeds the fuzz (with `state.reps`).
    ///   - timeTaken: milliseconds spent on the card, for the review log.
    /// - Throws: ``SchedulingError/cannotAnswer(_:)`` for a card in a filtered deck's preview queue.
    public func answer(_ state: CardSchedulingState, rating: Rating, at time: Date, preset: SchedulingPreset,
                       cardID: Int64 = 0, timeTaken: Int = 0) throws -> Answer {
        let millis = Int64((time.timeIntervalSince1970 * 1000).rounded())
        let context = try prepare(state, at: millis / 1000, preset: preset, cardID: cardID)
        let next = context.next[rating]
        let (newState, log) = apply(next, to: state, context: context, rating: rating, millis: millis, timeTaken: timeTaken)
        return Answer(state: newState, log: log, becameLeech: next.leeched)
    }

    /// The outcome of each button, with Anki's labels, for a card shown at `time`.
    public func preview(_ state: CardSchedulingState, at time: Date, preset: SchedulingPreset,
                        cardID: Int64 = 0) throws -> [ButtonPreview] {
        let millis = Int64((time.timeIntervalSince1970 * 1000).rounded())
        let context = try prepare(state, at: millis / 1000, preset: preset, cardID: cardID)
        return Rating.allCases.map { rating in
            let next = context.next[rating]
            let (newState, _) = apply(next, to: state, context: context, rating: rating, millis: millis, timeTaken: 0)
            let seconds = next.interval.asDaysIfPast(rollover: context.secsUntilRollover).seconds
            return ButtonPreview(rating: rating, state: newState, intervalSeconds: seconds,
                                 label: IntervalLabel.answerButton(seconds: seconds, collapseBelow: learnAheadSeconds))
        }
    }

    /// The FSRS memory state the card would get from each answer at `time`, or `nil` under SM-2.
    public func memoryStates(_ state: CardSchedulingState, at time: Date, preset: SchedulingPreset) -> FSRSNextStates? {
        guard preset.fsrsEnabled else { return nil }
        let now = Int64(time.timeIntervalSince1970.rounded(.down))
        return fsrsNextStates(state, today: timing.today(at: now), preset: preset)
    }

    // MARK: Inside

    struct Context {
        var current: NormalState
        var next: NextNormalStates
        var today: SchedulingTiming.Today
        var now: Int64
        var secsUntilRollover: Int
        var fuzzFactor: Double?
        var desiredRetention: Double?
        var leechAction: SchedulingPreset.LeechAction
    }

    private func fsrsNextStates(_ state: CardSchedulingState, today: SchedulingTiming.Today, preset: SchedulingPreset) -> FSRSNextStates {
        let fsrs = FSRS(parameters: preset.fsrsParameters)
        var memory = state.memory
        if memory == nil, state.type == .review || state.type == .relearning, state.interval > 0 {
            let ease = state.easeFactor > 0 ? Double(state.easeFactor) / 1000 : preset.initialEase
            memory = fsrs.memoryStateFromSM2(easeFactor: ease, interval: Double(state.interval), retention: preset.historicalRetention)
        }
        let elapsed = state.lastReview.map { max(0, today.nextDayAt - $0) / 86_400 } ?? 0
        return fsrs.nextStates(state.type == .new ? nil : memory, desiredRetention: preset.desiredRetention,
                               elapsedDays: Int(clamping: elapsed))
    }

    private func prepare(_ state: CardSchedulingState, at now: Int64, preset: SchedulingPreset, cardID: Int64) throws -> Context {
        guard state.queue != .preview else { throw SchedulingError.cannotAnswer("it is being previewed in a filtered deck") }
        let today = timing.today(at: now)
        let learn = LearningSteps(preset.learningSteps)
        let relearn = LearningSteps(preset.relearningSteps)
        let remaining = max(0, state.remainingSteps) % 1000
        let ease = Float(state.easeFactor) / 1000
        let memory = preset.fsrsEnabled ? state.memory : nil
        let current: NormalState
        switch state.type {
        case .new:
            current = .new(position: max(0, state.due))
        case .learning:
            current = .learning(LearnState(remaining: remaining, scheduledSecs: learn.currentDelay(remaining), memory: memory))
        case .review:
            let due = min(state.due, today.day)
            current = .review(ReviewState(scheduledDays: state.interval,
                                          elapsedDays: max(0, state.interval - Int(due - today.day)),
                                          ease: ease, lapses: state.lapses, memory: memory))
        case .relearning:
            current = .relearning(LearnState(remaining: remaining, scheduledSecs: relearn.currentDelay(remaining), memory: memory),
                                  ReviewState(scheduledDays: state.interval, elapsedDays: state.interval, ease: ease,
                                              lapses: state.lapses, memory: memory))
        }
        let fsrs = preset.fsrsEnabled ? fsrsNextStates(state, today: today, preset: preset) : nil
        let fuzzFactor = fuzz.factor(cardID, state.reps)
        let context = StateContext(
            fuzzFactor: fuzzFactor, fsrs: fsrs,
            allowShortTerm: preset.fsrsEnabled && preset.fsrsParameters.allowsShortTerm,
            shortTermWithSteps: preset.fsrsShortTermWithSteps,
            steps: learn, relearnSteps: relearn,
            graduatingGood: preset.graduatingInterval, graduatingEasy: preset.easyInterval,
            initialEase: Float(preset.initialEase), hardMultiplier: Float(preset.hardMultiplier),
            easyMultiplier: Float(preset.easyMultiplier), intervalMultiplier: Float(preset.intervalMultiplier),
            maximumInterval: preset.maximumInterval, leechThreshold: preset.leechThreshold,
            lapseMultiplier: Float(preset.lapseMultiplier), minimumLapseInterval: preset.minimumLapseInterval)
        return Context(current: current, next: context.nextStates(current), today: today, now: now,
                       secsUntilRollover: Int(today.nextDayAt - now), fuzzFactor: fuzzFactor,
                       desiredRetention: preset.fsrsEnabled ? preset.desiredRetention : nil,
                       leechAction: preset.leechAction)
    }

    private func apply(_ next: NormalState, to old: CardSchedulingState, context: Context, rating: Rating,
                       millis: Int64, timeTaken: Int) -> (CardSchedulingState, ReviewLogEntry) {
        var card = old
        // Counts, ease and interval stay within the store's ranges (docs/FORMAT.md): a card at
        // the top of one would otherwise leave a deck that check and every export refuse.
        card.reps = min(card.reps, Self.countLimit - 1) + 1
        card.desiredRetention = context.desiredRetention
        if case .new(let position) = context.current { card.originalPosition = Int(position) }
        func placeLearning(_ learning: LearnState) {
            switch NormalState.learning(learning).interval.asDaysIfPast(rollover: context.secsUntilRollover) {
            case .seconds(let secs):
                card.queue = .learning
                card.due = context.now + Int64(Fuzz.learningSeconds(context.fuzzFactor, secs))
            case .days(let days):
                card.queue = .dayLearning
                card.due = context.today.day + Int64(days)
            }
        }
        let factor: Double
        switch next {
        case .new(let position):
            card.type = .new
            card.queue = .new
            card.due = position
            card.originalPosition = nil
            card.memory = nil
            factor = 0
        case .learning(let l):
            card.remainingSteps = l.remaining
            card.type = .learning
            card.memory = l.memory
            placeLearning(l)
            factor = l.memory.map(Self.shiftedDifficulty) ?? 0
        case .review(let r):
            card.queue = .review
            card.type = .review
            card.interval = min(r.scheduledDays, Self.countLimit)
            card.due = context.today.day + Int64(card.interval)
            card.easeFactor = Self.permille(r.ease)
            card.lapses = min(r.lapses, Self.countLimit)
            card.remainingSteps = 0
            card.memory = r.memory
            factor = r.memory.map(Self.shiftedDifficulty) ?? Double(r.ease)
        case .relearning(let l, let r):
            card.interval = min(r.scheduledDays, Self.countLimit)
            card.remainingSteps = l.remaining
            card.type = .relearning
            card.lapses = min(r.lapses, Self.countLimit)
            card.easeFactor = Self.permille(r.ease)
            card.memory = l.memory
            placeLearning(l)
            factor = l.memory.map(Self.shiftedDifficulty) ?? Double(r.ease)
        }
        if next.leeched && context.leechAction == .suspend { card.queue = .suspended }
        card.lastReview = millis / 1000
        let log = ReviewLogEntry(
            id: millis, ease: rating.rawValue,
            interval: Self.revlogInterval(next.interval.asDaysIfPast(rollover: context.secsUntilRollover).revlogValue),
            lastInterval: Self.revlogInterval(context.current.interval.asDaysIfPast(rollover: context.secsUntilRollover).revlogValue),
            factor: Self.permille(Float(factor)), time: timeTaken, kind: context.current.revlogKind)
        return (card, log)
    }

    /// The largest interval, review count and lapse count a card stores (32-bit, as Anki's columns).
    static let countLimit = Int(Int32.max)

    /// An ease (or a review's factor) in permille within the store's 0–100000, without trapping
    /// on a value no Int holds (an ease grown from a preset's starting ease at its limit).
    static func permille(_ ease: Float) -> Int {
        let value = (ease * 1000).rounded()
        guard value.isFinite else { return value > 0 ? 100_000 : 0 }
        return Int(min(max(value, 0), 100_000))
    }

    /// A review's interval within the 32-bit range of its column.
    static func revlogInterval(_ value: Int) -> Int { min(max(value, Int(Int32.min)), Int(Int32.max)) }

    private static func shiftedDifficulty(_ memory: MemoryState) -> Double { (memory.difficulty - 1) / 9 + 0.1 }
}
