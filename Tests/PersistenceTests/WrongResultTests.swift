import Foundation
import Testing
import SQLite
@testable import Persistence
import PersistenceTestSupport

/// An expense with a Decimal amount and an enum category (the expense seed document).
final class Expense: PersistentModel {
    enum Category: String, Codable, CaseIterable { case food, travel, rent }
    var name: String = ""
    var amount: Decimal = 0
    var category: Category = .food
    var refund: Decimal? = nil
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("name", \Expense.name),
        .attribute("amount", \Expense.amount, options: [.index]),
        .attribute("category", \Expense.category),
        .attribute("refund", \Expense.refund),
    ]
    let persistentBackingData = BackingData()
    init() {}
    init(_ name: String, _ amount: String, _ category: Category = .food) {
        self.name = name
        self.amount = Decimal(string: amount, locale: Locale(identifier: "en_US_POSIX")) ?? 0
        self.category = category
    }
}

/// A to-one relationship whose destination declares no inverse.
final class Owner: PersistentModel {
    var name: String = ""
    static let schemaMetadata: [Schema.PropertyMetadata] = [.attribute("name", \Owner.name)]
    let persistentBackingData = BackingData()
    init() {}
    init(name: String) { self.name = name }
}

final class Belonging: PersistentModel {
    var label: String = ""
    var owner: Owner? {
        get { getValue(forKey: \.owner) }
        set { setValue(forKey: \.owner, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("label", \Belonging.label),
        .relationship("owner", \Belonging.owner),
    ]
    let persistentBackingData = BackingData()
    init() {}
    init(label: String) { self.label = label }
}

class Vehicle: PersistentModel {
    final var make: String = ""
    var model: String = ""
    class var schemaMetadata: [Schema.PropertyMetadata] {
        [.attribute("make", \Vehicle.make), .attribute("model", \Vehicle.model)]
    }
    let persistentBackingData = BackingData()
    required init() {}
    init(make: String, model: String) { self.make = make; self.model = model }
}

final class Car: Vehicle {
    var doors: Int = 4
    override class var schemaMetadata: [Schema.PropertyMetadata] {
        super.schemaMetadata + [.attribute("doors", \Car.doors)]
    }
    required init() { super.init() }
    init(make: String, model: String, doors: Int) { super.init(make: make, model: model); self.doors = doors }
}

private func decimal(_ text: String) -> Decimal { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? .nan }

/// Cases that returned wrong answers without an error (issue 13, item 4).
@Suite struct WrongResultTests {
    // MARK: Decimal

    @Test(arguments: StoreKind.allCases)
    func decimalsCompareAndSortAsNumbers(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Expense.self], in: playground)
        let context = ModelContext(container)
        for (name, amount) in [("book", "9.99"), ("flight", "100"), ("lunch", "12.5"), ("refund", "-3.25"), ("gift", "-30"), ("free", "0")] {
            context.insert(Expense(name, amount))
        }
        try context.save()
        let fresh = ModelContext(container)
        let limit = decimal("50")
        let big = try fresh.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount > limit }))
        #expect(big.map(\.name) == ["flight"])
        let sorted = try fresh.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        #expect(sorted.map(\.name) == ["gift", "refund", "free", "book", "lunch", "flight"])
        let low = decimal("-3.25"), high = decimal("12.5")
        #expect(try fresh.fetchCount(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount >= low && $0.amount <= high })) == 4)
        // Equal values have equal text, whatever their written precision.
        let same = decimal("12.50")
        #expect(try fresh.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount == same })).map(\.name) == ["lunch"])
        #expect(sorted.last?.amount == 100 && sorted[3].amount == decimal("9.99"))
    }

    @Test func decimalTextKeepsEveryDigitAndOrder() throws {
        let values = ["-1e40", "-123456789012345678901234567890.12345678", "-1.55", "-1.5", "-0.001", "0", "0.00099", "0.001",
                      "0.9", "0.91", "1.5", "1.55", "9.99", "100", "123456789012345678901234567890.12345678", "1e40"].map(decimal)
        let texts = values.map(\.orderedText)
        #expect(texts == texts.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(Set(texts).count == texts.count)
        for (value, text) in zip(values, texts) { #expect(Decimal.fromDatabaseValue(.text(text)) == value) }
        #expect(decimal("9.99").orderedText == "p501999 9.99" && decimal("1.50").orderedText == decimal("1.5").orderedText)
        // Plain text of older stores still reads.
        #expect(Decimal.fromDatabaseValue(.text("12.5")) == decimal("12.5"))
    }

    /// A store written with plain decimal text is rewritten once, at its first writable open.
    @Test func decimalsOfOlderStoresAreRewritten() throws {
        let playground = try Playground()
        let url = playground.file("old.sqlite")
        do {
            let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(Expense("a", "9.99")); context.insert(Expense("b", "100")); context.insert(Expense("c", "12.5"))
            try context.save()
            // What an older version wrote: plain text, and no record of the ordered encoding.
            try container.withDatabase(for: Expense.self) { db in
                try db.execute("UPDATE Expense SET amount = CASE name WHEN 'a' THEN '9.99' WHEN 'b' THEN '100' ELSE '12.5' END")
                try db.execute("DELETE FROM persistence_metadata WHERE key = 'decimalEncoding'")
            }
            try container.close()
        }
        let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let limit = decimal("50")
        #expect(try context.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount > limit })).map(\.name) == ["b"])
        let stored = try container.withDatabase(for: Expense.self) { db in try db.rows("SELECT amount FROM Expense ORDER BY pk") }
        #expect(stored.map { $0.first } == [.text("p501999 9.99"), .text("p5031 100"), .text("p502125 12.5")])
    }

    @Test func arithmeticOnDecimalsIsRefused() throws {
        let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let two = decimal("2"), limit = decimal("10")
        #expect(throws: PersistenceError.self) {
            try ModelContext(container).fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount * two > limit }))
        }
    }

    // MARK: Inheritance

    @Test(arguments: StoreKind.allCases)
    func subclassPredicatesAndSortsOnInheritedAttributes(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try InheritanceTests.populated(kind, playground)
        let context = ModelContext(container)
        let dune = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "Dune" }))
        #expect(dune.map(\.pages) == [412])
        let byYear = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.year, order: .reverse)]))
        #expect(byYear.map(\.title) == ["Dune", "Emma"])
        // Two inherited attributes of different types, and a mix with the subclass's own.
        #expect(try context.fetchCount(FetchDescriptor<Book>(predicate: #Predicate { $0.year < 1900 && $0.pages > 400 })) == 1)
        #expect(try context.fetch(FetchDescriptor<Film>(predicate: #Predicate { $0.title.contains("A") })).map(\.year) == [1979])
    }

    /// Two inherited attributes of one type: told apart by changing each on an instance.
    @Test(arguments: StoreKind.allCases)
    func inheritedAttributesOfOneTypeAreToldApart(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Vehicle.self, Car.self], in: playground)
        let context = ModelContext(container)
        context.insert(Car(make: "Fiat", model: "Panda", doors: 5))
        context.insert(Car(make: "Mini", model: "Cooper", doors: 3))
        context.insert(Vehicle(make: "Vespa", model: "Primavera"))
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Car>(predicate: #Predicate { $0.model == "Cooper" })).map(\.make) == ["Mini"])
        #expect(try fresh.fetch(FetchDescriptor<Car>(predicate: #Predicate { $0.make == "Fiat" })).map(\.model) == ["Panda"])
        #expect(try fresh.fetch(FetchDescriptor<Car>(sortBy: [SortDescriptor(\.model)])).map(\.make) == ["Mini", "Fiat"])
    }

    // MARK: Relationships without an inverse

    @Test(arguments: StoreKind.allCases)
    func deletingTheTargetOfAToOneWithoutInverseNullifies(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Belonging.self, Owner.self], in: playground)
        let context = ModelContext(container)
        let ann = Owner(name: "Ann")
        let cup = Belonging(label: "cup"), pen = Belonging(label: "pen")
        context.insert(cup); context.insert(pen)
        cup.owner = ann
        pen.owner = ann
        try context.save()
        // Another context holds the rows with the owner's key, not loaded.
        let other = ModelContext(container)
        let otherPen = try #require(try other.fetch(FetchDescriptor<Belonging>(predicate: #Predicate { $0.label == "pen" })).first)
        context.delete(ann)
        try context.save()
        #expect(cup.owner == nil && pen.owner == nil)
        cup.label = "mug"
        try context.save()  // and later saves too
        #expect(otherPen.owner == nil)
        otherPen.label = "quill"
        try other.save()
        let fresh = ModelContext(container)
        let stored = try fresh.fetch(FetchDescriptor<Belonging>(sortBy: [SortDescriptor(\.label)]))
        #expect(stored.map(\.label) == ["mug", "quill"] && stored.allSatisfy { $0.owner == nil })
        #expect(try other.fetchCount(FetchDescriptor<Owner>()) == 0)
    }

    // MARK: Pending changes

    @Test(arguments: StoreKind.allCases)
    func fetchesSeeUnsavedEditsOfRegisteredModels(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Card.self], in: playground)
        let context = ModelContext(container)
        for word in ["a", "b", "c"] { context.insert(Card(front: word, back: word)) }
        try context.save()
        let cards = try context.fetch(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front)]))
        cards[0].front = "z"  // "a" becomes "z"
        let renamed = FetchDescriptor<Card>(predicate: #Predicate { $0.front == "z" })
        #expect(try context.fetch(renamed).map(\.back) == ["a"])
        #expect(try context.fetchCount(renamed) == 1)
        let old = FetchDescriptor<Card>(predicate: #Predicate { $0.front == "a" })
        #expect(try context.fetch(old).isEmpty)
        #expect(try context.fetchCount(old) == 0)
        // The sort sees the edited value.
        #expect(try context.fetch(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front)])).map(\.front) == ["b", "c", "z"])
        // Without pending changes: the store's view.
        var stored = renamed
        stored.includePendingChanges = false
        #expect(try context.fetchCount(stored) == 0)
        // An edited, then deleted model is not counted.
        context.delete(cards[1])
        #expect(try context.fetchCount(FetchDescriptor<Card>()) == 2)
        #expect(try context.fetchCount(FetchDescriptor<Card>(predicate: #Predicate { $0.front != "q" })) == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func offsetAndLimitPageOverStoredAndPendingRows(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Card.self], in: playground)
        let context = ModelContext(container)
        for word in ["b", "d", "f"] { context.insert(Card(front: word, back: "")) }
        try context.save()
        for word in ["a", "c", "e"] { context.insert(Card(front: word, back: "")) }
        var page = FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front)])
        page.fetchOffset = 1
        page.fetchLimit = 3
        #expect(try context.fetch(page).map(\.front) == ["b", "c", "d"])
        #expect(try context.fetchCount(page) == 3)
        page.fetchOffset = 4
        #expect(try context.fetch(page).map(\.front) == ["e", "f"])
        #expect(try context.fetchCount(page) == 2)
        // Deleting a stored row moves the window.
        let d = try #require(try context.fetch(FetchDescriptor<Card>(predicate: #Predicate { $0.front == "d" })).first)
        context.delete(d)
        page.fetchOffset = 2
        #expect(try context.fetch(page).map(\.front) == ["c", "e", "f"])
        #expect(try context.fetchCount(page) == 3)
    }

    // MARK: Predicates

    @Test(arguments: StoreKind.allCases)
    func rawValueOfAnEnumInAPredicate(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Expense.self], in: playground)
        let context = ModelContext(container)
        context.insert(Expense("train", "40", .travel)); context.insert(Expense("flat", "900", .rent)); context.insert(Expense("soup", "4", .food))
        try context.save()
        let fresh = ModelContext(container)
        let found = try fresh.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.category.rawValue == "rent" }))
        #expect(found.map(\.name) == ["flat"])
        #expect(try fresh.fetchCount(FetchDescriptor<Expense>(predicate: #Predicate { $0.category.rawValue.contains("o") })) == 1)
    }

    // MARK: Failures are errors

    /// A delete rule that can't read its related rows makes the next save throw (it used to
    /// be taken as "no related rows", and the save succeeded without the cascade).
    @Test(arguments: StoreKind.allCases)
    func aFailedReadDuringDeleteRulesIsThrown(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Card.self, Deck.self, Tag.self, Review.self], in: playground)
        let context = ModelContext(container)
        let card = Card(front: "a", back: "b")
        context.insert(card)
        card.reviews = [Review(ease: 3)]
        try context.save()
        let other = ModelContext(container)
        let stored = try #require(try other.fetch(FetchDescriptor<Card>()).first)
        try container.withDatabase(for: Review.self) { db in try db.execute("ALTER TABLE Review RENAME TO Gone") }
        other.delete(stored)
        #expect(throws: PersistenceError.self) { try other.save() }
        other.rollback()
        try container.withDatabase(for: Review.self) { db in try db.execute("ALTER TABLE Gone RENAME TO Review") }
        other.delete(stored)
        try other.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Review>()) == 0)
    }

    // MARK: Containers sharing a schema

    @Test func containersBuiltFromOneSchemaAreIndependent() throws {
        let playground = try Playground()
        let schema = Schema([Trip.self, Person.self])
        let split = try ModelContainer(for: schema, configurations: [
            ModelConfiguration("trips", schema: Schema([Trip.self]), url: playground.file("trips.sqlite")),
            ModelConfiguration("people", schema: Schema([Person.self]), url: playground.file("people.sqlite")),
        ])
        let single = try ModelContainer(for: schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(split)
        context.insert(Person(name: "Ann"))
        context.insert(Trip(name: "Rome"))
        try context.save()
        let inSingle = ModelContext(single)
        inSingle.insert(Person(name: "Bob"))
        try inSingle.save()
        try split.close()
        let people = try ModelContainer(for: Person.self, configurations: ModelConfiguration(url: playground.file("people.sqlite")))
        #expect(try ModelContext(people).fetch(FetchDescriptor<Person>()).map(\.name) == ["Ann"])
        #expect(try ModelContext(single).fetch(FetchDescriptor<Person>()).map(\.name) == ["Bob"])
    }
}
