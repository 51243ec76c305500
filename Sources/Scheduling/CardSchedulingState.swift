/// A card's kind in the scheduler, as Anki's `cards.type` column.
public enum CardType: Int, Sendable, Hashable, Codable {
    /// Never answered.
    case new = 0
    /// In its first learning steps.
    case learning = 1
    /// Graduated: scheduled in days.
    case review = 2
    /// Forgotten, going through the relearning steps.
    case relearning = 3
}

/// Where a card waits, as Anki's `cards.queue` column.
public enum CardQueue: Int, Sendable, Hashable, Codable {
    /// Buried by hand (comes back the next day).
    case manuallyBuried = -3
    /// Buried because a sibling was studied (comes back the next day).
    case siblingBuried = -2
    /// Suspended: never shown until unsuspended.
    case suspended = -1
    /// New: `due` is the position in the new queue.
    case new = 0
    /// Learning within the day: `due` is a Unix time in seconds.
    case learning = 1
    /// Review: `due` is a day number (days since the collection's creation).
    case review = 2
    /// Learning across days: `due` is a day number.
    case dayLearning = 3
    /// Previewed in a filtered deck: `due` is a Unix time in seconds.
    case preview = 4
}

/// A card's scheduling state, column for column as Anki stores it (`cards` plus the FSRS fields
/// of its `data` JSON), so a store can hold it as is and Anki can carry on from it.
///
/// `due` means different things by queue: a position for new cards, a Unix time in seconds for
/// intraday learning, a day number (see ``SchedulingTiming``) for reviews and interday learning.
public struct CardSchedulingState: Sendable, Hashable, Codable {
    /// The card's kind (`cards.type`).
    public var type: CardType
    /// Where the card waits (`cards.queue`).
    public var queue: CardQueue
    /// Position, Unix time or day number, by queue (`cards.due`).
    public var due: Int64
    /// The current interval in days (`cards.ivl`); 0 before the card graduates.
    public var interval: Int
    /// The SM-2 ease factor in permille, 2500 for 2.5 (`cards.factor`); 0 before graduating.
    public var easeFactor: Int
    /// How many times the card was answered (`cards.reps`).
    public var reps: Int
    /// How many times it lapsed from review (`cards.lapses`).
    public var lapses: Int
    /// Learning or relearning steps left (`cards.left`; Anki reads it modulo 1000).
    public var remainingSteps: Int
    /// FSRS stability and difficulty (`data.s`, `data.d`); `nil` before the first FSRS answer.
    public var memory: MemoryState?
    /// The desired retention in force at the last answer (`data.dr`); `nil` under SM-2.
    public var desiredRetention: Double?
    /// The time of the last answer, Unix seconds (`data.lrt`).
    public var lastReview: Int64?
    /// The position the card had in the new queue before its first answer (`data.pos`).
    public var originalPosition: Int?

    /// A state with every column given.
    public init(type: CardType, queue: CardQueue, due: Int64, interval: Int = 0, easeFactor: Int = 0,
                reps: Int = 0, lapses: Int = 0, remainingSteps: Int = 0, memory: MemoryState? = nil,
                desiredRetention: Double? = nil, lastReview: Int64? = nil, originalPosition: Int? = nil) {
        self.type = type
        self.queue = queue
        self.due = due
        self.interval = interval
        self.easeFactor = easeFactor
        self.reps = reps
        self.lapses = lapses
        self.remainingSteps = remainingSteps
        self.memory = memory
        self.desiredRetention = desiredRetention
        self.lastReview = lastReview
        self.originalPosition = originalPosition
    }

    /// A new card at `position` in the new queue.
    public static func new(position: Int64) -> CardSchedulingState {
        CardSchedulingState(type: .new, queue: .new, due: position)
    }
}

/// One row of Anki's review log (`revlog`), as an answer adds it.
public struct ReviewLogEntry: Sendable, Hashable, Codable {
    /// The kind of review (`revlog.type`).
    public enum Kind: Int, Sendable, Hashable, Codable {
        /// A new or learning card.
        case learning = 0
        /// A review card answered on or after its due day.
        case review = 1
        /// A relearning card.
        case relearning = 2
        /// A review answered before its due day (Anki files these as "filtered").
        case filtered = 3
        /// A manual change (reset, set due date).
        case manual = 4
        /// Rescheduled.
        case rescheduled = 5
    }

    /// The time of the answer in milliseconds since 1970 (`revlog.id`).
    public var id: Int64
    /// The button, 1–4 (`revlog.ease`).
    public var ease: Int
    /// The new interval: days, or negative seconds for learning (`revlog.ivl`).
    public var interval: Int
    /// The previous interval, same units (`revlog.lastIvl`).
    public var lastInterval: Int
    /// The ease factor in permille under SM-2, or FSRS difficulty shifted to 100…1100 (`revlog.factor`).
    public var factor: Int
    /// Milliseconds spent on the answer (`revlog.time`).
    public var time: Int
    /// The review kind (`revlog.type`).
    public var kind: Kind

    /// A review log row.
    public init(id: Int64, ease: Int, interval: Int, lastInterval: Int, factor: Int, time: Int, kind: Kind) {
        self.id = id
        self.ease = ease
        self.interval = interval
        self.lastInterval = lastInterval
        self.factor = factor
        self.time = time
        self.kind = kind
    }
}
