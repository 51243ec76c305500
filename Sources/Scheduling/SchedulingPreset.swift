/// A deck options preset: the scheduling settings shared by the decks that use it, as Anki's
/// `deck_config` holds them. The defaults are those of a new Anki preset with FSRS-6 on.
public struct SchedulingPreset: Sendable, Hashable, Codable {
    /// What an answer that passes the leech threshold does.
    public enum LeechAction: Int, Sendable, Hashable, Codable {
        /// Suspend the card (and tag its note `leech`).
        case suspend = 0
        /// Only tag the note `leech`.
        case tagOnly = 1
    }

    /// How two groups of cards are merged in the study queue (Anki's `ReviewMix`).
    public enum Mix: Int, Sendable, Hashable, Codable {
        /// Spread evenly among reviews.
        case mixWithReviews = 0
        /// After all reviews.
        case afterReviews = 1
        /// Before all reviews.
        case beforeReviews = 2
    }

    /// How new cards are ordered once gathered (Anki's `NewCardSortOrder`).
    public enum NewCardOrder: Int, Sendable, Hashable, Codable {
        /// By template (card type), then as gathered.
        case template = 0
        /// As gathered (position, deck by deck).
        case noSort = 1
        /// By template, then in a random order that changes every day.
        case templateThenRandom = 2
        /// Notes in a random order, each note's cards by template.
        case randomNoteThenTemplate = 3
        /// Cards in a random order.
        case randomCard = 4
    }

    /// The preset's name.
    public var name: String
    /// New cards introduced per day (Anki's `new_per_day`, 20).
    public var newCardsPerDay: Int
    /// Reviews per day (`reviews_per_day`, 200); interday learning counts, intraday does not.
    public var reviewsPerDay: Int
    /// Learning steps in minutes (`learn_steps`, 1 10).
    public var learningSteps: [Double]
    /// Relearning steps in minutes (`relearn_steps`, 10).
    public var relearningSteps: [Double]
    /// Whether FSRS schedules the cards; `false` means SM-2. In Anki this is a collection-wide
    /// switch; here each preset carries it.
    public var fsrsEnabled: Bool
    /// FSRS parameters (the FSRS-6 defaults).
    public var fsrsParameters: FSRSParameters
    /// Desired retention, 0.7…0.99 in Anki's options (0.9).
    public var desiredRetention: Double
    /// The retention assumed when estimating FSRS memory from SM-2 history (0.9).
    public var historicalRetention: Double
    /// Whether, with FSRS, sub-day intervals are kept as learning even when steps are configured
    /// (Anki's "FSRS short-term with steps", off).
    public var fsrsShortTermWithSteps: Bool
    /// The longest interval in days (`maximum_review_interval`, 36,500).
    public var maximumInterval: Int
    /// SM-2: the interval after graduating with Good (`graduating_interval_good`, 1 day).
    public var graduatingInterval: Int
    /// SM-2: the interval after graduating with Easy (`graduating_interval_easy`, 4 days).
    public var easyInterval: Int
    /// SM-2: the starting ease (2.5).
    public var initialEase: Double
    /// SM-2: the Easy bonus multiplier (1.3).
    public var easyMultiplier: Double
    /// SM-2: the Hard multiplier (1.2).
    public var hardMultiplier: Double
    /// SM-2: the interval modifier (1.0).
    public var intervalMultiplier: Double
    /// SM-2: the "new interval" multiplier applied to a lapsed card's interval (0.0).
    public var lapseMultiplier: Double
    /// SM-2: the shortest interval after a lapse, in days (1).
    public var minimumLapseInterval: Int
    /// Lapses after which a card is a leech (8; 0 turns leeches off).
    public var leechThreshold: Int
    /// What becoming a leech does (tag only).
    public var leechAction: LeechAction
    /// Bury new siblings of a studied card until the next day (off).
    public var buryNew: Bool
    /// Bury review siblings (off).
    public var buryReviews: Bool
    /// Bury interday-learning siblings (off).
    public var buryInterdayLearning: Bool
    /// How new cards are sorted after gathering (by template).
    public var newCardOrder: NewCardOrder
    /// Where new cards go among reviews (mixed).
    public var newMix: Mix
    /// Where interday learning cards go among reviews (mixed).
    public var interdayLearningMix: Mix

    /// A preset; every argument defaults to Anki's default preset with FSRS-6.
    public init(name: String = "Default", newCardsPerDay: Int = 20, reviewsPerDay: Int = 200,
                learningSteps: [Double] = [1, 10], relearningSteps: [Double] = [10],
                fsrsEnabled: Bool = true, fsrsParameters: FSRSParameters = .default,
                desiredRetention: Double = 0.9, historicalRetention: Double = 0.9,
                fsrsShortTermWithSteps: Bool = false, maximumInterval: Int = 36_500,
                graduatingInterval: Int = 1, easyInterval: Int = 4, initialEase: Double = 2.5,
                easyMultiplier: Double = 1.3, hardMultiplier: Double = 1.2, intervalMultiplier: Double = 1.0,
                lapseMultiplier: Double = 0.0, minimumLapseInterval: Int = 1, leechThreshold: Int = 8,
                leechAction: LeechAction = .tagOnly, buryNew: Bool = false, buryReviews: Bool = false,
                buryInterdayLearning: Bool = false, newCardOrder: NewCardOrder = .template,
                newMix: Mix = .mixWithReviews, interdayLearningMix: Mix = .mixWithReviews) {
        self.name = name
        self.newCardsPerDay = newCardsPerDay
        self.reviewsPerDay = reviewsPerDay
        self.learningSteps = learningSteps
        self.relearningSteps = relearningSteps
        self.fsrsEnabled = fsrsEnabled
        self.fsrsParameters = fsrsParameters
        self.desiredRetention = desiredRetention
        self.historicalRetention = historicalRetention
        self.fsrsShortTermWithSteps = fsrsShortTermWithSteps
        self.maximumInterval = maximumInterval
        self.graduatingInterval = graduatingInterval
        self.easyInterval = easyInterval
        self.initialEase = initialEase
        self.easyMultiplier = easyMultiplier
        self.hardMultiplier = hardMultiplier
        self.intervalMultiplier = intervalMultiplier
        self.lapseMultiplier = lapseMultiplier
        self.minimumLapseInterval = minimumLapseInterval
        self.leechThreshold = leechThreshold
        self.leechAction = leechAction
        self.buryNew = buryNew
        self.buryReviews = buryReviews
        self.buryInterdayLearning = buryInterdayLearning
        self.newCardOrder = newCardOrder
        self.newMix = newMix
        self.interdayLearningMix = interdayLearningMix
    }

    /// Anki's default preset with FSRS-6 (what a new deck gets).
    public static let `default` = SchedulingPreset()

    /// Anki's default preset with SM-2.
    public static let sm2 = SchedulingPreset(fsrsEnabled: false)
}
