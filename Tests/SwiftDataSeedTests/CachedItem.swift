// Seed: "Add SwiftData" (the cached network items). The model, verbatim.
import Foundation
import SwiftData

@Model
final class CachedItem {
    var id: Int
    var title: String
    var detail: String
    var isFavorite: Bool
    var cachedAt: Date

    init(id: Int, title: String, detail: String) {
        self.id = id
        self.title = title
        self.detail = detail
        self.isFavorite = false
        self.cachedAt = .now
    }
}
