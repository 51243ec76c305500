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

    /// Copies an Anki card's scheduling onto `card`.
    static func apply(_ anki: AnkiCard, collectionCreation: Int64, to card: Card) {
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
        return Date(timeIntervalSince1970: TimeInterval(collectionCreation + card.due * 86_400))
    }

    /// A review-history entry as a ``Review``.
    static func review(_ review: AnkiReview) -> Review {
        Review(date: Date(timeIntervalSince1970: TimeInterval(review.id) / 1000), ease: review.ease,
               interval: review.interval > 0 ? Int(clamping: review.interval) : 0,
               duration: Double(review.timeTaken) / 1000)
    }

    /// The Anki scheduling fields of a card, as a template for the cards of its note:
    /// new (queue 0) without a due date, else a review card due on its day.
    static func ankiCard(for card: CardSnapshot, id: Int64, noteID: Int64, deckID: Int64, ordinal: Int,
                         collectionCreation: Int64) -> AnkiCard {
        var result = AnkiCard(id: id, noteID: noteID, deckID: deckID, ordinal: ordinal,
                              modified: Int64(card.modified.timeIntervalSince1970))
        result.reps = Int64(card.repetitions)
        result.lapses = Int64(card.lapses)
        guard let due = card.due else { return result }
        let day = Int64(((due.timeIntervalSince1970 - TimeInterval(collectionCreation)) / 86_400).rounded(.down))
        result.type = .review
        result.queue = .review
        result.due = day
        result.interval = Int64(max(card.interval, 1))
        result.factor = Int64((card.ease * 1000).rounded())
        return result
    }

    /// A ``Review`` as an Anki review-history entry of card `cardID`.
    static func ankiReview(_ review: ReviewSnapshot, cardID: Int64, previousInterval: Int, factor: Int64) -> AnkiReview {
        AnkiReview(id: Int64((review.date.timeIntervalSince1970 * 1000).rounded()), cardID: cardID, ease: review.ease,
                   interval: Int64(review.interval), lastInterval: Int64(previousInterval), factor: factor,
                   timeTaken: Int64((review.duration * 1000).rounded()), kind: review.interval > 0 ? .review : .learning)
    }
}
