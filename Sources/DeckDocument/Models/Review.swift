import Foundation
import Persistence

/// One review of a card: when, the answer button, the resulting interval and time taken.
public final class Review: PersistentModel {
    public var date: Date = Date()
    /// The answer: 1 again, 2 hard, 3 good, 4 easy.
    public var ease: Int = 0
    /// The interval in days after this review.
    public var interval: Int = 0
    /// Seconds spent answering.
    public var duration: Double = 0
    public var card: Card? {
        get { getValue(forKey: \.card) }
        set { setValue(forKey: \.card, to: newValue) }
    }
    public static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("date", \Review.date, options: [.index]),
        .attribute("ease", \Review.ease),
        .attribute("interval", \Review.interval),
        .attribute("duration", \Review.duration),
        .relationship("card", \Review.card, inverse: \Card.reviews),
    ]
    public let persistentBackingData = BackingData()
    public init() {}
    public init(date: Date, ease: Int, interval: Int, duration: Double) {
        self.date = date
        self.ease = ease
        self.interval = interval
        self.duration = duration
    }
}
