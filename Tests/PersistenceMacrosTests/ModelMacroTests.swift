import Foundation
import Observation
import Testing
import PersistenceMacros
import PersistenceTestSupport

@Suite struct ModelMacroTests {
    @Test(arguments: StoreKind.allCases)
    func attributesAndRelationshipsRoundTrip(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Shelf.self], in: playground)
        let writer = ModelContext(container)
        let shelf = Shelf(name: "Fiction")
        let dune = Book(title: "Dune", pages: 412, season: .summer)
        dune.price = Decimal(string: "9.99")!
        dune.address = Address(street: "1 Main St", city: "Springfield")
        dune.tags = ["sf", "classic"]
        dune.published = Date(timeIntervalSince1970: 1_000)
        shelf.books = [dune, Book(title: "Emma", pages: 300)]
        writer.insert(shelf)
        #expect(dune.shelf === shelf)
        try writer.save()

        let reader = ModelContext(container)
        let books = try reader.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]))
        #expect(books.map(\.title) == ["Dune", "Emma"])
        let read = books[0]
        #expect(read.pages == 412 && read.season == .summer && read.price == Decimal(string: "9.99")!)
        #expect(read.address == Address(street: "1 Main St", city: "Springfield") && read.tags == ["sf", "classic"])
        #expect(read.published == Date(timeIntervalSince1970: 1_000) && books[1].published == nil)
        #expect(read.shelf?.name == "Fiction" && read.shelf?.books.count == 2)
        #expect(read.isSelected == false)

        // Predicates and sorts name the public properties.
        let long = try reader.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.pages > 350 }))
        #expect(long.map(\.title) == ["Dune"])

        // Cascade from the shelf.
        reader.delete(try #require(read.shelf))
        try reader.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Book>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func uniqueAttributeUpserts(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Shelf.self], in: playground)
        let context = ModelContext(container)
        context.insert(Shelf(name: "A"))
        try context.save()
        let again = Shelf(name: "A")
        again.note = "second"
        context.insert(again)
        try context.save()
        let shelves = try ModelContext(container).fetch(FetchDescriptor<Shelf>())
        #expect(shelves.count == 1 && shelves.first?.note == "second")
    }

    @Test(arguments: StoreKind.allCases)
    func compoundUniqueIndexEphemeralTransientAndCounts(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Person.self], in: playground)
        let ddl = container.schema.makeDDL().joined(separator: "\n")
        #expect(ddl.contains("UNIQUE(\"givenName\", \"familyName\")"), "\(ddl)")
        #expect(ddl.contains("\"Person_familyName\"") && ddl.contains("\"Person_birthday\""), "\(ddl)")
        #expect(!ddl.contains("draft") && !ddl.contains("visits"), "\(ddl)")
        let context = ModelContext(container)
        let ada = Person(givenName: "Ada", familyName: "Lovelace")
        ada.draft = "unsaved"
        ada.visits = 3
        context.insert(ada)
        try context.save()
        // #Unique: an insert colliding on both attributes updates the existing row.
        let again = Person(givenName: "Ada", familyName: "Lovelace")
        again.birthday = Date(timeIntervalSince1970: 0)
        context.insert(again)
        context.insert(Person(givenName: "Ada", familyName: "Byron"))
        try context.save()
        let reader = ModelContext(container)
        let people = try reader.fetch(FetchDescriptor<Person>(sortBy: [SortDescriptor(\.familyName)]))
        #expect(people.map(\.familyName) == ["Byron", "Lovelace"] && people[1].birthday == Date(timeIntervalSince1970: 0))
        // Neither the ephemeral nor the transient value is stored.
        #expect(people[1].draft == "" && people[1].visits == 0)
        // maximumModelCount: 2 is checked at save.
        let crowded = Person(givenName: "Grace", familyName: "Hopper")
        crowded.friends = [Friend(nickname: "a"), Friend(nickname: "b"), Friend(nickname: "c")]
        reader.insert(crowded)
        #expect(throws: PersistenceError.self) { try reader.save() }
    }

    @Test func modelsAreObservable() throws {
        let playground = try Playground()
        let container = try StoreKind.memory.container([Shelf.self], in: playground)
        let context = ModelContext(container)
        let book = Book(title: "Dune", pages: 1)
        context.insert(book)
        try context.save()
        let changes = Counter()
        withObservationTracking { _ = book.title } onChange: { changes.hit() }
        book.title = "Dune Messiah"
        #expect(changes.count == 1)
        // A rollback writing the stored value back is seen too.
        withObservationTracking { _ = book.title } onChange: { changes.hit() }
        context.rollback()
        #expect(changes.count == 2 && book.title == "Dune")
        withObservationTracking { _ = book.shelf } onChange: { changes.hit() }
        book.shelf = Shelf(name: "S")
        #expect(changes.count == 3)
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func hit() { lock.lock(); value += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return value }
}
