import Foundation
import Testing
import PersistenceMacros
import PersistenceTestSupport

/// A background importer as a SwiftData app declares it: nothing but the attribute.
@ModelActor actor ShelfImporter {
    func add(_ titles: [String], to name: String) throws -> PersistentIdentifier {
        let shelf = Shelf(name: name)
        shelf.books = titles.map { Book(title: $0, pages: $0.count) }
        modelContext.insert(shelf)
        try modelContext.save()
        return shelf.persistentModelID
    }

    func titles(of id: PersistentIdentifier) -> [String]? {
        self[id, as: Shelf.self]?.books.map(\.title).sorted()
    }

    func isOnMainThread() -> Bool { Thread.isMainThread }
}

/// A public actor whose members must be public to witness the conformance; it declares its
/// own `init(modelContainer:)`, which the macro leaves alone.
@ModelActor public actor CountingImporter {
    public init(modelContainer: ModelContainer) {
        self.modelContainer = modelContainer
        self.modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
        self.label = "count"
    }

    let label: String

    func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Book>()) }
}

@Suite struct ModelActorMacroTests {
    @Test(arguments: StoreKind.allCases)
    func anActorOfTheMacroWorksOnItsOwnContext(kind: StoreKind) async throws {
        let playground = try Playground()
        let container = try kind.container([Shelf.self], in: playground)
        let importer = ShelfImporter(modelContainer: container)
        #expect(importer.modelContainer === container)
        let id = try await importer.add(["Dune", "Emma"], to: "Fiction")
        #expect(await importer.titles(of: id) == ["Dune", "Emma"])
        #expect(await importer.isOnMainThread() == false)

        // What the actor saved is in the store for every other context.
        let reader = ModelContext(container)
        let shelves = try reader.fetch(FetchDescriptor<Shelf>())
        #expect(shelves.map(\.name) == ["Fiction"])
        #expect(shelves.first?.books.count == 2)

        // Two actors on one container, concurrently.
        let other = ShelfImporter(modelContainer: container)
        async let a = importer.add(["A"], to: "One")
        async let b = other.add(["B", "C"], to: "Two")
        _ = try await (a, b)
        #expect(try reader.fetchCount(FetchDescriptor<Book>()) == 5)

        let counting = CountingImporter(modelContainer: container)
        #expect(try await counting.count() == 5)
        #expect(counting.label == "count")
    }
}
