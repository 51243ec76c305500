import Foundation
import Testing
import SQLite
@testable import Persistence
import PersistenceTestSupport

@Suite struct SwiftDataSampleTests {
    /// SwiftData's flash-card sample: insert, `@Query(sort: \Card.creationDate, order: .reverse)`, a limit, predicates.
    @MainActor @Test(arguments: StoreKind.allCases)
    func flashCardSample(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Card.self], in: playground)
        let context = container.mainContext
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for (i, (front, back)) in [("chat", "cat"), ("chien", "dog"), ("cheval", "horse"), ("oiseau", "bird")].enumerated() {
            context.insert(Card(front: front, back: back, creationDate: start.addingTimeInterval(Double(i))))
        }
        try context.save()
        // @Query(sort: \Card.creationDate, order: .reverse)
        let newestFirst = try context.fetch(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.creationDate, order: .reverse)]))
        #expect(newestFirst.map(\.front) == ["oiseau", "cheval", "chien", "chat"])
        var limited = FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front)])
        limited.fetchLimit = 2
        #expect(try context.fetch(limited).map(\.front) == ["chat", "cheval"])
        let ch = #Predicate<Card> { $0.front.starts(with: "ch") && $0.back != "dog" }
        #expect(try context.fetch(FetchDescriptor(predicate: ch, sortBy: [SortDescriptor(\.front)])).map(\.back) == ["cat", "horse"])
        #expect(try context.fetchCount(FetchDescriptor(predicate: ch)) == 2)
    }
}

@Suite struct ContextTests {
    @Test(arguments: StoreKind.allCases)
    func everyAttributeTypeRoundTrips(kind: StoreKind) throws {
        let playground = try Playground()
        let uuid = UUID()
        do {
            let container = try kind.container([Everything.self], in: playground)
            let context = ModelContext(container)
            let e = Everything()
            (e.i8, e.i16, e.i32, e.i64, e.u8, e.u64, e.int) = (-8, -16, -32, .min, 255, .max, 42)
            (e.double, e.float, e.bool, e.string) = (1.5, 2.25, true, "Ünïcode ✓")
            (e.date, e.data, e.uuid, e.url) = (Date(timeIntervalSince1970: 12.5), Data([1, 2, 3]), uuid, URL(string: "https://example.com/x"))
            (e.decimal, e.mood, e.optionalMood) = (Decimal(string: "3.14159")!, .high, .low)
            (e.point, e.optionalPoint, e.optionalString) = (.init(x: 1, y: 2), nil, nil)
            context.insert(e)
            try context.save()
            guard kind == .file else {
                // In memory: fetch in a fresh context of the same container.
                let other = ModelContext(container)
                try check(other.fetch(FetchDescriptor<Everything>()).first, uuid: uuid)
                return
            }
        }
        let container = try kind.container([Everything.self], in: playground)
        try check(ModelContext(container).fetch(FetchDescriptor<Everything>()).first, uuid: uuid)
    }

    private func check(_ e: Everything?, uuid: UUID) throws {
        let e = try #require(e)
        #expect(e.i8 == -8 && e.i16 == -16 && e.i32 == -32 && e.i64 == .min && e.u8 == 255 && e.u64 == .max && e.int == 42)
        #expect(e.double == 1.5 && e.float == 2.25 && e.bool && e.string == "Ünïcode ✓")
        #expect(e.date == Date(timeIntervalSince1970: 12.5) && e.data == Data([1, 2, 3]) && e.uuid == uuid)
        #expect(e.url == URL(string: "https://example.com/x"))
        #expect(e.decimal == Decimal(string: "3.14159") && e.mood == .high && e.optionalMood == .low)
        #expect(e.point == .init(x: 1, y: 2) && e.optionalPoint == nil && e.optionalString == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func identityMapGivesOneObjectPerRow(kind: StoreKind) throws {
        let playground = try Playground()
        let context = ModelContext(try kind.container([Card.self], in: playground))
        let card = Card(front: "a", back: "b")
        context.insert(card)
        #expect(card.persistentModelID.isTemporary)
        try context.save()
        #expect(!card.persistentModelID.isTemporary)
        let fetched = try context.fetch(FetchDescriptor<Card>())
        #expect(fetched.count == 1 && fetched[0] === card)
        #expect(try context.model(for: card.persistentModelID) as? Card === card)
        let registered: Card? = context.registeredModel(for: card.persistentModelID)
        #expect(registered === card)
    }

    @Test(arguments: StoreKind.allCases)
    func changesAreTrackedAndRolledBack(kind: StoreKind) throws {
        let playground = try Playground()
        let context = ModelContext(try kind.container([Card.self], in: playground))
        let card = Card(front: "a", back: "b")
        context.insert(card)
        #expect(context.hasChanges && context.insertedModelsArray.count == 1)
        try context.save()
        #expect(!context.hasChanges)
        card.front = "changed"
        #expect(context.hasChanges && context.changedModelsArray.count == 1 && card.hasChanges)
        context.rollback()
        #expect(card.front == "a" && !context.hasChanges)
        card.back = "new back"
        try context.save()
        let other = ModelContext(context.container)
        #expect(try other.fetch(FetchDescriptor<Card>()).first?.back == "new back")
        context.delete(card)
        #expect(context.deletedModelsArray.count == 1 && card.isDeleted)
        context.rollback()
        #expect(!card.isDeleted && context.deletedModelsArray.isEmpty)
        context.delete(card)
        try context.save()
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<Card>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func saveIsAllOrNothing(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Card.self], in: playground)
        let context = ModelContext(container)
        context.insert(Card(front: "kept", back: ""))
        try context.save()
        // A failing statement in the middle of a save: a trigger refuses one value.
        try container.withDatabase(for: Card.self) { db in
            try db.execute("CREATE TRIGGER refuse BEFORE INSERT ON Card WHEN NEW.front = 'bad' BEGIN SELECT RAISE(ABORT, 'refused'); END")
        }
        context.insert(Card(front: "good", back: ""))
        context.insert(Card(front: "bad", back: ""))
        #expect(throws: PersistenceError.self) { try context.save() }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Card>()) == 1, "nothing of the failed save is stored")
        #expect(context.insertedModelsArray.count == 2, "the pending changes are kept")
    }

    @Test func transactionRollsBackOnThrow() throws {
        let context = ModelContext(try ModelContainer(for: Card.self, isStoredInMemoryOnly: true))
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try context.transaction {
                context.insert(Card(front: "x", back: "y"))
                throw Stop()
            }
        }
        #expect(!context.hasChanges)
        try context.transaction { context.insert(Card(front: "x", back: "y")) }
        #expect(try context.fetchCount(FetchDescriptor<Card>()) == 1 && !context.hasChanges)
    }

    @Test(arguments: StoreKind.allCases)
    func enumerateReleasesModelsAndDetectsMutations(kind: StoreKind) throws {
        let playground = try Playground()
        let context = ModelContext(try kind.container([Card.self], in: playground))
        for i in 0..<250 { context.insert(Card(front: "f\(i)", back: "b")) }
        try context.save()
        let fresh = ModelContext(context.container)
        var seen = 0
        try fresh.enumerate(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front)]), batchSize: 40) { _ in seen += 1 }
        #expect(seen == 250)
        #expect(fresh.registry.values.reduce(0) { $0 + $1.count } == 0, "unchanged models are released")
        #expect(throws: PersistenceError.self) {
            try fresh.enumerate(FetchDescriptor<Card>(), batchSize: 40) { $0.back = "mutated" }
        }
        let allowed = ModelContext(context.container)
        try allowed.enumerate(FetchDescriptor<Card>(), batchSize: 40, allowEscapingMutations: true) { $0.back = "ok" }
        try allowed.save()
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor(predicate: #Predicate<Card> { $0.back == "ok" })) == 250)
    }

    @Test func fetchIdentifiersAndDeleteWhere() throws {
        let context = ModelContext(try ModelContainer(for: Card.self, isStoredInMemoryOnly: true))
        for i in 0..<10 { context.insert(Card(front: "\(i)", back: i.isMultiple(of: 2) ? "even" : "odd")) }
        try context.save()
        let ids = try context.fetchIdentifiers(FetchDescriptor(predicate: #Predicate<Card> { $0.back == "even" }))
        #expect(ids.count == 5 && ids.allSatisfy { !$0.isTemporary && $0.entityName == "Card" })
        try context.delete(model: Card.self, where: #Predicate { $0.back == "odd" })
        #expect(try context.fetchCount(FetchDescriptor<Card>()) == 5)
    }

    @Test func pendingInsertsAppearInFetches() throws {
        let context = ModelContext(try ModelContainer(for: Card.self, isStoredInMemoryOnly: true))
        context.insert(Card(front: "b", back: ""))
        try context.save()
        context.insert(Card(front: "a", back: ""))
        #expect(try context.fetch(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front)])).map(\.front) == ["a", "b"])
        var without = FetchDescriptor<Card>()
        without.includePendingChanges = false
        #expect(try context.fetch(without).map(\.front) == ["b"])
        #expect(try context.fetchCount(FetchDescriptor<Card>()) == 2)
    }

    @MainActor @Test func readOnlyConfigurationNeverWrites() throws {
        let playground = try Playground()
        let url = playground.file("ro.sqlite")
        do {
            let container = try ModelContainer(for: Card.self, configurations: ModelConfiguration(url: url))
            container.mainContext.insert(Card(front: "x", back: "y"))
            try container.close()
        }
        let before = try Data(contentsOf: url)
        let container = try ModelContainer(for: Card.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        let context = container.mainContext
        let card = try #require(try context.fetch(FetchDescriptor<Card>()).first)
        card.front = "changed"
        #expect(throws: PersistenceError.self) { try context.save() }
        #expect(try Data(contentsOf: url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }

    @Test func severalConfigurationsKeepSeparateStores() throws {
        let playground = try Playground()
        let trips = ModelConfiguration("trips", schema: Schema([Trip.self]), url: playground.file("trips.sqlite"))
        let people = ModelConfiguration("people", schema: Schema([Person.self]), url: playground.file("people.sqlite"))
        let container = try ModelContainer(for: Schema([Trip.self, Person.self]), configurations: [trips, people])
        let context = ModelContext(container)
        context.insert(Trip(name: "Paris"))
        context.insert(Person(name: "Ada"))
        try context.save()
        try container.close()
        let tripsDB = try Database(path: playground.file("trips.sqlite").path, mode: .readOnly)
        let peopleDB = try Database(path: playground.file("people.sqlite").path, mode: .readOnly)
        #expect(try tripsDB.tableExists("Trip") && !tripsDB.tableExists("Person"))
        #expect(try peopleDB.scalar("SELECT name FROM Person", as: String.self) == "Ada")
    }

    @MainActor @Test func deleteAllData() throws {
        let container = try ModelContainer(for: Card.self, isStoredInMemoryOnly: true)
        container.mainContext.insert(Card(front: "x", back: "y"))
        try container.mainContext.save()
        try container.deleteAllData()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Card>()) == 0)
    }

    @MainActor @Test func closeLeavesOneFileThatSqliteReads() throws {
        let playground = try Playground()
        let url = playground.file("closed.sqlite")
        let container = try ModelContainer(for: Card.self, configurations: ModelConfiguration(url: url))
        container.mainContext.insert(Card(front: "x", back: "y"))
        try container.close()  // autosave on the main context saves first
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        let db = try Database(path: url.path, mode: .readOnly)
        #expect(try db.integrityCheck() == ["ok"])
        #expect(try db.scalar("SELECT count(*) FROM Card", as: Int.self) == 1)
    }
}
