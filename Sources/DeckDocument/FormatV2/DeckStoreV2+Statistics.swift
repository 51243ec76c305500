import Foundation
import Persistence
import SQLite

/// Counts of a version 2 store for `deck stats`: cards by state, deck and note type, what is
/// due, media, read with a few aggregate queries (no models).
public struct DeckCardStatistics: Sendable, Hashable {
    /// Cards by state; suspended and buried cards count there, not under their type.
    public struct States: Sendable, Hashable {
        public var new = 0, learning = 0, review = 0, relearning = 0, suspended = 0, buried = 0
        public init() {}
    }

    /// One deck of the tree: its cards, its new cards and the cards due by the end of today.
    public struct DeckCounts: Sendable, Hashable {
        public var name: String
        public var cards: Int
        public var new: Int
        /// Learning cards due before the next day starts, interday learning and reviews due today or earlier.
        public var due: Int
    }

    /// One note type: its notes and their cards.
    public struct NoteTypeCounts: Sendable, Hashable {
        public var name: String
        public var notes: Int
        public var cards: Int
    }

    public var notes = 0
    public var cards = 0
    public var states = States()
    /// Every deck, in name order (including decks without cards).
    public var decks: [DeckCounts] = []
    /// Every note type, in name order.
    public var noteTypes: [NoteTypeCounts] = []
    /// Media files in the package and their bytes.
    public var mediaFiles = 0
    public var mediaBytes = 0
}

/// Answers in the review log since a time, for retention (as Anki's "true retention" counts
/// them: answers of cards in review, passed when the rating is Hard or better; young when the
/// previous interval was under 21 days, mature otherwise).
public struct ReviewRetention: Sendable, Hashable {
    /// Every answer (learning, review, relearning, filtered; manual entries not).
    public var answers = 0
    /// Milliseconds spent on them.
    public var duration = 0
    /// Answers of review cards, and those of them not answered Again.
    public var reviews = 0, passed = 0
    public var youngReviews = 0, youngPassed = 0
    public var matureReviews = 0, maturePassed = 0

    public init() {}

    /// `passed / reviews`, nil without reviews.
    public var rate: Double? { reviews == 0 ? nil : Double(passed) / Double(reviews) }
    public var youngRate: Double? { youngReviews == 0 ? nil : Double(youngPassed) / Double(youngReviews) }
    public var matureRate: Double? { matureReviews == 0 ? nil : Double(maturePassed) / Double(matureReviews) }
}

extension DeckStoreV2 {
    /// Counts of the store's cards, decks, note types and media; "due" as of the day number
    /// `today` whose next day starts at `nextDayAt` (Unix seconds).
    /// - Throws: the store's error.
    public static func cardStatistics(in container: ModelContainer, today: Int64, nextDayAt: Int64) throws -> DeckCardStatistics {
        try container.withDatabase(for: DeckSchemaV2.Card.self) { db in
            var statistics = DeckCardStatistics()
            let states = try db.prepare(#"SELECT "type", "queue", count(*) FROM "Card" GROUP BY "type", "queue""#)
            while try states.step() {
                let count = Int(truncatingIfNeeded: states.int64(at: 2))
                statistics.cards += count
                switch (states.int64(at: 0), states.int64(at: 1)) {
                case (_, -1): statistics.states.suspended += count
                case (_, -3), (_, -2): statistics.states.buried += count
                case (1, _): statistics.states.learning += count
                case (2, _): statistics.states.review += count
                case (3, _): statistics.states.relearning += count
                default: statistics.states.new += count
                }
            }
            statistics.notes = Int(try db.scalar(#"SELECT count(*) FROM "Note""#, as: Int64.self) ?? 0)
            let decks = try db.prepare("""
                SELECT d."name", count(c."pk"), coalesce(sum(c."queue" = 0), 0), \
                coalesce(sum((c."queue" IN (1, 4) AND c."due" < ?) OR (c."queue" IN (2, 3) AND c."due" <= ?)), 0) \
                FROM "Deck" d LEFT JOIN "Card" c ON c."deck" = d."pk" GROUP BY d."pk" ORDER BY lower(replace(d."name", '::', char(31)))
                """)
            try decks.bind([.integer(nextDayAt), .integer(today)])
            while try decks.step() {
                statistics.decks.append(.init(name: decks.string(at: 0), cards: Int(truncatingIfNeeded: decks.int64(at: 1)),
                                              new: Int(truncatingIfNeeded: decks.int64(at: 2)), due: Int(truncatingIfNeeded: decks.int64(at: 3))))
            }
            let types = try db.prepare("""
                SELECT t."name", (SELECT count(*) FROM "Note" n WHERE n."noteType" = t."pk"), \
                (SELECT count(*) FROM "Card" c JOIN "Note" n ON n."pk" = c."note" WHERE n."noteType" = t."pk") \
                FROM "NoteType" t ORDER BY lower(t."name"), t."pk"
                """)
            while try types.step() {
                statistics.noteTypes.append(.init(name: types.string(at: 0), notes: Int(truncatingIfNeeded: types.int64(at: 1)),
                                                  cards: Int(truncatingIfNeeded: types.int64(at: 2))))
            }
            let media = try db.prepare(#"SELECT count(*), coalesce(sum("size"), 0) FROM "MediaFile""#)
            if try media.step() {
                statistics.mediaFiles = Int(truncatingIfNeeded: media.int64(at: 0))
                statistics.mediaBytes = Int(truncatingIfNeeded: media.int64(at: 1))
            }
            return statistics
        }
    }

    /// Cards coming due on each of `days` days from day `today` (whose next day starts at
    /// `nextDayAt`): reviews and interday learning by due day, intraday learning by the day
    /// its due time falls in; what is overdue counts on the first day. Suspended, buried and
    /// new cards are not due. One pass over the `Card_deck_queue_due` index.
    /// - Throws: the store's error.
    public static func dueForecast(in container: ModelContainer, today: Int64, nextDayAt: Int64, days: Int) throws -> [Int] {
        var forecast = Array(repeating: 0, count: max(days, 0))
        guard days > 0 else { return forecast }
        try container.withDatabase(for: DeckSchemaV2.Card.self) { db in
            let statement = try db.prepare("""
                SELECT CASE WHEN "queue" IN (1, 4) THEN ("due" - ?) / 86400 ELSE "due" - ? END AS "day", count(*) \
                FROM "Card" WHERE "queue" IN (1, 2, 3, 4) GROUP BY "day"
                """)
            // Intraday: seconds since the start of today, floored to days (due before today gives ≤ 0).
            try statement.bind([.integer(nextDayAt - 86_400), .integer(today)])
            while try statement.step() {
                let day = max(statement.int64(at: 0), 0)
                if day < Int64(days) { forecast[Int(day)] += Int(truncatingIfNeeded: statement.int64(at: 1)) }
            }
        }
        return forecast
    }

    /// The answers in the review log from `start` up to (not including) `end`, in milliseconds
    /// since 1970: one range of the `Review_time` index.
    /// - Throws: the store's error.
    public static func retention(in container: ModelContainer, from start: Int64, to end: Int64) throws -> ReviewRetention {
        try container.withDatabase(for: DeckSchemaV2.Review.self) { db in
            let statement = try db.prepare("""
                SELECT count(*), coalesce(sum("duration"), 0), \
                coalesce(sum("kind" = 1), 0), coalesce(sum("kind" = 1 AND "rating" > 1), 0), \
                coalesce(sum("kind" = 1 AND "lastInterval" < 21), 0), coalesce(sum("kind" = 1 AND "lastInterval" < 21 AND "rating" > 1), 0), \
                coalesce(sum("kind" = 1 AND "lastInterval" >= 21), 0), coalesce(sum("kind" = 1 AND "lastInterval" >= 21 AND "rating" > 1), 0) \
                FROM "Review" WHERE "time" >= ? AND "time" < ? AND "kind" <> 4 AND "rating" > 0
                """)
            try statement.bind([.integer(start), .integer(end)])
            var retention = ReviewRetention()
            if try statement.step() {
                func value(_ index: Int32) -> Int { Int(truncatingIfNeeded: statement.int64(at: index)) }
                retention.answers = value(0)
                retention.duration = value(1)
                retention.reviews = value(2)
                retention.passed = value(3)
                retention.youngReviews = value(4)
                retention.youngPassed = value(5)
                retention.matureReviews = value(6)
                retention.maturePassed = value(7)
            }
            return retention
        }
    }
}
