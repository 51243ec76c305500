import Foundation
import Testing
@testable import Persistence
import PersistenceMacros
import PersistenceTestSupport

/// `FetchDescriptor.propertiesToFetch`: the fetch selects only those columns, and the other
/// attributes are read from the store on first access, with the right values.
@Suite struct PropertiesToFetchTests {
    private func saveDune(_ container: ModelContainer) throws {
        let writer = ModelContext(container)
        let shelf = Shelf(name: "Fiction")
        let dune = Book(title: "Dune", pages: 412, season: .summer)
        dune.price = Decimal(string: "9.99")!
        dune.tags = ["sf"]
        shelf.books = [dune]
        writer.insert(shelf)
        try writer.save()
    }

    @Test(arguments: StoreKind.allCases)
    func onlyTheNamedColumnsAreSelected(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Shelf.self], in: playground)
        let context = ModelContext(container)
        let entity = try #require(container.schema.entity(for: Book.self))
        var descriptor = FetchDescriptor<Book>(predicate: #Predicate { $0.pages > 100 })
        #expect(context.partialSelectColumns(descriptor, entity: entity) == nil)
        descriptor.propertiesToFetch = [\.title]
        // The key, the named attribute and the to-one key: not pages, price, season, tags…
        let columns = try #require(context.partialSelectColumns(descriptor, entity: entity))
        #expect(columns == ["pk", "title", "shelf"], "\(columns)")
        #expect(entity.rootEntity.selectColumns.count > columns.count + 4)
        let sql = try context.makeQuery(descriptor, entity: entity, columns: .partialRows(columns)).sql
        #expect(sql.hasPrefix("SELECT t0.\"pk\", t0.\"title\", t0.\"shelf\" FROM \"Book\""), "\(sql)")
        // While undo records, whole rows are read (the undo stack needs every value).
        context.isUndoEnabled = true
        #expect(context.partialSelectColumns(descriptor, entity: entity) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func unfetchedAttributesAreReadOnAccess(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Shelf.self], in: playground)
        try saveDune(container)
        let whole = try #require(try ModelContext(container).fetch(FetchDescriptor<Book>()).first)

        let partialContext = ModelContext(container)
        var descriptor = FetchDescriptor<Book>(predicate: #Predicate { $0.pages > 100 })
        descriptor.propertiesToFetch = [\.title]
        let partial = try #require(try partialContext.fetch(descriptor).first)
        #expect(!partialContext.hasChanges)

        // Another context changes the row after both fetches.
        let editor = ModelContext(container)
        let edited = try #require(try editor.fetch(FetchDescriptor<Book>()).first)
        edited.pages = 500
        edited.title = "Dune (edited)"
        try editor.save()

        // The whole model holds the values of its fetch; the partial one read `title` then,
        // and `pages` only now: so pages wasn't in its row.
        #expect(whole.pages == 412)
        #expect(partial.title == "Dune")
        #expect(partial.pages == 500)
        #expect(partial.price == Decimal(string: "9.99")! && partial.season == .summer && partial.tags == ["sf"])
        #expect(partial.shelf?.name == "Fiction")
        #expect(!partialContext.hasChanges)

        // A change after the fault is saved with the other values intact (only changed
        // columns are written, so the other context's title stays).
        partial.season = .winter
        #expect(partialContext.hasChanges)
        try partialContext.save()
        let read = try #require(try ModelContext(container).fetch(FetchDescriptor<Book>()).first)
        #expect(read.title == "Dune (edited)" && read.pages == 500 && read.season == .winter && read.price == Decimal(string: "9.99")!)
    }

    @Test(arguments: StoreKind.allCases)
    func writingAnUnfetchedAttributeFirstKeepsTheOthers(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Shelf.self], in: playground)
        try saveDune(container)
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Book>()
        descriptor.propertiesToFetch = [\.title]
        let book = try #require(try context.fetch(descriptor).first)
        // A set before any read: the other attributes are read first, so the save writes
        // them back unchanged rather than as initial values.
        book.pages = 7
        try context.save()
        let read = try #require(try ModelContext(container).fetch(FetchDescriptor<Book>()).first)
        #expect(read.pages == 7 && read.season == .summer && read.tags == ["sf"] && read.price == Decimal(string: "9.99")!)
        // Rolling back a partial model that was never read changes nothing.
        let other = ModelContext(container)
        _ = try other.fetch(descriptor)
        other.rollback()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Book>()).first?.pages == 7)
    }

    @Test func externalValuesLeftOutAreNotRead() throws {
        let playground = try Playground()
        let url = playground.file("photos.sqlite")
        let container = try ModelContainer(for: Photo.self, configurations: ModelConfiguration(url: url))
        let writer = ModelContext(container)
        let photo = Photo(name: "beach")
        photo.width = 640
        photo.image = Data(repeating: 7, count: 4096)
        writer.insert(photo)
        try writer.save()
        // Lose the external file: a fetch that reads the image fails, one that leaves it out
        // doesn't, until the image is read.
        let folder = URL(fileURLWithPath: url.path + ".external")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            try FileManager.default.removeItem(at: folder.appendingPathComponent(file))
        }
        #expect(throws: PersistenceError.self) { try ModelContext(container).fetch(FetchDescriptor<Photo>()) }
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Photo>()
        descriptor.propertiesToFetch = [\.name]
        let partial = try #require(try context.fetch(descriptor).first)
        #expect(partial.name == "beach")
        _ = partial.width  // reads width and image: the image's file is missing
        do {
            try context.save()
            Issue.record("the failed read was not reported")
        } catch PersistenceError.externalStorageMissing(let path) {
            #expect(path.hasPrefix(folder.path))
        }
    }
}
