/// One answer in a card's review history (a `revlog` row).
public struct AnkiReview: Sendable, Hashable, Identifiable {
    /// What kind of review it was (`revlog.type`). Unknown raw values are kept as they are.
    public struct Kind: RawRepresentable, Sendable, Hashable {
        /// The value stored in the collection.
        public var rawValue: Int
        /// Wraps a stored value, known or not.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// A learning step.
        public static let learning = Kind(rawValue: 0)
        /// A review.
        public static let review = Kind(rawValue: 1)
        /// A relearning step.
        public static let relearning = Kind(rawValue: 2)
        /// A review in a filtered deck.
        public static let filtered = Kind(rawValue: 3)
        /// A manual reschedule.
        public static let manual = Kind(rawValue: 4)
        /// A bulk reschedule.
        public static let rescheduled = Kind(rawValue: 5)
    }

    /// When the answer was given, in milliseconds since 1970 (also the row's id).
    public var id: Int64
    /// The card answered.
    public var cardID: Int64
    /// The button pressed: 1 again, 2 hard, 3 good, 4 easy (0 for manual entries).
    public var ease: Int
    /// The new interval: days if positive, seconds if negative.
    public var interval: Int64
    /// The previous interval, same units.
    public var lastInterval: Int64
    /// The ease factor after the answer, in permille.
    public var factor: Int64
    /// How long the answer took, in milliseconds.
    public var timeTaken: Int64
    /// What kind of review it was.
    public var kind: Kind
    /// The sync sequence number (`revlog.usn`): -1 for rows not yet synced.
    public var usn: Int

    /// Creates a review entry.
    public init(id: Int64, cardID: Int64, ease: Int, interval: Int64, lastInterval: Int64,
                factor: Int64, timeTaken: Int64, kind: Kind, usn: Int = -1) {
        self.id = id
        self.cardID = cardID
        self.ease = ease
        self.interval = interval
        self.lastInterval = lastInterval
        self.factor = factor
        self.timeTaken = timeTaken
        self.kind = kind
        self.usn = usn
    }
}
