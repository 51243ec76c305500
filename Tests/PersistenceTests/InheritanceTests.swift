import Foundation
import Testing
@testable import Persistence
import PersistenceTestSupport

/// A model hierarchy: the base declares its attributes in an overridable `class var`.
class Media: PersistentModel {
    var title: String = ""
    var year: Int = 0
    class var schemaMetadata: [Schema.PropertyMetadata] {
        [.attribute("title", \Media.title), .attribute("year", \Media.year)]
    }
    let persistentBackingData = BackingData()
    required init() {}
    init(title: String, year: Int) { self.title = title; self.year = year }
}

final class Book: Media {
    var pages: Int = 0
    override class var schemaMetadata: [Schema.PropertyMetadata] {
        super.schemaMetadata + [.attribute("pages", \Book.pages)]
    }
    required init() { super.init() }
    init(title: String, year: Int, pages: Int) { super.init(title: title, year: year); self.pages = pages }
}

final class Film: Media {
    var minutes: Int? = nil
    override class var schemaMetadata: [Schema.PropertyMetadata] {
        super.schemaMetadata + [.attribute("minutes", \Film.minutes)]
    }
    required init() { super.init() }
    init(title: String, year: Int, minutes: Int) { super.init(title: title, year: year); self.minutes = minutes }
}

@Suite struct InheritanceTests {
    static func populated(_ kind: StoreKind, _ playground: Playground) throws -> ModelContainer {
        let container = try kind.container([Media.self, Book.self, Film.self], in: playground)
        let context = ModelContext(container)
        context.insert(Media(title: "Pamphlet", year: 1900))
        context.insert(Book(title: "Dune", year: 1965, pages: 412))
        context.insert(Book(title: "Emma", year: 1815, pages: 474))
        context.insert(Film(title: "Alien", year: 1979, minutes: 117))
        try context.save()
        return container
    }

    @Test(arguments: StoreKind.allCases)
    func fetchingTheBaseReturnsSubclassInstances(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try Self.populated(kind, playground)
        let context = ModelContext(container)
        let all = try context.fetch(FetchDescriptor<Media>(sortBy: [SortDescriptor(\.year)]))
        #expect(all.map(\.title) == ["Emma", "Pamphlet", "Dune", "Alien"])
        #expect(all.map { String(describing: type(of: $0)) } == ["Book", "Media", "Book", "Film"])
        #expect((all[0] as? Book)?.pages == 474 && (all[3] as? Film)?.minutes == 117)
        #expect(all.map(\.persistentModelID.entityName) == ["Book", "Media", "Book", "Film"])
        // Only the base rows.
        var exact = FetchDescriptor<Media>()
        exact.includeSubclasses = false
        #expect(try context.fetch(exact).map(\.title) == ["Pamphlet"])
        #expect(try context.fetchCount(exact) == 1)
        // A subclass fetch sees its own rows only, with its own attributes in predicates.
        #expect(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.pages > 420 })).map(\.title) == ["Emma"])
        #expect(try context.fetchCount(FetchDescriptor<Film>()) == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func predicatesAndSortsOnBaseProperties(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try Self.populated(kind, playground)
        let context = ModelContext(container)
        let modern = try context.fetch(FetchDescriptor<Media>(predicate: #Predicate { $0.year > 1950 }, sortBy: [SortDescriptor(\.title)]))
        #expect(modern.map(\.title) == ["Alien", "Dune"])
        #expect(modern.first is Film && modern.last is Book)
        #expect(try context.fetchCount(FetchDescriptor<Media>(predicate: #Predicate { $0.title.contains("m") })) == 2)  // Emma, Pamphlet
    }

    @Test(arguments: StoreKind.allCases)
    func deletingThroughTheBase(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try Self.populated(kind, playground)
        let context = ModelContext(container)
        // A subclass instance deleted as a base model.
        let alien: Media = try #require(try context.fetch(FetchDescriptor<Media>(predicate: #Predicate { $0.title == "Alien" })).first)
        context.delete(alien)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Film>()) == 0)
        // A bulk delete on the base with a base predicate reaches subclass rows…
        try context.delete(model: Media.self, where: #Predicate { $0.year < 1850 })
        #expect(try ModelContext(container).fetch(FetchDescriptor<Media>()).map(\.title).sorted() == ["Dune", "Pamphlet"])
        // …unless told to keep to the base entity.
        try context.delete(model: Media.self, includeSubclasses: false)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Media>()).map(\.title) == ["Dune"])
    }

    @Test func oneTableWithADiscriminator() throws {
        let schema = Schema([Media.self, Book.self, Film.self])
        let ddl = schema.makeDDL()
        #expect(ddl.filter { $0.hasPrefix("CREATE TABLE") }.count == 1)
        #expect(ddl[0].contains("\"entity\" TEXT NOT NULL") && ddl[0].contains("\"pages\" INTEGER,") && ddl[0].contains("\"minutes\" INTEGER"))
        #expect(ddl.contains { $0.contains("\"Media_entity\"") })
        #expect(schema.entity(named: "Book")?.superentity === schema.entity(named: "Media"))
    }
}
