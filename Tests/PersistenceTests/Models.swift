import Foundation
import Persistence

/// The flash card of SwiftData's introduction, ported: the @Model expansion written out.
final class Card: PersistentModel {
    var front: String = ""
    var back: String = ""
    var creationDate: Date = .now
    var kind: Kind = .basic
    var score: Double? = nil
    var deck: Deck? {
        get { getValue(forKey: \.deck) }
        set { setValue(forKey: \.deck, to: newValue) }
    }
    var tags: [Tag] {
        get { getValue(forKey: \.tags) }
        set { setValue(forKey: \.tags, to: newValue) }
    }
    var reviews: [Review] {
        get { getValue(forKey: \.reviews) }
        set { setValue(forKey: \.reviews, to: newValue) }
    }

    enum Kind: String, Codable { case basic, cloze }

    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("front", \Card.front),
        .attribute("back", \Card.back),
        .attribute("creationDate", \Card.creationDate, options: [.index]),
        .attribute("kind", \Card.kind),
        .attribute("score", \Card.score),
        .relationship("deck", \Card.deck, inverse: \Deck.cards),
        .relationship("tags", \Card.tags, inverse: \Tag.cards),
        .relationship("reviews", \Card.reviews, deleteRule: .cascade, inverse: \Review.card),
    ]
    var persistentBackingData = BackingData()
    init() {}
    init(front: String, back: String, creationDate: Date = .now) {
        self.front = front
        self.back = back
        self.creationDate = creationDate
    }
}

final class Deck: PersistentModel {
    var title: String = ""
    var cards: [Card] {
        get { getValue(forKey: \.cards) }
        set { setValue(forKey: \.cards, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("title", \Deck.title),
        .relationship("cards", \Deck.cards, deleteRule: .cascade, inverse: \Card.deck),
    ]
    var persistentBackingData = BackingData()
    init() {}
    init(title: String) { self.title = title }
}

final class Tag: PersistentModel {
    var name: String = ""
    var cards: [Card] {
        get { getValue(forKey: \.cards) }
        set { setValue(forKey: \.cards, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("name", \Tag.name, options: [.unique]),
        .relationship("cards", \Tag.cards, inverse: \Card.tags),
    ]
    var persistentBackingData = BackingData()
    init() {}
    init(name: String) { self.name = name }
}

final class Review: PersistentModel {
    var date: Date = .now
    var ease: Int = 0
    var card: Card? {
        get { getValue(forKey: \.card) }
        set { setValue(forKey: \.card, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("date", \Review.date),
        .attribute("ease", \Review.ease),
        .relationship("card", \Review.card, inverse: \Card.reviews),
    ]
    var persistentBackingData = BackingData()
    init() {}
    init(ease: Int) { self.ease = ease }
}

/// Every attribute type the layer stores.
final class Everything: PersistentModel {
    struct Point: Codable, Equatable { var x: Int; var y: Int }
    enum Mood: Int { case low = 1, high = 2 }
    var i8: Int8 = 0, i16: Int16 = 0, i32: Int32 = 0, i64: Int64 = 0, u8: UInt8 = 0, u64: UInt64 = 0, int: Int = 0
    var double: Double = 0, float: Float = 0, bool: Bool = false, string: String = ""
    var date: Date = Date(timeIntervalSince1970: 0), data: Data = Data(), uuid: UUID = UUID(), url: URL? = nil
    var decimal: Decimal = 0, mood: Mood = .low, optionalMood: Mood? = nil, point: Point = Point(x: 0, y: 0)
    var optionalPoint: Point? = nil, optionalString: String? = nil
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("i8", \Everything.i8), .attribute("i16", \Everything.i16), .attribute("i32", \Everything.i32),
        .attribute("i64", \Everything.i64), .attribute("u8", \Everything.u8), .attribute("u64", \Everything.u64),
        .attribute("int", \Everything.int), .attribute("double", \Everything.double), .attribute("float", \Everything.float),
        .attribute("bool", \Everything.bool), .attribute("string", \Everything.string), .attribute("date", \Everything.date),
        .attribute("data", \Everything.data), .attribute("uuid", \Everything.uuid), .attribute("url", \Everything.url),
        .attribute("decimal", \Everything.decimal), .attribute("mood", \Everything.mood),
        .attribute("optionalMood", \Everything.optionalMood), .codable("point", \Everything.point),
        .codable("optionalPoint", \Everything.optionalPoint), .attribute("optionalString", \Everything.optionalString),
    ]
    var persistentBackingData = BackingData()
    init() {}
}

/// Two models for the trips-and-people example of several configurations.
final class Trip: PersistentModel {
    var name: String = ""
    static let schemaMetadata: [Schema.PropertyMetadata] = [.attribute("name", \Trip.name)]
    var persistentBackingData = BackingData()
    init() {}
    init(name: String) { self.name = name }
}
final class Person: PersistentModel {
    var name: String = ""
    static let schemaMetadata: [Schema.PropertyMetadata] = [.attribute("name", \Person.name)]
    var persistentBackingData = BackingData()
    init() {}
    init(name: String) { self.name = name }
}
