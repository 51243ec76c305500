/// The four answers of a review, numbered as Anki's buttons and revlog `ease` (1–4).
public enum Rating: Int, Sendable, Hashable, Codable, CaseIterable {
    /// Forgotten.
    case again = 1
    /// Recalled with serious difficulty.
    case hard = 2
    /// Recalled.
    case good = 3
    /// Recalled easily.
    case easy = 4

    /// A rating from its button name (`again`, `hard`, `good`, `easy`, any case) or number (`1`–`4`).
    public init?(name: String) {
        switch name.lowercased() {
        case "1", "again": self = .again
        case "2", "hard": self = .hard
        case "3", "good": self = .good
        case "4", "easy": self = .easy
        default: return nil
        }
    }

    /// The button's name, lower case.
    public var name: String {
        switch self {
        case .again: "again"
        case .hard: "hard"
        case .good: "good"
        case .easy: "easy"
        }
    }
}

/// What went wrong in the scheduler: bad parameters or a card state it cannot answer.
public enum SchedulingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// FSRS parameters that are not 21 (or 17 or 19) finite weights within their bounds.
    case invalidParameters(String)
    /// A card state the scheduler cannot answer (for example a suspended or buried card).
    case cannotAnswer(String)

    /// A one-line description.
    public var description: String {
        switch self {
        case .invalidParameters(let reason): "invalid FSRS parameters: \(reason)"
        case .cannotAnswer(let reason): "cannot answer the card: \(reason)"
        }
    }
}
