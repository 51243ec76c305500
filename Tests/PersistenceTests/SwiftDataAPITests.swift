import Foundation
import Testing
@testable import Persistence
import PersistenceTestSupport

/// Relationships declared without an inverse on either side; SwiftData pairs them.
final class Writer: PersistentModel {
    var name: String = ""
    var essays: [Essay] {
        get { getValue(forKey: \.essays) }
        set { setValue(forKey: \.essays, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("name", \Writer.name),
        .relationship("essays", \Writer.essays, deleteRule: .cascade),
    ]
    let persistentBackingData = BackingData()
    init() {}
    init(name: String) { self.name = name }
}

final class Essay: PersistentModel {
    var title: String = ""
    var writer: Writer? {
        get { getValue(forKey: \.writer) }
        set { setValue(forKey: \.writer, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("title", \Essay.title),
        .relationship("writer", \Essay.writer),
    ]
    let persistentBackingData = BackingData()
    init() {}
    init(title: String) { self.title = title }
}

/// Background work on a model actor, declared as `@ModelActor` would declare it.
actor CardImporter: ModelActor {
    nonisolated let modelExecutor: any ModelExecutor
    nonisolated let modelContainer: ModelContainer
    init(modelContainer: ModelContainer) {
        self.modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
        self.modelContainer = modelContainer
    }

    func add(_ fronts: [String]) throws -> [PersistentIdentifier] {
        let cards = fronts.map { Card(front: $0, back: "") }
        for card in cards { modelContext.insert(card) }
        try modelContext.save()
        return cards.map(\.persistentModelID)
    }

    func front(of id: PersistentIdentifier) -> String? { self[id, as: Card.self]?.front }
}

/// The SwiftData API surface of issue 13, item 3.
@Suite struct SwiftDataAPITests {
    @Test func defaultStoreLocation() {
        let xdg = ModelConfiguration.defaultStoreDirectory(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/ann"], programName: "notes")
        #expect(xdg.path == "/data/notes")
        let home = ModelConfiguration.defaultStoreDirectory(environment: ["HOME": "/home/ann", "XDG_DATA_HOME": "relative"], programName: "notes")
        #expect(home.path == "/home/ann/.local/share/notes")
        let standard = ModelConfiguration()
        #expect(!standard.isStoredInMemoryOnly && standard.name == "default")
        #expect(standard.url == ModelConfiguration.defaultStoreDirectory().appendingPathComponent("default.store"))
        #expect(ModelConfiguration("people").url?.lastPathComponent == "people.store")
        #expect(ModelConfiguration(isStoredInMemoryOnly: true).url == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func containerInitializersOfSwiftData(kind: StoreKind) throws {
        let playground = try Playground()
        let memory = try ModelContainer(for: Trip.self, Person.self, isStoredInMemoryOnly: true)
        #expect(memory.configurations.map(\.isStoredInMemoryOnly) == [true])
        let configuration = kind == .memory ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: playground.file("a.sqlite"))
        let variadic = try ModelContainer(for: Trip.self, Person.self, migrationPlan: nil, configurations: configuration)
        let bySchema = try ModelContainer(for: Schema([Trip.self]), configurations:
            ModelConfiguration("trips", schema: Schema([Trip.self]), url: playground.file("trips.sqlite")),
            ModelConfiguration("rest", isStoredInMemoryOnly: true))
        for container in [memory, variadic, bySchema] {
            let context = ModelContext(container)
            context.insert(Trip(name: "Rome"))
            try context.save()
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)
        }
        #expect(bySchema.configurations.map(\.name) == ["trips", "rest"])
    }

    @Test(arguments: StoreKind.allCases)
    func queryWithFilterSortAndOrder(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Card.self], in: playground)
        let context = ModelContext(container)
        for (front, score) in [("a", 3.0), ("b", 1.0), ("c", 2.0), ("d", nil)] as [(String, Double?)] {
            let card = Card(front: front, back: "")
            card.score = score
            context.insert(card)
        }
        try context.save()
        let scored = Query<Card>(filter: #Predicate { $0.score != nil }, sort: \.score, order: .reverse)
        #expect(try scored.results(in: context).map(\.front) == ["a", "c", "b"])
        #expect(try scored.count(in: context) == 3)
        #expect(try Query<Card>(sort: \.front).results(in: context).map(\.front) == ["a", "b", "c", "d"])
        var descriptor = FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front, order: .reverse)])
        descriptor.fetchLimit = 2
        #expect(try Query(descriptor).results(in: context).map(\.front) == ["d", "c"])
        let live = try Query<Card>(filter: #Predicate { $0.front > "b" }).observe(in: context)
        #expect(live.results.count == 2)
        context.insert(Card(front: "e", back: ""))
        try context.save()
        #expect(live.results.count == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func batchedFetchIsACollectionWithBoundedMemory(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Card.self], in: playground)
        let writer = ModelContext(container)
        for i in 0..<50 { writer.insert(Card(front: String(format: "%02d", i), back: "")) }
        try writer.save()
        let context = ModelContext(container)
        let cards = try context.fetch(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front, order: .reverse)]), batchSize: 8)
        #expect(cards.count == 50)
        let entity = try #require(container.schema.entity(for: Card.self))
        #expect(context.identityTable(entity).count == 8)  // the first batch only
        var fronts: [String] = []
        var mostRegistered = 0
        for card in cards {
            fronts.append(card.front)
            mostRegistered = max(mostRegistered, context.identityTable(entity).count)
        }
        #expect(fronts == (0..<50).reversed().map { String(format: "%02d", $0) })
        #expect(mostRegistered <= 16)
        #expect(cards[49].front == "00" && cards[0].front == "49" && cards.loadError == nil)
        // An edit keeps its model registered past its batch.
        cards[10].back = "edited"
        _ = cards.map(\.front)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Card>(predicate: #Predicate { $0.back == "edited" })) == 1)
        // With a pending insert the collection holds a plain fetch.
        context.insert(Card(front: "zz", back: ""))
        let withPending = try context.fetch(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front, order: .reverse)]), batchSize: 8)
        #expect(withPending.count == 51 && withPending.first?.front == "zz")
        let ids = try context.fetchIdentifiers(FetchDescriptor<Card>(), batchSize: 7)
        #expect(ids.count == 50)
    }

    @Test func modelActorsWorkInTheBackground() async throws {
        let playground = try Playground()
        let container = try ModelContainer(for: Card.self, configurations: ModelConfiguration(url: playground.file("actors.sqlite")))
        let first = CardImporter(modelContainer: container), second = CardImporter(modelContainer: container)
        async let a = first.add((0..<20).map { "a\($0)" })
        async let b = second.add((0..<20).map { "b\($0)" })
        let (ida, idb) = try await (a, b)
        #expect(ida.count == 20 && idb.count == 20)
        #expect(await second.front(of: ida[3]) == "a3")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Card>()) == 40)
    }

    @MainActor @Test func mainContextIsTheMainActorsContext() throws {
        let container = try ModelContainer(for: Card.self, isStoredInMemoryOnly: true)
        #expect(container.mainContext === container.sharedMainContext && container.mainContext.autosaveEnabled)
    }

    @Test(arguments: StoreKind.allCases)
    func inversesAreInferredWhenUnambiguous(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Writer.self, Essay.self], in: playground)
        let schema = container.schema
        let essays = try #require(schema.entity(for: Writer.self)?.relationship(for: \Writer.essays))
        #expect(schema.inverse(of: essays, in: try #require(schema.entity(for: Writer.self)))?.name == "writer")
        // One-to-many through the essay's column: no join table.
        #expect(!schema.makeDDL().contains { $0.contains("Writer_essays") })
        let context = ModelContext(container)
        let ann = Writer(name: "Ann")
        let essay = Essay(title: "On Keys")
        context.insert(ann)
        essay.writer = ann
        #expect(ann.essays.map(\.title) == ["On Keys"])
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Writer>()).first?.essays.map(\.title) == ["On Keys"])
        // The inferred inverse carries the cascade.
        fresh.delete(try #require(try fresh.fetch(FetchDescriptor<Writer>()).first))
        try fresh.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Essay>()) == 0)
    }
}
