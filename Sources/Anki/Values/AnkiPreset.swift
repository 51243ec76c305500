/// An Anki preset ("deck options", `col.dconf` in schema 11, the `deck_config` table in
/// schema 18): daily limits, steps, the scheduler's parameters. Decks name theirs with
/// ``AnkiDeck/presetID``.
///
/// Values use schema 11's units: steps in minutes, the starting ease in permille.
public struct AnkiPreset: Sendable, Hashable, Identifiable {
    /// The preset's id; 1 is Anki's default preset.
    public var id: Int64
    /// Its name ("Default").
    public var name: String
    /// Last modification, in seconds since 1970 (`mod`; 0 unknown).
    public var modified: Int64
    /// New cards a day (`new.perDay`).
    public var newPerDay: Int
    /// Reviews a day (`rev.perDay`).
    public var reviewsPerDay: Int
    /// Learning steps in minutes (`new.delays`).
    public var learningSteps: [Double]
    /// Relearning steps in minutes (`lapse.delays`).
    public var relearningSteps: [Double]
    /// The longest interval, in days (`rev.maxIvl`).
    public var maximumInterval: Int
    /// The FSRS weights: the newest set present (`fsrsParams6`, else 5, else 4); empty for the defaults.
    public var fsrsParameters: [Double]
    /// The retention FSRS aims for (`desiredRetention`), 0 < r < 1.
    public var desiredRetention: Double
    /// SM-2: the starting ease in permille (`new.initialFactor`).
    public var startingEase: Int
    /// SM-2: the interval after graduating with Good, in days (`new.ints[0]`).
    public var graduatingInterval: Int
    /// SM-2: the interval after graduating with Easy, in days (`new.ints[1]`).
    public var easyInterval: Int
    /// SM-2: the Easy bonus (`rev.ease4`).
    public var easyBonus: Double
    /// SM-2: the Hard multiplier (`rev.hardFactor`).
    public var hardMultiplier: Double
    /// SM-2: the interval multiplier (`rev.ivlFct`).
    public var intervalMultiplier: Double
    /// SM-2: the new interval after a lapse, as a share of the old (`lapse.mult`).
    public var lapseMultiplier: Double
    /// The shortest interval after a lapse, in days (`lapse.minInt`).
    public var minimumLapseInterval: Int
    /// Lapses that make a card a leech (`lapse.leechFails`).
    public var leechThreshold: Int
    /// Bury new siblings (`new.bury`).
    public var buryNewSiblings: Bool
    /// Bury review siblings (`rev.bury`).
    public var buryReviewSiblings: Bool
    /// Bury interday-learning siblings (`buryInterdayLearning`).
    public var buryInterdaySiblings: Bool
    /// Options not named above, as the text of a JSON object under their schema-11 keys
    /// (nested objects such as `new` and `lapse` keep only their unnamed keys), verbatim.
    public var options: String

    /// Creates a preset; every value defaults to Anki's for a new preset.
    public init(id: Int64, name: String = "Default", modified: Int64 = 0, newPerDay: Int = 20,
                reviewsPerDay: Int = 200, learningSteps: [Double] = [1, 10], relearningSteps: [Double] = [10],
                maximumInterval: Int = 36_500, fsrsParameters: [Double] = [], desiredRetention: Double = 0.9,
                startingEase: Int = 2500, graduatingInterval: Int = 1, easyInterval: Int = 4,
                easyBonus: Double = 1.3, hardMultiplier: Double = 1.2, intervalMultiplier: Double = 1.0,
                lapseMultiplier: Double = 0.0, minimumLapseInterval: Int = 1, leechThreshold: Int = 8,
                buryNewSiblings: Bool = false, buryReviewSiblings: Bool = false,
                buryInterdaySiblings: Bool = false, options: String = "{}") {
        self.id = id
        self.name = name
        self.modified = modified
        self.newPerDay = newPerDay
        self.reviewsPerDay = reviewsPerDay
        self.learningSteps = learningSteps
        self.relearningSteps = relearningSteps
        self.maximumInterval = maximumInterval
        self.fsrsParameters = fsrsParameters
        self.desiredRetention = desiredRetention
        self.startingEase = startingEase
        self.graduatingInterval = graduatingInterval
        self.easyInterval = easyInterval
        self.easyBonus = easyBonus
        self.hardMultiplier = hardMultiplier
        self.intervalMultiplier = intervalMultiplier
        self.lapseMultiplier = lapseMultiplier
        self.minimumLapseInterval = minimumLapseInterval
        self.leechThreshold = leechThreshold
        self.buryNewSiblings = buryNewSiblings
        self.buryReviewSiblings = buryReviewSiblings
        self.buryInterdaySiblings = buryInterdaySiblings
        self.options = options
    }
}
