/// Where the randomness of interval fuzz comes from.
///
/// Anki spreads review intervals over a small range (about ±15 % for short intervals, ±5 % for
/// long ones) so cards learned together don't stay together, and delays learning steps by up to
/// 25 % (at most five minutes). It draws one number in 0..<1 per card and review count, so asking
/// twice gives the same answer. ``seeded`` does the same from its own generator (not Anki's
/// ChaCha stream: the ranges are Anki's, the day picked within them differs); ``off`` turns fuzz
/// off, as Anki's test mode does; ``init(_:)`` injects any source.
public struct Fuzz: Sendable {
    let factor: @Sendable (_ cardID: Int64, _ reps: Int) -> Double?

    /// A source that returns a number in 0..<1 for a card and its review count, or `nil` for no fuzz.
    public init(_ factor: @escaping @Sendable (_ cardID: Int64, _ reps: Int) -> Double?) {
        self.factor = factor
    }

    /// No fuzz: intervals are rounded and clamped only.
    public static let off = Fuzz { _, _ in nil }

    /// Deterministic fuzz per card and review count (SplitMix64 of `cardID + reps`).
    public static let seeded = Fuzz { cardID, reps in
        var z = UInt64(bitPattern: cardID) &+ UInt64(max(reps, 0)) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }

    // MARK: Anki's fuzz arithmetic (rslib/src/scheduler/states/fuzz.rs)

    private static let ranges: [(start: Double, end: Double, factor: Double)] = [
        (2.5, 7.0, 0.15), (7.0, 20.0, 0.1), (20.0, .greatestFiniteMagnitude, 0.05),
    ]

    static func delta(_ interval: Double) -> Double {
        guard interval >= 2.5 else { return 0 }
        return ranges.reduce(1.0) { $0 + $1.factor * max(min(interval, $1.end) - $1.start, 0) }
    }

    static func roundToUInt(_ value: Double) -> Int {
        guard value.isFinite, value > 0 else { return 0 }
        return value >= 4_294_967_295 ? 4_294_967_295 : Int(value.rounded())
    }

    /// The range an interval may be fuzzed to, within `minimum…maximum`.
    static func constrainedBounds(_ interval: Double, minimum: Int, maximum: Int) -> (Int, Int) {
        let minimum = min(minimum, maximum)
        let interval = min(max(interval, Double(minimum)), Double(maximum))
        let d = delta(interval)
        var lower = roundToUInt(interval - d)
        var upper = roundToUInt(interval + d)
        lower = min(max(lower, minimum), maximum)
        upper = min(max(upper, minimum), maximum)
        if upper == lower && upper > 2 && upper < maximum { upper = lower + 1 }
        return (lower, upper)
    }

    static func apply(_ factor: Double?, interval: Double, minimum: Int, maximum: Int) -> Int {
        if let factor {
            let (lower, upper) = constrainedBounds(interval, minimum: minimum, maximum: maximum)
            return Int((Double(lower) + factor * Double(1 + upper - lower)).rounded(.down))
        }
        return min(max(roundToUInt(interval), minimum), maximum)
    }

    /// The floor a review's new interval keeps so it does not fall below the previous one while
    /// that lies within the fuzz range (Anki's `minimum_review_fuzz_interval`).
    static func minimumReviewFuzzInterval(_ interval: Double, previous: Int, maximum: Int) -> Int {
        let rounded = roundToUInt(interval)
        let (_, upper) = constrainedBounds(interval, minimum: 1, maximum: maximum)
        if rounded > previous { return previous + 1 }
        if previous <= upper { return previous }
        return 0
    }

    /// A learning step delayed by up to 25 % (at most 300 s).
    static func learningSeconds(_ factor: Double?, _ secs: Int) -> Int {
        guard let factor else { return secs }
        let upperExclusive = secs + Int(min(Double(secs) * 0.25, 300).rounded(.down))
        guard secs < upperExclusive else { return secs }
        return secs + min(Int(factor * Double(upperExclusive - secs)), upperExclusive - secs - 1)
    }
}
