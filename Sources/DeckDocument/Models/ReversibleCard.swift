import Foundation
import Persistence

/// A card reviewed in both directions (front → back and back → front).
public final class ReversibleCard: Card {
    public override class var schemaMetadata: [Schema.PropertyMetadata] { super.schemaMetadata }

    public required init() {
        super.init()
        kind = .reversible
    }

    public override init(front: String, back: String, created: Date = Date()) {
        super.init(front: front, back: back, created: created)
        kind = .reversible
    }
}
