import Foundation
import Persistence

/// The deck's own row: its title and description (one row per store).
public final class DeckInfo: PersistentModel {
    public var title: String = ""
    public var description: String = ""
    public static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("title", \DeckInfo.title),
        .attribute("description", \DeckInfo.description),
    ]
    public let persistentBackingData = BackingData()
    public init() {}
    public init(title: String, description: String = "") {
        self.title = title
        self.description = description
    }
}
