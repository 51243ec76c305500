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
    var summaryForTests: String { front }
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

    /// The public key path of a `@Model` attribute (what predicates, sorts and observers
    /// name) is made at its first use too, once, and finds the attribute it names.
    @Test func anAttributeMakesItsPublicKeyPathOnFirstUse() throws {
        nonisolated(unsafe) var made = 0
        func front() -> KeyPath<LazyCard, String> { made += 1; return \LazyCard.front }
        let metadata = Schema.PropertyMetadata._$column("front", front(), storage: \LazyCard.front)
        #expect(made == 0, "the factory made the key path")
        guard case .attribute(let attribute) = metadata.kind else { Issue.record("not an attribute"); return }
        #expect(attribute.name == "front" && attribute.sqlType == "TEXT" && !attribute.isOptional)
        #expect(made == 0, "reading what the schema needs made the key path")
        #expect(attribute.keyPath == \LazyCard.front as AnyKeyPath)
        #expect(attribute.keyPath == \LazyCard.front as AnyKeyPath)
        #expect(made == 1)
        // The entity's index by key path is built at its first lookup, from every attribute.
        let entity = try #require(Schema([LazyCard.self]).entity(for: LazyCard.self))
        #expect(entity.attribute(for: \LazyCard.reps)?.name == "reps")
        #expect(entity.attribute(for: \LazyCard.due)?.name == "due")
        #expect(entity.attribute(for: \LazyCard.summaryForTests) == nil)
    }

    /// Several threads asking for the key path of one attribute at once all get it.
    @Test func concurrentFirstUsesAgree() async {
        let entity = Schema([LazyCard.self]).entity(for: LazyCard.self)!
        let names = await withTaskGroup(of: String?.self) { group in
            for index in 0..<32 {
                group.addTask { entity.attribute(for: index.isMultiple(of: 2) ? \LazyCard.level : \LazyCard.tags)?.name }
            }
            var names: [String?] = []
            for await name in group { names.append(name) }
            return names
        }
        #expect(names.count == 32 && names.filter { $0 == "level" }.count == 16 && names.filter { $0 == "tags" }.count == 16)
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
