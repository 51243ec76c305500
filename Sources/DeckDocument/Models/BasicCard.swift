import Foundation
import Persistence

/// A card with a front and a back, reviewed front first.
public final class BasicCard: Card {
    public override class var schemaMetadata: [Schema.PropertyMetadata] { super.schemaMetadata }

    public required init() {
        super.init()
        kind = .basic
    }

    public override init(front: String, back: String, created: Date = Date()) {
        super.init(front: front, back: back, created: created)
        kind = .basic
    }
}
