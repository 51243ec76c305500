// Seed: "SwiftData passes @Model…" (the flash-card document app). The model, verbatim.
import Foundation
import SwiftData

@Model
final class Card {
    var front: String
    var back: String
    var creationDate: Date

    init(front: String, back: String, creationDate: Date = .now) {
        self.front = front
        self.back = back
        self.creationDate = creationDate
    }
}
