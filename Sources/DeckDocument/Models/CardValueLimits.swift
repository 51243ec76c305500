import Foundation

/// The values a card and a review read from an interchange file may hold: importers refuse a
/// value outside them (exit 65, naming the file and the field as that file spells it), so
/// whatever the tool accepted keeps the store's value ranges (docs/FORMAT.md, "Value ranges",
/// which the store's readers apply through ``DeckStoreV2`` 's column rules) and converts
/// without a trap wherever it goes: a date to milliseconds in 64 bits, an ease to Anki's
/// permille, a duration to milliseconds, an interval to Anki's 32-bit columns.
package enum CardValueLimits {
    /// Dates (seconds since 1970): 0001-01-01T00:00:00Z through 9999-12-31T23:59:59.999Z, the
    /// years ISO 8601 writes with four digits (the JSON export's dates). NaN and infinities are out.
    package static let dates: ClosedRange<Double> = -62_135_596_800 ... 253_402_300_799.999
    /// The ease factor (2.5 initially): 0 through 100, Anki's permille up to 100,000.
    package static let ease: ClosedRange<Double> = 0 ... 100
    /// A card's interval in days and its review and lapse counts: Anki's 32-bit columns.
    package static let counts: ClosedRange<Int> = 0 ... Int(Int32.max)
    /// A review's answer: 0 (manual) through 4 (easy), Anki's `revlog.ease`.
    package static let answers: ClosedRange<Int> = 0 ... 4
    /// A review's interval: days when positive, seconds of a learning step when negative (Anki's `revlog.ivl`).
    package static let reviewIntervals: ClosedRange<Int> = Int(Int32.min) ... Int(Int32.max)
    /// A review's duration in seconds: up to a day.
    package static let durations: ClosedRange<Double> = 0 ... 86_400

    /// The first field of a card's values outside its range, by its column name, or nil.
    package static func problem(created: Double, modified: Double, due: Double?, interval: Int, ease: Double,
                                repetitions: Int, lapses: Int) -> String? {
        if !dates.contains(created) { return "created" }
        if !dates.contains(modified) { return "modified" }
        if let due, !dates.contains(due) { return "due" }
        if !counts.contains(interval) { return "interval" }
        if !self.ease.contains(ease) { return "ease" }
        if !counts.contains(repetitions) { return "repetitions" }
        if !counts.contains(lapses) { return "lapses" }
        return nil
    }

    /// The first field of a review's values outside its range, by its column name, or nil.
    package static func problem(reviewDate date: Double, answer: Int, interval: Int, duration: Double) -> String? {
        if !dates.contains(date) { return "date" }
        if !answers.contains(answer) { return "ease" }
        if !reviewIntervals.contains(interval) { return "interval" }
        if !durations.contains(duration) { return "duration" }
        return nil
    }
}
