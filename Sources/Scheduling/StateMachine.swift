// Anki v3's state machine (rslib/src/scheduler/states), rule for rule: the card's current state,
// the four next states, with FSRS supplying memory states and intervals or SM-2 computing them.

/// A sequence of learning steps in minutes, read as Anki reads them.
struct LearningSteps: Sendable {
    let steps: [Float]
    init(_ minutes: [Double]) { steps = minutes.map { Float($0) } }

    private static let day: UInt32 = 86_400
    private func seconds(_ minutes: Float) -> UInt32 {
        let secs = minutes * 60
        return secs.isFinite && secs > 0 ? (secs >= 4_294_967_296 ? UInt32.max : UInt32(secs)) : 0
    }
    private func index(_ remaining: Int) -> Int {
        let total = steps.count
        return min(max(0, total - (remaining % 1000)), max(0, total - 1))
    }
    private func secondsAt(_ index: Int) -> UInt32? { index < steps.count ? seconds(steps[index]) : nil }
    var isEmpty: Bool { steps.isEmpty }
    var againDelay: UInt32? { secondsAt(0) }
    func hardDelay(_ remaining: Int) -> UInt32? {
        let idx = index(remaining)
        guard let current = secondsAt(idx) ?? steps.first.map(seconds) else { return nil }
        guard idx == 0 else { return current }
        if let next = secondsAt(1) {
            return Self.roundInDays(UInt32((UInt64(current) + UInt64(next)) / 2))
        }
        let secs = min(UInt64(current) * 3 / 2, UInt64(current) + UInt64(Self.day))
        return Self.roundInDays(UInt32(min(secs, UInt64(UInt32.max))))
    }
    func goodDelay(_ remaining: Int) -> UInt32? { secondsAt(index(remaining) + 1) }
    func currentDelay(_ remaining: Int) -> UInt32 { secondsAt(index(remaining)) ?? 0 }
    func remainingForGood(_ remaining: Int) -> Int { max(0, steps.count - (index(remaining) + 1)) }
    var remainingForFailed: Int { steps.count }

    private static func roundInDays(_ secs: UInt32) -> UInt32 {
        secs > day ? UInt32((Float(secs) / Float(day)).rounded()) &* day : secs
    }
}

struct LearnState: Hashable {
    var remaining: Int
    var scheduledSecs: UInt32
    var memory: MemoryState?
}

struct ReviewState: Hashable {
    var scheduledDays: Int
    var elapsedDays: Int = 0
    var ease: Float = 2.5
    var lapses: Int = 0
    var leeched = false
    var memory: MemoryState?
    var daysLate: Int { elapsedDays - scheduledDays }
}

enum NormalState: Hashable {
    case new(position: Int64)
    case learning(LearnState)
    case review(ReviewState)
    case relearning(LearnState, ReviewState)

    var leeched: Bool {
        switch self {
        case .review(let r), .relearning(_, let r): r.leeched
        default: false
        }
    }

    /// Seconds or days, as Anki's `IntervalKind`.
    var interval: IntervalKind {
        switch self {
        case .new: .seconds(0)
        case .learning(let l), .relearning(let l, _): .seconds(Int(l.scheduledSecs))
        case .review(let r): .days(r.scheduledDays)
        }
    }

    var revlogKind: ReviewLogEntry.Kind {
        switch self {
        case .new, .learning: .learning
        case .review(let r): r.daysLate < 0 ? .filtered : .review
        case .relearning: .relearning
        }
    }
}

enum IntervalKind: Hashable {
    case seconds(Int)
    case days(Int)

    func asDaysIfPast(rollover secsUntilRollover: Int) -> IntervalKind {
        if case .seconds(let secs) = self, secs >= secsUntilRollover {
            return .days((secs - secsUntilRollover) / 86_400 + 1)
        }
        return self
    }
    var seconds: Int {
        switch self {
        case .seconds(let s): s
        case .days(let d): d * 86_400
        }
    }
    var revlogValue: Int {
        switch self {
        case .days(let d): d
        case .seconds(let s): -s
        }
    }
}

struct NextNormalStates {
    var again: NormalState
    var hard: NormalState
    var good: NormalState
    var easy: NormalState
    subscript(rating: Rating) -> NormalState {
        switch rating {
        case .again: again
        case .hard: hard
        case .good: good
        case .easy: easy
        }
    }
}

struct StateContext {
    var fuzzFactor: Double?
    var fsrs: FSRSNextStates?
    var allowShortTerm: Bool
    var shortTermWithSteps: Bool
    var steps: LearningSteps
    var relearnSteps: LearningSteps
    var graduatingGood: Int
    var graduatingEasy: Int
    var initialEase: Float
    var hardMultiplier: Float
    var easyMultiplier: Float
    var intervalMultiplier: Float
    var maximumInterval: Int
    var leechThreshold: Int
    var lapseMultiplier: Float
    var minimumLapseInterval: Int

    func minAndMax(_ minimum: Int) -> (Int, Int) {
        let maximum = max(maximumInterval, 1)
        return (min(max(minimum, 1), maximum), maximum)
    }

    func withFuzz(_ interval: Double, _ minimum: Int, _ maximum: Int) -> Int {
        Fuzz.apply(fuzzFactor, interval: interval, minimum: minimum, maximum: maximum)
    }

    private func shortTerm(_ interval: Double, steps: LearningSteps) -> Bool {
        allowShortTerm && (shortTermWithSteps || steps.isEmpty) && interval < 0.5
    }

    // MARK: New and learning

    func nextStates(_ state: NormalState) -> NextNormalStates {
        switch state {
        case .new:
            return learningNext(LearnState(remaining: steps.remainingForFailed, scheduledSecs: 0, memory: nil))
        case .learning(let l): return learningNext(l)
        case .review(let r): return reviewNext(r)
        case .relearning(let l, let r): return relearningNext(l, r)
        }
    }

    private func graduate(_ interval: Double, _ memory: MemoryState?) -> NormalState {
        let (minimum, maximum) = minAndMax(1)
        return .review(ReviewState(scheduledDays: withFuzz(max(interval.rounded(), 1), minimum, maximum),
                                   ease: initialEase, memory: memory))
    }

    private func learningNext(_ current: LearnState) -> NextNormalStates {
        func passingOrFailing(_ rating: Rating, delay: UInt32?, remaining: Int) -> NormalState {
            let memory = fsrs?[rating].memory
            if let delay {
                return .learning(LearnState(remaining: remaining, scheduledSecs: delay, memory: memory))
            }
            if let fsrs {
                let interval = fsrs[rating].interval
                if shortTerm(interval, steps: steps) {
                    let secs = UInt32(clamping: Int64(interval * 86_400))
                    return .learning(LearnState(remaining: rating == .again ? steps.remainingForFailed : current.remaining,
                                                scheduledSecs: secs, memory: memory))
                }
                return graduate(interval, memory)
            }
            return graduate(Double(graduatingGood), memory)
        }
        let again = passingOrFailing(.again, delay: steps.againDelay, remaining: steps.remainingForFailed)
        let hard = passingOrFailing(.hard, delay: steps.hardDelay(current.remaining), remaining: current.remaining)
        let good = passingOrFailing(.good, delay: steps.goodDelay(current.remaining),
                                    remaining: steps.remainingForGood(current.remaining))
        // Easy always graduates.
        var (minimum, maximum) = minAndMax(1)
        let easyDays: Double
        if let fsrs {
            let goodDays = withFuzz(fsrs.good.interval, minimum, maximum)
            minimum = goodDays + 1
            easyDays = max(fsrs.easy.interval.rounded(), 1)
        } else {
            easyDays = Double(graduatingEasy)
        }
        let easy = NormalState.review(ReviewState(scheduledDays: withFuzz(easyDays, minimum, maximum),
                                                  ease: initialEase, memory: fsrs?.easy.memory))
        return NextNormalStates(again: again, hard: hard, good: good, easy: easy)
    }

    // MARK: Relearning

    private func relearningNext(_ learning: LearnState, _ review: ReviewState) -> NextNormalStates {
        // Again
        let (failDays, failMemory) = failingInterval(review)
        let again: NormalState
        if let delay = relearnSteps.againDelay {
            let memory = failMemory
            again = .relearning(LearnState(remaining: relearnSteps.remainingForFailed, scheduledSecs: delay, memory: memory),
                                ReviewState(scheduledDays: max(Fuzz.roundToUInt(failDays), 1), elapsedDays: 0, ease: review.ease,
                                            lapses: review.lapses, leeched: review.leeched, memory: memory))
        } else if let fsrs {
            let (minimum, maximum) = minAndMax(1)
            let interval = fsrs.again.interval
            let memory = fsrs.again.memory
            var againReview = review
            againReview.scheduledDays = withFuzz(max(interval.rounded(), 1), minimum, maximum)
            againReview.memory = memory
            if shortTerm(interval, steps: relearnSteps) {
                again = .relearning(LearnState(remaining: relearnSteps.remainingForFailed,
                                               scheduledSecs: UInt32(clamping: Int64(interval * 86_400)), memory: memory), againReview)
            } else {
                again = .review(againReview)
            }
        } else {
            again = .review(review)
        }
        // Hard and Good
        func passing(_ rating: Rating, delay: UInt32?, remaining: Int) -> NormalState {
            let memory = fsrs?[rating].memory
            if let delay {
                var r = review
                r.elapsedDays = 0
                r.memory = memory
                return .relearning(LearnState(remaining: remaining, scheduledSecs: delay, memory: memory), r)
            }
            if let fsrs {
                let (minimum, maximum) = minAndMax(1)
                let interval = fsrs[rating].interval
                var r = review
                r.scheduledDays = withFuzz(max(interval.rounded(), 1), minimum, maximum)
                r.memory = memory
                if shortTerm(interval, steps: relearnSteps) {
                    return .relearning(LearnState(remaining: remaining,
                                                  scheduledSecs: UInt32(clamping: Int64(interval * 86_400)), memory: memory), r)
                }
                return .review(r)
            }
            return .review(review)
        }
        let hard = passing(.hard, delay: relearnSteps.hardDelay(learning.remaining), remaining: learning.remaining)
        let good = passing(.good, delay: relearnSteps.goodDelay(learning.remaining),
                           remaining: relearnSteps.remainingForGood(learning.remaining))
        // Easy
        var easyReview = review
        if let fsrs {
            var (minimum, maximum) = minAndMax(1)
            let goodDays = withFuzz(fsrs.good.interval, minimum, maximum)
            minimum = goodDays + 1
            easyReview.scheduledDays = withFuzz(max(fsrs.easy.interval.rounded(), 1), minimum, maximum)
        } else {
            easyReview.scheduledDays = review.scheduledDays + 1
        }
        easyReview.elapsedDays = 0
        easyReview.memory = fsrs?.easy.memory
        return NextNormalStates(again: again, hard: hard, good: good, easy: .review(easyReview))
    }

    // MARK: Review

    private func failingInterval(_ review: ReviewState) -> (Double, MemoryState?) {
        if let fsrs { return (fsrs.again.interval, fsrs.again.memory) }
        let (minimum, maximum) = minAndMax(minimumLapseInterval)
        let days = withFuzz(Double(max(Float(review.scheduledDays), 1) * lapseMultiplier), minimum, maximum)
        return (Double(days), nil)
    }

    private func reviewNext(_ review: ReviewState) -> NextNormalStates {
        let (hardDays, goodDays, easyDays) = passingIntervals(review)
        // Again
        let lapses = review.lapses + 1
        let leeched = Self.leechThresholdMet(lapses, leechThreshold)
        let (failDays, memory) = failingInterval(review)
        let againReview = ReviewState(scheduledDays: max(Fuzz.roundToUInt(failDays), 1), elapsedDays: 0,
                                      ease: max(review.ease - 0.2, 1.3), lapses: lapses, leeched: leeched, memory: memory)
        let again: NormalState
        if let delay = relearnSteps.againDelay {
            again = .relearning(LearnState(remaining: relearnSteps.remainingForFailed, scheduledSecs: delay, memory: memory), againReview)
        } else if allowShortTerm && (shortTermWithSteps || relearnSteps.isEmpty) && failDays < 0.5 {
            again = .relearning(LearnState(remaining: relearnSteps.remainingForFailed,
                                           scheduledSecs: UInt32(clamping: Int64(failDays * 86_400)), memory: memory), againReview)
        } else {
            again = .review(againReview)
        }
        var hard = review
        hard.scheduledDays = hardDays
        hard.elapsedDays = 0
        hard.ease = max(review.ease - 0.15, 1.3)
        hard.memory = fsrs?.hard.memory
        var good = review
        good.scheduledDays = goodDays
        good.elapsedDays = 0
        good.memory = fsrs?.good.memory
        var easy = review
        easy.scheduledDays = easyDays
        easy.elapsedDays = 0
        easy.ease = review.ease + 0.15
        easy.memory = fsrs?.easy.memory
        return NextNormalStates(again: again, hard: .review(hard), good: .review(good), easy: .review(easy))
    }

    static func leechThresholdMet(_ lapses: Int, _ threshold: Int) -> Bool {
        guard threshold > 0 else { return false }
        let half = max(Int((Float(threshold) / 2).rounded(.up)), 1)
        return lapses >= threshold && (lapses - threshold) % half == 0
    }

    private func constrainPassing(_ interval: Double, _ minimum: Int, fuzz: Bool) -> Int {
        let interval = fsrs != nil ? interval : Double(Float(interval) * intervalMultiplier)
        let (minimum, maximum) = minAndMax(minimum)
        if fuzz { return withFuzz(interval, minimum, maximum) }
        return min(max(Fuzz.roundToUInt(interval), minimum), maximum)
    }

    private func passingIntervals(_ review: ReviewState) -> (Int, Int, Int) {
        if let fsrs {
            func floor(_ interval: Double) -> Int {
                Fuzz.minimumReviewFuzzInterval(interval, previous: review.scheduledDays, maximum: maximumInterval)
            }
            let hard = constrainPassing(fsrs.hard.interval, max(floor(fsrs.hard.interval), 1), fuzz: true)
            let good = constrainPassing(fsrs.good.interval, max(floor(fsrs.good.interval), hard + 1), fuzz: true)
            let easy = constrainPassing(fsrs.easy.interval, max(floor(fsrs.easy.interval), good + 1), fuzz: true)
            return (hard, good, easy)
        }
        let scheduled = max(Float(review.scheduledDays), 1)
        if review.daysLate < 0 {
            // Early review.
            let elapsed = Float(review.elapsedDays)
            let hard = constrainPassing(Double(max(elapsed * hardMultiplier, scheduled * (hardMultiplier / 2))), 0, fuzz: false)
            let good = constrainPassing(Double(max(elapsed * review.ease, scheduled)), 0, fuzz: false)
            let reducedBonus = easyMultiplier - (easyMultiplier - 1) / 2
            let easy = constrainPassing(Double(max(elapsed * review.ease, scheduled) * reducedBonus), 0, fuzz: false)
            return (hard, good, easy)
        }
        let daysLate = Float(max(review.daysLate, 0))
        let hardMinimum = hardMultiplier <= 1 ? 0 : review.scheduledDays + 1
        let hard = constrainPassing(Double(scheduled * hardMultiplier), hardMinimum, fuzz: true)
        let goodMinimum = hardMultiplier <= 1 ? review.scheduledDays + 1 : hard + 1
        let good = constrainPassing(Double((scheduled + daysLate / 2) * review.ease), goodMinimum, fuzz: true)
        let easy = constrainPassing(Double((scheduled + daysLate) * review.ease * easyMultiplier), good + 1, fuzz: true)
        return (hard, good, easy)
    }
}
