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

@Model final class Person {
    #Unique<Person>([\.givenName, \.familyName])
    #Index<Person>([\.familyName], [\.birthday])
    var givenName: String
    var familyName: String
    var birthday: Date?
    @Attribute(.ephemeral) var draft: String = ""
    @Transient var visits = 0
    @Relationship(maximumModelCount: 2) var friends: [Friend] = []
    init(givenName: String, familyName: String) {
        self.givenName = givenName
        self.familyName = familyName
    }
}

@Model final class Friend {
    var nickname: String
    init(nickname: String) { self.nickname = nickname }
}

/// A team needs one to three members (SwiftData checks the bounds at save).
@Model final class Team {
    var name: String
    @Relationship(deleteRule: .cascade, minimumModelCount: 1, maximumModelCount: 3, inverse: \Member.team)
    var members: [Member] = []
    init(name: String) { self.name = name }
}

@Model final class Member {
    var name: String
    var team: Team?
    init(name: String) { self.name = name }
}

@Model final class Photo {
    var name: String
    var width: Int = 0
    @Attribute(.externalStorage) var image: Data?
    init(name: String) { self.name = name }
}
