extension Int64 {
    /// `value` rounded by `rule` and clamped to `Int64`'s range, 0 for NaN: a conversion of
    /// a number read from a file (a date, an ease, a duration) that can never trap, as
    /// `Int64(_:)` does on NaN, infinities and values beyond ±9.2e18.
    package init(saturating value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
        guard !value.isNaN else {
            self = 0
            return
        }
        let rounded = value.rounded(rule)
        // 2^63 is exactly representable; every Double below it converts.
        if rounded >= 9_223_372_036_854_775_808.0 {
            self = .max
        } else if rounded < -9_223_372_036_854_775_808.0 {
            self = .min
        } else {
            self = Int64(rounded)
        }
    }
}

extension Int {
    /// As ``Swift/Int64/init(saturating:rounding:)``, for `Int`.
    package init(saturating value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
        self = Int(truncatingIfNeeded: Int64(saturating: value, rounding: rule))
    }
}
