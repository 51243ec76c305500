import Anki
import DeckDocument
import Foundation

/// Conversions between Anki's scheduling numbers and a card's dates, interval and ease.
///
/// Anki stores a review card's due date as a day number counted from the collection's
/// creation (`col.crt`), a learning card's as a timestamp, and the ease in permille; a card
/// keeps the due date itself, the interval in days and the ease as a factor (2.5).
enum AnkiScheduling {
    /// The creation date of a note: its id when that is a plausible millisecond timestamp
    /// (after 2001), else its modification time.
    static func creationDate(noteID: Int64, modified: Int64) -> Date {
        if noteID > 978_307_200_000, noteID < 32_503_680_000_000 {
            return Date(timeIntervalSince1970: TimeInterval(noteID) / 1000)
        }
        return Date(timeIntervalSince1970: TimeInterval(modified))
    }

    /// Anki's own widths for the columns an import reads (its `cards.ivl`, `due`, `reps` and
    /// `lapses` are 32-bit, `factor` 16-bit; dates are seconds or milliseconds between 1970
    /// and 9999): what lies outside them no Anki wrote, and would not fit ``CardValueLimits``.
    static let int32Range = Int64(Int32.min) ... Int64(Int32.max)
    static let countRange = 0 ... Int64(Int32.max)
    static let factorRange: ClosedRange<Int64> = 0 ... 100_000
    /// Dates as seconds and milliseconds: the years ``CardValueLimits/dates`` allows (our exports
    /// write a review of year 1 as a negative `revlog.id`, and read it back).
    static let secondsRange = Int64(CardValueLimits.dates.lowerBound) ... AnkiCollection.maximumTime
    static let millisecondsRange = Int64(CardValueLimits.dates.lowerBound) * 1000 ... AnkiCollection.maximumTime * 1000 + 999
    /// `revlog.time`: milliseconds, up to a day (``CardValueLimits/durations``).
    static let answerTimeRange: ClosedRange<Int64> = 0 ... 86_400_000

    /// The first column of `card` (`cards.<column>`) whose value is out of range, or nil; the
    /// due date it gives must be a date ``CardValueLimits`` allows.
    static func outOfRangeColumn(of card: AnkiCard, collectionCreation: Int64) -> String? {
        if !int32Range.contains(card.interval) { return "ivl" }
        if !int32Range.contains(card.due) { return "due" }
        if !factorRange.contains(card.factor) { return "factor" }
        if !countRange.contains(card.reps) { return "reps" }
        if !countRange.contains(card.lapses) { return "lapses" }
        if !secondsRange.contains(card.modified) { return "mod" }
        if let due = dueDate(of: card, collectionCreation: collectionCreation),
           !CardValueLimits.dates.contains(due.timeIntervalSince1970) { return "due" }
        return nil
    }

    /// The first column of `review` (`revlog.<column>`) whose value is out of range, or nil.
    static func outOfRangeColumn(of review: AnkiReview) -> String? {
        if !millisecondsRange.contains(review.id) { return "id" }
        if !CardValueLimits.answers.contains(review.ease) { return "ease" }
        if !int32Range.contains(review.interval) { return "ivl" }
        if !int32Range.contains(review.lastInterval) { return "lastIvl" }
        if !answerTimeRange.contains(review.timeTaken) { return "time" }
        return nil
    }

    /// Copies an Anki card's scheduling onto `card`.
    static func apply(_ anki: AnkiCard, collectionCreation: Int64, to card: ImportedNote) {
        card.repetitions = Int(clamping: anki.reps)
        card.lapses = Int(clamping: anki.lapses)
        card.interval = anki.interval > 0 ? Int(clamping: anki.interval) : 0
        card.ease = anki.factor > 0 ? Double(anki.factor) / 1000 : 2.5
        card.due = dueDate(of: anki, collectionCreation: collectionCreation)
    }

    /// When an Anki card is due, or nil for a new card.
    static func dueDate(of card: AnkiCard, collectionCreation: Int64) -> Date? {
        if card.type == .new { return nil }
        if card.queue == .learning {
            return Date(timeIntervalSince1970: TimeInterval(card.due))
        }
        // A day number (review, relearning, day learning, and suspended or buried cards of those).
        guard card.due > -100_000, card.due < 1_000_000 else { return nil }
        // col.crt is within 1970–9999 (AnkiCollection checks it) and the day within ±1,000,000: no overflow.
        let (seconds, overflow) = collectionCreation.addingReportingOverflow(card.due * 86_400)
        return overflow ? nil : Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// A review-history entry as a ``Review``.
    static func review(_ review: AnkiReview) -> ReviewSnapshot {
        ReviewSnapshot(date: Date(timeIntervalSince1970: TimeInterval(review.id) / 1000), ease: review.ease,
                       interval: review.interval > 0 ? Int(clamping: review.interval) : 0,
                       duration: Double(review.timeTaken) / 1000)
    }

    /// The Anki scheduling fields of a card, as a template for the cards of its note:
    /// new (queue 0) without a due date, else a review card due on its day.
    static func ankiCard(for card: CardSnapshot, id: Int64, noteID: Int64, deckID: Int64, ordinal: Int,
                         collectionCreation: Int64) -> AnkiCard {
        var result = AnkiCard(id: id, noteID: noteID, deckID: deckID, ordinal: ordinal,
                              modified: Int64(saturating: card.modified.timeIntervalSince1970, rounding: .down))
        result.reps = Int64(card.repetitions)
        result.lapses = Int64(card.lapses)
        guard let due = card.due else { return result }
        let day = Int64(saturating: (due.timeIntervalSince1970 - TimeInterval(collectionCreation)) / 86_400, rounding: .down)
        result.type = .review
        result.queue = .review
        result.due = day
        result.interval = Int64(max(card.interval, 1))
        result.factor = Int64(saturating: card.ease * 1000)
        return result
    }

    /// A ``Review`` as an Anki review-history entry of card `cardID`.
    static func ankiReview(_ review: ReviewSnapshot, cardID: Int64, previousInterval: Int, factor: Int64) -> AnkiReview {
        AnkiReview(id: Int64(saturating: review.date.timeIntervalSince1970 * 1000), cardID: cardID, ease: review.ease,
                   interval: Int64(review.interval), lastInterval: Int64(previousInterval), factor: factor,
                   timeTaken: Int64(saturating: review.duration * 1000), kind: review.interval > 0 ? .review : .learning)
    }
}
