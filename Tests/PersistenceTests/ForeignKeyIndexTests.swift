import Foundation
import Testing
import SQLite
@testable import Persistence
import PersistenceTestSupport

/// A shelf of books: each book's position is unique on its shelf (a UNIQUE index that starts
/// with the shelf's key), so the key needs no index of its own.
final class LibraryShelf: PersistentModel {
    var label: String = ""
    var books: [LibraryBook] {
        get { getValue(forKey: \.books) }
        set { setValue(forKey: \.books, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("label", \LibraryShelf.label),
        .relationship("books", \LibraryShelf.books, deleteRule: .cascade, inverse: \LibraryBook.shelf),
    ]
    var persistentBackingData = BackingData()
    init() {}
    init(label: String) { self.label = label }
}

final class LibraryBook: PersistentModel {
    var position: Int = 0
    var title: String = ""
    var shelf: LibraryShelf? {
        get { getValue(forKey: \.shelf) }
        set { setValue(forKey: \.shelf, to: newValue) }
    }
    var loans: [LibraryLoan] {
        get { getValue(forKey: \.loans) }
        set { setValue(forKey: \.loans, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("position", \LibraryBook.position),
        .attribute("title", \LibraryBook.title),
        .relationship("shelf", \LibraryBook.shelf, inverse: \LibraryShelf.books),
        .relationship("loans", \LibraryBook.loans, deleteRule: .cascade, inverse: \LibraryLoan.book),
        .uniqueIndex(\LibraryBook.shelf, \LibraryBook.position),
    ]
    var persistentBackingData = BackingData()
    init() {}
    init(title: String, position: Int) {
        self.title = title
        self.position = position
    }
}

/// A loan of a book to a reader: indexed by (due, book), which does not start with the book,
/// and by (reader, due), which starts with the reader.
final class LibraryLoan: PersistentModel {
    var due: Int64 = 0
    var book: LibraryBook? {
        get { getValue(forKey: \.book) }
        set { setValue(forKey: \.book, to: newValue) }
    }
    var reader: LibraryReader? {
        get { getValue(forKey: \.reader) }
        set { setValue(forKey: \.reader, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("due", \LibraryLoan.due),
        .relationship("book", \LibraryLoan.book, inverse: \LibraryBook.loans),
        .relationship("reader", \LibraryLoan.reader, inverse: \LibraryReader.loans),
        .index(\LibraryLoan.due, \LibraryLoan.book),
        .index(\LibraryLoan.reader, \LibraryLoan.due),
    ]
    var persistentBackingData = BackingData()
    init() {}
    init(due: Int64) { self.due = due }
}

/// A reader, unique by (card, library): the UNIQUE constraint starts with the card's key.
final class LibraryReader: PersistentModel {
    var name: String = ""
    var library: String = ""
    var card: LibraryCard? {
        get { getValue(forKey: \.card) }
        set { setValue(forKey: \.card, to: newValue) }
    }
    var loans: [LibraryLoan] {
        get { getValue(forKey: \.loans) }
        set { setValue(forKey: \.loans, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("name", \LibraryReader.name),
        .attribute("library", \LibraryReader.library),
        .relationship("card", \LibraryReader.card),
        .relationship("loans", \LibraryReader.loans, deleteRule: .cascade, inverse: \LibraryLoan.reader),
        .unique(\LibraryReader.card, \LibraryReader.library),
    ]
    var persistentBackingData = BackingData()
    init() {}
    init(name: String) { self.name = name }
}

final class LibraryCard: PersistentModel {
    var number: String = ""
    static let schemaMetadata: [Schema.PropertyMetadata] = [.attribute("number", \LibraryCard.number)]
    var persistentBackingData = BackingData()
    init() {}
}

/// A to-one relationship's key gets its own index only when no declared index and no UNIQUE
/// constraint of the table starts with it.
@Suite struct ForeignKeyIndexTests {
    static var types: [any PersistentModel.Type] { [LibraryShelf.self, LibraryBook.self, LibraryLoan.self, LibraryReader.self, LibraryCard.self] }

    /// Index name → statement, of every index with a statement in the store.
    static func indexes(_ url: URL) throws -> [String: String] {
        let db = try Database(path: url.path, mode: .readOnly)
        defer { db.close() }
        var result: [String: String] = [:]
        for row in try db.rows("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") {
            if case .text(let name) = row[0], case .text(let sql) = row[1] { result[name] = sql }
        }
        return result
    }

    static func plan(_ url: URL, _ sql: String) throws -> String {
        let db = try Database(path: url.path, mode: .readOnly)
        defer { db.close() }
        return try db.rows("EXPLAIN QUERY PLAN " + sql, [.integer(1)]).compactMap { row in
            if case .text(let detail)? = row.last { detail } else { nil }
        }.joined(separator: "; ")
    }

    @Test func anIndexThatStartsWithTheKeyReplacesItsOwn() throws {
        let ddl = Schema(Self.types).makeDDL()
        #expect(ddl.contains(#"CREATE UNIQUE INDEX IF NOT EXISTS "LibraryBook_shelf_position" ON "LibraryBook"("shelf", "position")"#), "\(ddl)")
        #expect(!ddl.contains { $0.contains(#""LibraryBook_shelf""#) }, "\(ddl)")
        #expect(ddl.contains(#"CREATE INDEX IF NOT EXISTS "LibraryLoan_reader_due" ON "LibraryLoan"("reader", "due")"#))
        #expect(!ddl.contains { $0.contains(#""LibraryLoan_reader""#) }, "\(ddl)")
        // The UNIQUE constraint's automatic index serves the card's key.
        #expect(!ddl.contains { $0.contains(#""LibraryReader_card""#) }, "\(ddl)")
    }

    @Test func anIndexThatDoesNotStartWithTheKeyLeavesItsOwn() throws {
        let ddl = Schema(Self.types).makeDDL()
        #expect(ddl.contains(#"CREATE INDEX IF NOT EXISTS "LibraryLoan_due_book" ON "LibraryLoan"("due", "book")"#))
        #expect(ddl.contains(#"CREATE INDEX IF NOT EXISTS "LibraryLoan_book" ON "LibraryLoan"("book")"#), "\(ddl)")
        // A model without declared indexes keeps every key's index, as before.
        let cards = Schema([Card.self, Deck.self, Tag.self, Review.self]).makeDDL()
        #expect(cards.contains(#"CREATE INDEX IF NOT EXISTS "Card_deck" ON "Card"("deck")"#))
        #expect(cards.contains(#"CREATE INDEX IF NOT EXISTS "Review_card" ON "Review"("card")"#))
    }

    @Test func aWritableReopenDoesNotAddTheIndexBack() throws {
        let playground = try Playground()
        let url = playground.file("library.sqlite")
        do {
            let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: url)])
            let context = ModelContext(container)
            let shelf = LibraryShelf(label: "A")
            context.insert(shelf)
            for position in 0..<3 {
                let book = LibraryBook(title: "LibraryBook \(position)", position: position)
                book.shelf = shelf
                context.insert(book)
            }
            try context.save()
            try container.close()
        }
        let created = try Self.indexes(url)
        for _ in 0..<2 {
            let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: url)])
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<LibraryBook>()) == 3)
            try container.close()
        }
        let reopened = try Self.indexes(url)
        #expect(reopened == created)
        #expect(reopened["LibraryBook_shelf"] == nil && reopened["LibraryLoan_reader"] == nil && reopened["LibraryReader_card"] == nil, "\(reopened.keys.sorted())")
        #expect(reopened["LibraryBook_shelf_position"] != nil && reopened["LibraryLoan_book"] != nil)
        // The lookups of the key still use an index: the inverse relationship's fetch and the
        // delete rule's.
        let plan = try Self.plan(url, #"SELECT "pk" FROM "LibraryBook" WHERE "shelf" = ?"#)
        #expect(plan.contains("LibraryBook_shelf_position"), "\(plan)")
    }

    @Test func theUniqueIndexHoldsAndTheDeleteRuleStillCascades() throws {
        let playground = try Playground()
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: playground.file("library.sqlite"))])
        let context = ModelContext(container)
        let shelf = LibraryShelf(label: "A")
        context.insert(shelf)
        let first = LibraryBook(title: "One", position: 1)
        first.shelf = shelf
        context.insert(first)
        try context.save()
        // A second book at the same position of the same shelf is refused, not merged.
        let second = LibraryBook(title: "Two", position: 1)
        second.shelf = shelf
        context.insert(second)
        #expect(throws: (any Error).self) { try context.save() }
        context.rollback()
        #expect(try context.fetchCount(FetchDescriptor<LibraryBook>()) == 1)
        context.delete(shelf)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<LibraryBook>()) == 0)
        try container.close()
    }
}
