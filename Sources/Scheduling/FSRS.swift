import Foundation

/// The 21 weights of an FSRS-6 model.
///
/// `w[0]`–`w[3]` are the initial stabilities of Again, Hard, Good and Easy; `w[4]`–`w[7]` shape
/// difficulty; `w[8]`–`w[10]` the stability after a successful review, `w[11]`–`w[14]` after a
/// lapse; `w[15]` and `w[16]` the Hard penalty and Easy bonus; `w[17]`–`w[19]` same-day
/// (short-term) reviews; `w[20]` the decay of the forgetting curve.
///
/// Older parameter sets are accepted as FSRS does: 17 weights (FSRS-4.5) are converted and 19
/// (FSRS-5) get the FSRS-5 decay 0.5; an empty list means the defaults.
public struct FSRSParameters: Sendable, Hashable, Codable {
    /// The weights, always 21 of them.
    public let weights: [Double]

    /// The defaults of the reference implementation (the `fsrs` package and fsrs-rs, FSRS-6).
    public static let `default` = FSRSParameters(validated: [
        0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796,
        1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542,
    ])

    /// Lower bounds the reference implementation accepts, weight by weight.
    public static let lowerBounds: [Double] = [
        0.001, 0.001, 0.001, 0.001, 1.0, 0.001, 0.001, 0.001, 0.0, 0.0, 0.001, 0.001, 0.001,
        0.001, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.1,
    ]

    /// Upper bounds the reference implementation accepts, weight by weight.
    public static let upperBounds: [Double] = [
        100, 100, 100, 100, 10, 4, 4, 0.75, 4.5, 0.8, 3.5, 5, 0.25, 0.9, 4, 1, 6, 2, 2, 0.8, 0.8,
    ]

    private init(validated weights: [Double]) { self.weights = weights }

    /// Parameters from a list of weights.
    ///
    /// - Throws: ``SchedulingError/invalidParameters(_:)`` when the count is not 0, 17, 19 or 21,
    ///   a weight is not finite, or a weight lies outside ``lowerBounds``…``upperBounds``.
    public init(_ weights: [Double]) throws {
        var w: [Double]
        switch weights.count {
        case 0: w = Self.default.weights
        case 17:
            w = weights
            w[4] = w[5] * 2 + w[4]
            w[5] = log(w[5] * 3 + 1) / 3
            w[6] += 0.5
            w += [0, 0, 0, 0.5]
        case 19: w = weights + [0, 0.5]
        case 21: w = weights
        default: throw SchedulingError.invalidParameters("expected 21 weights, got \(weights.count)")
        }
        for (index, value) in w.enumerated() {
            guard value.isFinite else { throw SchedulingError.invalidParameters("weight \(index) is not a finite number") }
            guard value >= Self.lowerBounds[index], value <= Self.upperBounds[index] else {
                throw SchedulingError.invalidParameters("weight \(index) = \(value) is outside \(Self.lowerBounds[index])…\(Self.upperBounds[index])")
            }
        }
        self.weights = w
    }

    /// Whether same-day reviews change stability (`w[17]` and `w[18]` both positive), as Anki
    /// decides whether short-term scheduling is allowed.
    public var allowsShortTerm: Bool { weights[17] > 0 && weights[18] > 0 }
}

/// What FSRS knows about a card's memory: stability (days until recall probability falls to
/// 90 %) and difficulty (1 to 10).
public struct MemoryState: Sendable, Hashable, Codable {
    /// Days until the probability of recall falls to 90 %.
    public var stability: Double
    /// How hard the card is, from 1 (easiest) to 10.
    public var difficulty: Double

    /// A memory state.
    public init(stability: Double, difficulty: Double) {
        self.stability = stability
        self.difficulty = difficulty
    }
}

/// The memory state and the unrounded interval (days) that one answer would give.
public struct FSRSItemState: Sendable, Hashable {
    /// The memory state after the answer.
    public var memory: MemoryState
    /// The interval in days at which recall falls to the desired retention, unrounded.
    public var interval: Double
}

/// The outcome of each of the four answers, as FSRS computes them.
public struct FSRSNextStates: Sendable, Hashable {
    /// After Again.
    public var again: FSRSItemState
    /// After Hard.
    public var hard: FSRSItemState
    /// After Good.
    public var good: FSRSItemState
    /// After Easy.
    public var easy: FSRSItemState

    /// The outcome of one rating.
    public subscript(rating: Rating) -> FSRSItemState {
        switch rating {
        case .again: again
        case .hard: hard
        case .good: good
        case .easy: easy
        }
    }
}

/// The FSRS-6 memory model: how stability and difficulty change with each answer, and the
/// interval that reaches a desired retention.
///
/// The formulas are those of the reference implementation (the `fsrs` package, and fsrs-rs inside
/// Anki), computed in double precision (fsrs-rs uses single precision). Stability is kept within
/// 0.001…36,500 days and difficulty within 1…10, as fsrs-rs does.
///
/// ```swift
/// let fsrs = FSRS()
/// let first = fsrs.nextState(nil, rating: .good, elapsedDays: 0)   // s 2.3065, d 2.1181
/// let later = fsrs.nextState(first, rating: .good, elapsedDays: 3)
/// let days = fsrs.interval(stability: later.stability, desiredRetention: 0.9)
/// ```
public struct FSRS: Sendable, Hashable {
    /// The smallest stability FSRS keeps.
    public static let minimumStability = 0.001
    /// The largest stability fsrs-rs (and so Anki) keeps.
    public static let maximumStability = 36_500.0

    /// The model's parameters.
    public let parameters: FSRSParameters
    private let w: [Double]
    private let decay: Double
    private let factor: Double

    /// A model with the given parameters (the FSRS-6 defaults unless told).
    public init(parameters: FSRSParameters = .default) {
        self.parameters = parameters
        w = parameters.weights
        decay = -w[20]
        factor = pow(0.9, 1 / decay) - 1
    }

    /// The probability of recall after `elapsedDays` at the given stability.
    public func retrievability(elapsedDays: Double, stability: Double) -> Double {
        pow(1 + factor * elapsedDays / stability, decay)
    }

    /// The interval (days, unrounded) after which recall falls to `desiredRetention`.
    public func interval(stability: Double, desiredRetention: Double) -> Double {
        stability / factor * (pow(desiredRetention, 1 / decay) - 1)
    }

    /// The memory state after the first answer of a card.
    public func initialState(rating: Rating) -> MemoryState {
        MemoryState(stability: clampStability(w[rating.rawValue - 1]),
                    difficulty: clampDifficulty(initialDifficulty(rating)))
    }

    /// The memory state after answering.
    ///
    /// - Parameters:
    ///   - current: the state before the answer; `nil` for a card never answered.
    ///   - elapsedDays: whole days since the previous answer; 0 means a same-day review, which
    ///     uses the short-term formula (`w[17]`–`w[19]`).
    public func nextState(_ current: MemoryState?, rating: Rating, elapsedDays: Int) -> MemoryState {
        guard let current else { return initialState(rating: rating) }
        let s = clampStability(current.stability)
        let d = clampDifficulty(current.difficulty)
        let g = Double(rating.rawValue)
        let newS: Double
        if elapsedDays <= 0 {
            newS = shortTermStability(s, g)
        } else {
            let r = retrievability(elapsedDays: Double(elapsedDays), stability: s)
            newS = rating == .again ? stabilityAfterFailure(s, d, r) : stabilityAfterSuccess(s, d, r, g)
        }
        return MemoryState(stability: clampStability(newS), difficulty: nextDifficulty(d, g))
    }

    /// The outcome of each answer: memory state and unrounded interval.
    public func nextStates(_ current: MemoryState?, desiredRetention: Double, elapsedDays: Int) -> FSRSNextStates {
        func item(_ rating: Rating) -> FSRSItemState {
            let memory = nextState(current, rating: rating, elapsedDays: elapsedDays)
            return FSRSItemState(memory: memory, interval: interval(stability: memory.stability, desiredRetention: desiredRetention))
        }
        return FSRSNextStates(again: item(.again), hard: item(.hard), good: item(.good), easy: item(.easy))
    }

    /// A memory state estimated from SM-2 scheduling (ease factor as a multiplier such as 2.5,
    /// interval in days), as fsrs-rs converts cards that have no review history; `nil` when the
    /// numbers give no finite state.
    public func memoryStateFromSM2(easeFactor: Double, interval: Double, retention: Double) -> MemoryState? {
        let stability = max(interval, Self.minimumStability) * factor / (pow(retention, 1 / decay) - 1)
        let difficulty = 11 - (easeFactor - 1) / (exp(w[8]) * pow(stability, -w[9]) * expm1((1 - retention) * w[10]))
        guard stability.isFinite, difficulty.isFinite else { return nil }
        return MemoryState(stability: stability, difficulty: clampDifficulty(difficulty))
    }

    // MARK: The formulas

    private func initialDifficulty(_ rating: Rating) -> Double {
        w[4] - exp(w[5] * Double(rating.rawValue - 1)) + 1
    }

    private func nextDifficulty(_ d: Double, _ g: Double) -> Double {
        let delta = -w[6] * (g - 3)
        let damped = d + (10 - d) * delta / 9
        let reverted = w[7] * initialDifficulty(.easy) + (1 - w[7]) * damped
        return clampDifficulty(reverted)
    }

    private func stabilityAfterSuccess(_ s: Double, _ d: Double, _ r: Double, _ g: Double) -> Double {
        let hardPenalty = g == 2 ? w[15] : 1
        let easyBonus = g == 4 ? w[16] : 1
        return s * (1 + exp(w[8]) * (11 - d) * pow(s, -w[9]) * (exp((1 - r) * w[10]) - 1) * hardPenalty * easyBonus)
    }

    private func stabilityAfterFailure(_ s: Double, _ d: Double, _ r: Double) -> Double {
        let longTerm = w[11] * pow(d, -w[12]) * (pow(s + 1, w[13]) - 1) * exp((1 - r) * w[14])
        let shortTermCap = s / exp(w[17] * w[18])
        return min(longTerm, shortTermCap)
    }

    private func shortTermStability(_ s: Double, _ g: Double) -> Double {
        let increase = exp(w[17] * (g - 3 + w[18])) * pow(s, -w[19])
        return s * (g >= 2 ? max(increase, 1) : increase)
    }

    private func clampStability(_ s: Double) -> Double { min(max(s, Self.minimumStability), Self.maximumStability) }
    private func clampDifficulty(_ d: Double) -> Double { min(max(d, 1), 10) }
}
