import Foundation

/// A deck of the tree being studied, with what the queue builder needs to know about it.
public struct StudyDeck: Sendable, Hashable {
    /// The deck's id.
    public var id: Int64
    /// Its parent's id; `nil` for a top-level deck.
    public var parentID: Int64?
    /// The preset of the deck's options.
    public var preset: SchedulingPreset
    /// New cards already introduced in this deck today (Anki's deck `newToday` counter).
    public var newStudiedToday: Int
    /// Reviews (and interday learning) already done in this deck today (`revToday`).
    public var reviewsStudiedToday: Int
    /// This deck's own new-card limit, replacing the preset's (Anki's deck-specific limit).
    public var newLimit: Int?
    /// This deck's own review limit, replacing the preset's.
    public var reviewLimit: Int?

    /// A deck.
    public init(id: Int64, parentID: Int64? = nil, preset: SchedulingPreset = .default, newStudiedToday: Int = 0,
                reviewsStudiedToday: Int = 0, newLimit: Int? = nil, reviewLimit: Int? = nil) {
        self.id = id
        self.parentID = parentID
        self.preset = preset
        self.newStudiedToday = newStudiedToday
        self.reviewsStudiedToday = reviewsStudiedToday
        self.newLimit = newLimit
        self.reviewLimit = reviewLimit
    }
}

/// What the queue builder needs of one card: one row of the candidate query.
public struct StudyCandidate: Sendable, Hashable {
    /// The card's id.
    public var id: Int64
    /// Its note's id (siblings share it).
    public var noteID: Int64
    /// The deck it is in.
    public var deckID: Int64
    /// Its queue (`cards.queue`).
    public var queue: CardQueue
    /// Its due value (`cards.due`): position, Unix time or day number by queue.
    public var due: Int64
    /// Its review count (`cards.reps`): intraday learning cards already seen come first.
    public var reps: Int
    /// Its template's ordinal (`cards.ord`), for the new-card order by template.
    public var templateIndex: Int

    /// A candidate.
    public init(id: Int64, noteID: Int64, deckID: Int64, queue: CardQueue, due: Int64, reps: Int = 0, templateIndex: Int = 0) {
        self.id = id
        self.noteID = noteID
        self.deckID = deckID
        self.queue = queue
        self.due = due
        self.reps = reps
        self.templateIndex = templateIndex
    }
}

/// Today's study queue of a deck and its subdecks, as Anki's v3 scheduler builds it.
public struct StudyQueue: Sendable, Hashable {
    /// A card in the queue.
    public struct Entry: Sendable, Hashable {
        /// The card's id.
        public var cardID: Int64
        /// Its note's id.
        public var noteID: Int64
        /// What it is.
        public var kind: Kind
        /// For intraday learning, when it is due (Unix seconds); otherwise 0.
        public var due: Int64

        /// An entry.
        public init(cardID: Int64, noteID: Int64, kind: Kind, due: Int64 = 0) {
            self.cardID = cardID
            self.noteID = noteID
            self.kind = kind
            self.due = due
        }
    }

    /// Why a card is in the queue.
    public enum Kind: Sendable, Hashable {
        /// A new card.
        case new
        /// An intraday learning or relearning card (due at a time).
        case learning
        /// An interday learning card (due on a day).
        case interdayLearning
        /// A review.
        case review
    }

    /// Cards left by kind, as Anki's counts show them (learning counts cards, not steps).
    public struct Counts: Sendable, Hashable {
        /// New cards.
        public var new: Int
        /// Learning cards due now or within the learn-ahead limit, plus interday learning.
        public var learning: Int
        /// Reviews.
        public var review: Int

        /// Counts.
        public init(new: Int, learning: Int, review: Int) {
            self.new = new
            self.learning = learning
            self.review = review
        }
    }

    /// Intraday learning cards due today, seen ones first, then by due time.
    public var learning: [Entry]
    /// Reviews, interday learning and new cards, merged as the root deck's preset says.
    public var main: [Entry]
    /// When the queue was built (Unix seconds).
    public var builtAt: Int64
    /// The learn-ahead limit in seconds.
    public var learnAheadSeconds: Int

    /// A queue (the builder makes them).
    public init(learning: [Entry], main: [Entry], builtAt: Int64, learnAheadSeconds: Int) {
        self.learning = learning
        self.main = main
        self.builtAt = builtAt
        self.learnAheadSeconds = learnAheadSeconds
    }

    /// The counts at `now` (Unix seconds): new and review cards left in the main queue; learning
    /// cards due by `now` plus the learn-ahead limit, and interday learning.
    public func counts(at now: Int64) -> Counts {
        var counts = Counts(new: 0, learning: 0, review: 0)
        for entry in main {
            switch entry.kind {
            case .new: counts.new += 1
            case .review: counts.review += 1
            case .learning, .interdayLearning: counts.learning += 1
            }
        }
        let cutoff = now + Int64(learnAheadSeconds)
        counts.learning += learning.lazy.filter { $0.due <= cutoff }.count
        return counts
    }

    /// The counts when the queue was built.
    public var counts: Counts { counts(at: builtAt) }

    /// The cards in the order they will be shown at `now` (Unix seconds), as Anki's queue
    /// iterates them: learning cards due by now, the main queue, then learning cards due within
    /// the learn-ahead limit. Learning cards due later today are not listed yet.
    public func ordered(at now: Int64) -> [Entry] {
        let ahead = now + Int64(learnAheadSeconds)
        return learning.filter { $0.due <= now } + main + learning.filter { $0.due > now && $0.due <= ahead }
    }

    /// The card to show at `now` (Unix seconds): the first of ``ordered(at:)``; `nil` when done
    /// for now. After answering, drop the card (``removing(cardID:)``) and, if it is still
    /// learning today, put it back with its new due time (``inserting(learning:)``).
    public func next(at now: Int64) -> Entry? {
        if let first = learning.first(where: { $0.due <= now }) { return first }
        if let head = main.first { return head }
        let ahead = now + Int64(learnAheadSeconds)
        return learning.first { $0.due > now && $0.due <= ahead }
    }

    /// The queue without a card (after it was answered, buried or suspended).
    public func removing(cardID: Int64) -> StudyQueue {
        var copy = self
        copy.learning.removeAll { $0.cardID == cardID }
        copy.main.removeAll { $0.cardID == cardID }
        return copy
    }

    /// The queue with a card that is learning again today, due at `entry.due` (placed among the
    /// other learning cards as Anki sorts them: by due time; an answered card has been seen).
    public func inserting(learning entry: Entry) -> StudyQueue {
        var copy = removing(cardID: entry.cardID)
        let index = copy.learning.firstIndex { $0.due > entry.due } ?? copy.learning.endIndex
        copy.learning.insert(entry, at: index)
        return copy
    }
}
