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

/// A color with no Codable conformance: only a transformer can store it.
final class RGB: Equatable, CustomStringConvertible {
    let red: UInt8, green: UInt8, blue: UInt8
    init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) { (self.red, self.green, self.blue) = (red, green, blue) }
    static func == (a: RGB, b: RGB) -> Bool { (a.red, a.green, a.blue) == (b.red, b.green, b.blue) }
    var description: String { "rgb(\(red), \(green), \(blue))" }
}

/// Three bytes and back, as a SwiftData user writes a transformer on Apple platforms.
final class RGBTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        guard let color = value as? RGB else { return nil }
        return Data([color.red, color.green, color.blue])
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, data.count == 3 else { return nil }
        let bytes = [UInt8](data)
        return RGB(bytes[0], bytes[1], bytes[2])
    }
}

/// Archives of strings only (an `NSSecureUnarchiveFromDataTransformer`, registered by name).
final class LabelsTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [NSArray.self, NSString.self] }
    static let name = NSValueTransformerName("LabelsTransformer")
}

@Model final class Swatch {
    var name: String
    @Attribute(.transformable(by: RGBTransformer.self)) var color: RGB?
    @Attribute(.transformable(by: RGBTransformer.self)) var background: RGB
    @Attribute(.transformable(by: "LabelsTransformer")) var labels: NSArray?
    init(name: String, background: RGB) {
        self.name = name
        self.background = background
    }
}

/// The same attribute on a hand-written model.
final class HandSwatch: PersistentModel {
    var color: RGB? = nil
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .transformed("color", \HandSwatch.color, options: [.transformable(by: RGBTransformer.self)]),
    ]
    let persistentBackingData = BackingData()
    init() {}
}
