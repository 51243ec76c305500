import Foundation
import Testing
@testable import Persistence
import PersistenceMacros
import PersistenceTestSupport

/// A save compares only the `@Model` instances something wrote to (their accessors record
/// each write in `BackingData._$attributesWritten`); every way a value can change must still
/// reach the store, and nothing unchanged may be written.
@Suite struct WriteTrackingTests {
    private func saved(_ container: ModelContainer) throws -> [Book] {
        let context = ModelContext(container)
        let shelf = Shelf(name: "Fiction")
        shelf.books = [Book(title: "Dune", pages: 412, season: .summer), Book(title: "Emma", pages: 300)]
        context.insert(shelf)
        try context.save()
        return try ModelContext(container).fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]))
    }

    private func stored(_ container: ModelContainer) throws -> [String: (pages: Int, season: Season, shelf: String?)] {
        let context = ModelContext(container)  // kept while the shelves are read
        let books = try context.fetch(FetchDescriptor<Book>())
        return Dictionary(uniqueKeysWithValues: books.map { ($0.title, ($0.pages, $0.season, $0.shelf?.name)) })
    }

    @Test(arguments: StoreKind.allCases)
    func aFetchedModelIsUnwrittenUntilASetter(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Shelf.self], in: playground)
        _ = try saved(container)
        let context = ModelContext(container)
        let books = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]))
        let entity = try #require(container.schema.entity(for: Book.self))
        #expect(entity.recordsAttributeWrites)
        #expect(books.allSatisfy { !$0.persistentBackingData._$attributesWritten })
        // Reading changes nothing.
        _ = books.map { ($0.title, $0.pages, $0.season) }
        #expect(books.allSatisfy { !$0.persistentBackingData._$attributesWritten } && !context.hasChanges)
        // A set on a model never read (the setter's fast path) and one through the generic
        // accessor of an enum are both recorded and saved; the flag clears with the save.
        books[0].pages = 500
        books[1].season = .winter
        #expect(books.allSatisfy { $0.persistentBackingData._$attributesWritten } && context.hasChanges)
        try context.save()
        #expect(books.allSatisfy { !$0.persistentBackingData._$attributesWritten } && !context.hasChanges)
        let rows = try stored(container)
        #expect(rows["Dune"]?.pages == 500 && rows["Emma"]?.season == .winter)
        // Writing the same value back is recorded but is no change.
        books[0].pages = 500
        #expect(!context.hasChanges)
    }

    /// A to-one key moved from the other side (appending to the shelf's books) is a change of
    /// the book although nothing wrote the book's attributes.
    @Test(arguments: StoreKind.allCases)
    func aToOneSetFromTheInverseIsSaved(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Shelf.self], in: playground)
        _ = try saved(container)
        let context = ModelContext(container)
        let emma = try #require(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "Emma" })).first)
        let classics = Shelf(name: "Classics")
        context.insert(classics)
        classics.books.append(emma)
        #expect(!emma.persistentBackingData._$attributesWritten)
        try context.save()
        #expect(try stored(container)["Emma"]?.shelf == "Classics")
    }

    /// Undo and rollback write through the context, not the accessors: undo's values must be
    /// saved, a rollback's must leave nothing to save.
    @Test(arguments: StoreKind.allCases)
    func undoIsSavedAndRollbackLeavesNothing(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Shelf.self], in: playground)
        _ = try saved(container)
        let context = ModelContext(container)
        context.isUndoEnabled = true
        let dune = try #require(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "Dune" })).first)
        dune.pages = 1
        context.processPendingChanges()
        try context.save()
        #expect(try stored(container)["Dune"]?.pages == 1)
        context.undo()
        #expect(dune.pages == 412 && context.hasChanges)
        try context.save()
        #expect(try stored(container)["Dune"]?.pages == 412)

        dune.pages = 2
        context.rollback()
        #expect(dune.pages == 412 && !context.hasChanges && !dune.persistentBackingData._$attributesWritten)
        try context.save()
        #expect(try stored(container)["Dune"]?.pages == 412)
    }

    /// A refresh after SQL outside the context re-reads only the unwritten models; a model
    /// written here keeps its value and saves it.
    @Test(arguments: StoreKind.allCases)
    func aRefreshReReadsOnlyUnwrittenModels(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Shelf.self], in: playground)
        _ = try saved(container)
        let context = ModelContext(container)
        let books = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]))
        books[1].pages = 301
        let other = ModelContext(container)
        for book in try other.fetch(FetchDescriptor<Book>()) { book.pages += 1000 }
        try other.save()
        try context.refreshRegisteredModels(of: ["Book"])
        #expect(books[0].pages == 1412 && !books[0].persistentBackingData._$attributesWritten)
        #expect(books[1].pages == 301)
        try context.save()
        #expect(try stored(container)["Emma"]?.pages == 301)
        #expect(try stored(container)["Dune"]?.pages == 1412)
    }
}
