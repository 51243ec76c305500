/// An Anki card: one template (or cloze number) of a note, in a deck, with its scheduling state.
public struct AnkiCard: Sendable, Hashable, Identifiable {
    /// The card's learning stage (`cards.type`). Unknown raw values are kept as they are.
    public struct CardType: RawRepresentable, Sendable, Hashable {
        /// The value stored in the collection.
        public var rawValue: Int
        /// Wraps a stored value, known or not.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Never studied.
        public static let new = CardType(rawValue: 0)
        /// In (first) learning.
        public static let learning = CardType(rawValue: 1)
        /// Graduated to review.
        public static let review = CardType(rawValue: 2)
        /// Relearning after a lapse.
        public static let relearning = CardType(rawValue: 3)
    }

    /// Which queue the card waits in (`cards.queue`). Unknown raw values are kept as they are.
    public struct Queue: RawRepresentable, Sendable, Hashable {
        /// The value stored in the collection.
        public var rawValue: Int
        /// Wraps a stored value, known or not.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Manually buried.
        public static let manuallyBuried = Queue(rawValue: -3)
        /// Buried because a sibling was studied.
        public static let siblingBuried = Queue(rawValue: -2)
        /// Suspended.
        public static let suspended = Queue(rawValue: -1)
        /// New cards.
        public static let new = Queue(rawValue: 0)
        /// Learning, due within the day (``AnkiCard/due`` is a timestamp in seconds).
        public static let learning = Queue(rawValue: 1)
        /// Review (``AnkiCard/due`` is a day number counted from the collection's creation).
        public static let review = Queue(rawValue: 2)
        /// Learning across days (``AnkiCard/due`` is a day number).
        public static let dayLearning = Queue(rawValue: 3)
        /// Preview in a filtered deck.
        public static let preview = Queue(rawValue: 4)
    }

    /// The card's id, usually a millisecond timestamp.
    public var id: Int64
    /// The note it belongs to.
    public var noteID: Int64
    /// The deck it is in.
    public var deckID: Int64
    /// The template index (standard) or cloze number minus one (cloze).
    public var ordinal: Int
    /// Last modification, in seconds since 1970.
    public var modified: Int64
    /// Its learning stage.
    public var type: CardType
    /// Its queue.
    public var queue: Queue
    /// When it is due: new-card position (new), day number (review) or timestamp (learning).
    public var due: Int64
    /// The current interval in days (negative: seconds, for learning cards).
    public var interval: Int64
    /// The ease factor in permille (2500 = 250%); 0 for new cards.
    public var factor: Int64
    /// How many times it was reviewed.
    public var reps: Int64
    /// How many times it lapsed (was forgotten after graduating).
    public var lapses: Int64
    /// Learning steps left (`cards.left`).
    public var left: Int64
    /// The original due, while in a filtered deck (`odue`).
    public var originalDue: Int64
    /// The original deck, while in a filtered deck (`odid`); 0 otherwise.
    public var originalDeckID: Int64
    /// Flag colour (0 none, 1 red, 2 orange, 3 green, 4 blue, 5 pink, 6 turquoise, 7 purple).
    public var flags: Int
    /// FSRS stability in days (card `data` key `s`), nil when the card has no memory state.
    public var stability: Double?
    /// FSRS difficulty, 1–10 (card `data` key `d`), nil when the card has no memory state.
    public var difficulty: Double?
    /// The desired retention the card was last scheduled with (`dr`), nil when not recorded.
    public var desiredRetention: Double?
    /// The FSRS-6 decay of the memory state (`decay`), nil when not recorded.
    public var decay: Double?
    /// When the card was last reviewed, Unix seconds (`lrt`), nil when not recorded.
    public var lastReview: Int64?
    /// A new card's position before it was rescheduled (`pos`), nil when not recorded.
    public var originalPosition: Int64?
    /// Custom scheduling data (`cd`): the text of a JSON object, verbatim; `""` for none.
    public var customData: String
    /// The other keys of the card's `data` JSON object, as the text of a JSON object
    /// (`"{}"` for none), verbatim: what a later Anki adds is carried, not dropped.
    public var otherData: String

    /// Creates a card; by default a new card at position `due`.
    public init(id: Int64, noteID: Int64, deckID: Int64, ordinal: Int, modified: Int64 = 0,
                type: CardType = .new, queue: Queue = .new, due: Int64 = 0, interval: Int64 = 0,
                factor: Int64 = 0, reps: Int64 = 0, lapses: Int64 = 0, left: Int64 = 0,
                originalDue: Int64 = 0, originalDeckID: Int64 = 0, flags: Int = 0,
                stability: Double? = nil, difficulty: Double? = nil, desiredRetention: Double? = nil,
                decay: Double? = nil, lastReview: Int64? = nil, originalPosition: Int64? = nil,
                customData: String = "", otherData: String = "{}") {
        self.id = id
        self.noteID = noteID
        self.deckID = deckID
        self.ordinal = ordinal
        self.modified = modified
        self.type = type
        self.queue = queue
        self.due = due
        self.interval = interval
        self.factor = factor
        self.reps = reps
        self.lapses = lapses
        self.left = left
        self.originalDue = originalDue
        self.originalDeckID = originalDeckID
        self.flags = flags
        self.stability = stability
        self.difficulty = difficulty
        self.desiredRetention = desiredRetention
        self.decay = decay
        self.lastReview = lastReview
        self.originalPosition = originalPosition
        self.customData = customData
        self.otherData = otherData
    }

    /// Whether the card has an FSRS memory state (both stability and difficulty).
    public var hasMemoryState: Bool { stability != nil && difficulty != nil }
}
