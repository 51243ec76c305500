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
    /// Flag colour (0 none, 1 red, 2 orange, 3 green, 4 blue, …).
    public var flags: Int

    /// Creates a card; by default a new card at position `due`.
    public init(id: Int64, noteID: Int64, deckID: Int64, ordinal: Int, modified: Int64 = 0,
                type: CardType = .new, queue: Queue = .new, due: Int64 = 0, interval: Int64 = 0,
                factor: Int64 = 0, reps: Int64 = 0, lapses: Int64 = 0, left: Int64 = 0,
                originalDue: Int64 = 0, originalDeckID: Int64 = 0, flags: Int = 0) {
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
    }
}
