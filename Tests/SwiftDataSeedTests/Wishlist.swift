// Seed: "Code-along: Add persistence with SwiftData" (Wishlist). The models, verbatim, with
// what the seed refers to but doesn't show: `Activity.trip` (the inverse it names and its
// search predicate reads), `TripCollection`, and `TripImage` (full-size images "stored through
// the TripImage model as external file references"). The goals are marked @Model, as the
// text says they are.
import Foundation
import SwiftData

@Model
class Activity {
    var name: String
    var isComplete: Bool = false
    var dateCreated = Date.now
    var dateEdited = Date.now
    var trip: Trip?

    init(name: String) { self.name = name }
}

enum TripCollection: String, Codable, CaseIterable {
    case spring, summer, autumn, winter
}

@Model
final class TripImage {
    @Attribute(.externalStorage) var data: Data
    init(data: Data) { self.data = data }
}

// Goal as the base class.
@Model
class Goal {
    var name: String
    var target: Int
    var completedCount: Int = 0
    var isComplete: Bool = false
    var dateAchieved: Date?
    var sortOrder: Int = 0
}

// TripGoal and ActivityGoal inherit from Goal.
@Model
class TripGoal: Goal { }
@Model
class ActivityGoal: Goal { }

@Model
class Trip {
    var name: String
    var collection: TripCollection

    var photo: TripImage
    var thumbnailData: Data?

    @Relationship(deleteRule: .cascade, inverse: \Activity.trip)
    var activities: [Activity] = []

    private(set) var creationDate = Date.now
    var subtitle: String?
    var isComplete: Bool = false
}

// The seed's Trip and Goal declare no initializer (their views build them elsewhere).
extension Trip {
    convenience init(name: String, collection: TripCollection, photo: TripImage) {
        self.init()
        self.name = name
        self.collection = collection
        self.photo = photo
    }
}

extension Goal {
    convenience init(name: String, target: Int) {
        self.init()
        self.name = name
        self.target = target
    }
}
