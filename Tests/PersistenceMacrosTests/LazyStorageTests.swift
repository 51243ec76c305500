import Foundation
import Testing
@testable import Persistence
import PersistenceMacros

enum LazyLevel: String, Codable { case low, high }

@Model final class LazyCard {
    var front: String
    var reps: Int = 0
    var level: LazyLevel = .low
    var tags: [String] = []
    var due: Date?
    init(front: String) { self.front = front }
}

/// `LazyCard` written out by hand: one key path per attribute, the stored property itself.
final class HandCard: PersistentModel {
    var front: String = ""
    var reps: Int = 0
    var level: LazyLevel = .low
    var tags: [String] = []
    var due: Date? = nil
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("front", \HandCard.front),
        .attribute("reps", \HandCard.reps),
        .attribute("level", \HandCard.level),
        .codable("tags", \HandCard.tags),
        .attribute("due", \HandCard.due),
    ]
    let persistentBackingData = BackingData()
    init() {}
}

final class LazyBox {
    var count = 1
    var text = "x"
    var computed: String {
        get { text.uppercased() }
        set { text = newValue.lowercased() }
    }
}

/// A `@Model` attribute's storage key path is made, and its offset found, on the attribute's
/// first read or write rather than when a schema is built (making key paths was most of
/// building the schema of format v2's models); what the schema says is unchanged.
@Suite struct LazyStorageTests {
    @Test func aLazyPropertyMakesItsKeyPathOnFirstUse() {
        nonisolated(unsafe) var made = 0
        let property = StoredProperty<LazyBox, String>(lazy: { made += 1; return \LazyBox.text }, same: ==)
        property.resolve(prototype: LazyBox(), same: ==)
        #expect(made == 0, "building the schema made the storage key path")
        #expect(property.state.load(ordering: .relaxed) == StoredProperty<LazyBox, String>.unresolved)
        let box = LazyBox()
        box.text = "first"
        #expect(property.get(box) == "first")
        #expect(made == 1)
        #expect(property.state.load(ordering: .relaxed) > 0, "no offset was found for a plain stored property")
        property.set(box, "second")
        #expect(box.text == "second")
        let other = LazyBox()
        property.set(other, "third")
        #expect(other.text == "third" && box.text == "second")
        #expect(made == 1)
    }

    @Test func aLazyComputedPropertyGoesThroughItsKeyPath() {
        let property = StoredProperty<LazyBox, String>(lazy: { \LazyBox.computed }, same: ==)
        let box = LazyBox()
        box.text = "abc"
        #expect(property.get(box) == "ABC")
        #expect(property.state.load(ordering: .relaxed) == StoredProperty<LazyBox, String>.noOffset)
        property.set(box, "XYZ")
        #expect(box.text == "xyz")
    }

    @Test func anEagerPropertyResolvesWithThePrototype() {
        let property = StoredProperty<LazyBox, Int>(\LazyBox.count)
        property.resolve(prototype: LazyBox(), same: ==)
        #expect(property.state.load(ordering: .relaxed) > 0)
        let box = LazyBox()
        property.set(box, 7)
        #expect(box.count == 7 && property.get(box) == 7)
    }

    @Test func theSchemaOfAModelIsTheHandWrittenOnes() {
        let macro = Schema([LazyCard.self]).makeDDL().map { $0.replacingOccurrences(of: "LazyCard", with: "Card") }
        let hand = Schema([HandCard.self]).makeDDL().map { $0.replacingOccurrences(of: "HandCard", with: "Card") }
        #expect(macro == hand)
        let entity = Schema([LazyCard.self]).entity(for: LazyCard.self)
        #expect(entity?.attributes.map(\.name) == ["front", "reps", "level", "tags", "due"])
        #expect(entity?.attributes.map(\.isOptional) == [false, false, false, false, true])
    }

    @Test func valuesRoundTripThroughLazilyResolvedStorage() throws {
        for url in [nil, FileManager.default.temporaryDirectory.appendingPathComponent("lazy-\(UUID().uuidString).sqlite")] {
            defer { if let url { try? FileManager.default.removeItem(at: url) } }
            let configuration = url.map { ModelConfiguration(url: $0) } ?? ModelConfiguration(isStoredInMemoryOnly: true)
            let container = try ModelContainer(for: LazyCard.self, configurations: configuration)
            let context = ModelContext(container)
            let card = LazyCard(front: "hola")
            card.reps = 3
            card.level = .high
            card.tags = ["a", "b"]
            card.due = Date(timeIntervalSince1970: 1_800_000_000)
            context.insert(card)
            context.insert(LazyCard(front: "adiós"))
            try context.save()
            let fetched = try ModelContext(container).fetch(FetchDescriptor<LazyCard>(sortBy: [SortDescriptor(\.front)]))
            #expect(fetched.map(\.front) == ["adiós", "hola"])
            #expect(fetched.map(\.reps) == [0, 3])
            #expect(fetched.map(\.level) == [.low, .high])
            #expect(fetched.map(\.tags) == [[], ["a", "b"]])
            #expect(fetched.map(\.due) == [nil, Date(timeIntervalSince1970: 1_800_000_000)])
        }
    }
}
