import Foundation
import Persistence

/// A tag; names are unique in a deck (inserting a second tag of the same name reuses the row).
public final class Tag: PersistentModel {
    public var name: String = ""
    public var cards: [Card] {
        get { getValue(forKey: \.cards) }
        set { setValue(forKey: \.cards, to: newValue) }
    }
    public static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("name", \Tag.name, options: [.unique]),
        .relationship("cards", \Tag.cards, inverse: \Card.tags),
    ]
    public let persistentBackingData = BackingData()
    public init() {}
    public init(name: String) { self.name = name }
}
