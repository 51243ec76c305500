import Foundation
import PersistenceMacros

enum Season: String, Codable, CaseIterable { case spring, summer, autumn, winter }

struct Address: Codable, Hashable {
    var street: String
    var city: String
}

@Model final class Shelf {
    @Attribute(.unique) var name: String
    var note: String = ""
    @Relationship(deleteRule: .cascade, inverse: \Book.shelf) var books: [Book] = []
    init(name: String) { self.name = name }
}

@Model final class Book {
    var title: String
    var pages: Int
    var price: Decimal = 0
    var published: Date?
    var season: Season
    var address: Address?
    var tags: [String] = []
    var shelf: Shelf?
    @Transient var isSelected = false
    init(title: String, pages: Int, season: Season = .spring) {
        self.title = title
        self.pages = pages
        self.season = season
    }
}
