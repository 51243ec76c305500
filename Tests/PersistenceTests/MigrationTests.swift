import Foundation
import Testing
import SQLite
@testable import Persistence
import PersistenceTestSupport

/// The repository's `Fixtures/persistence` folder.
let persistenceFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures/persistence")

@Suite struct MigrationTests {
    /// Writes a store with the V1 schema: duplicate titles, missing categories, text priorities.
    static func writeV1Store(at url: URL) throws {
        let container = try ModelContainer(for: NotesV1.schema, configurations: [ModelConfiguration(url: url)])
        let context = ModelContext(container)
        context.insert(NotesV1.Note(title: "groceries", body: "milk, eggs", priority: "high", category: "home"))
        context.insert(NotesV1.Note(title: "groceries", body: "a duplicate", priority: "low"))
        context.insert(NotesV1.Note(title: "verbs", body: "être, avoir", priority: "low"))
        context.insert(NotesV1.Note(title: "trip", body: "book the train", priority: "urgent", category: "travel"))
        try context.save()
        try container.close()
    }

    /// Regenerates the fixture: `REGENERATE_PERSISTENCE_FIXTURES=1 swift test --filter writeFixture`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["REGENERATE_PERSISTENCE_FIXTURES"] == "1"))
    func writeFixture() throws {
        let url = persistenceFixtures.appendingPathComponent("notes-v1.store")
        try? FileManager.default.removeItem(at: url)
        try Self.writeV1Store(at: url)
    }

    static func storeVersion(_ url: URL) throws -> String? {
        let db = try Database(path: url.path, mode: .readOnly)
        defer { db.close() }
        return try db.scalar("SELECT value FROM persistence_metadata WHERE key = 'schemaVersion'", as: String.self)
    }

    /// Everything observable about a store: its schema and every row of every table.
    static func dump(_ url: URL) throws -> [String] {
        let db = try Database(path: url.path, mode: .readOnly)
        defer { db.close() }
        var lines = try db.rows("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name").map { $0.map(\.description).joined(separator: "|") }
        for case .text(let table)? in try db.rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").map(\.first) {
            lines += try db.rows("SELECT * FROM \(quoteIdentifier(table)) ORDER BY 1").map { table + ": " + $0.map(\.description).joined(separator: "|") }
        }
        return lines
    }

    static func rootPage(_ url: URL, table: String) throws -> Int? {
        let db = try Database(path: url.path, mode: .readOnly)
        defer { db.close() }
        return try db.scalar("SELECT rootpage FROM sqlite_schema WHERE name = ?", [.text(table)], as: Int.self)
    }

    @Test func lightweightStageAltersInPlace() throws {
        let playground = try Playground()
        let url = playground.file("notes.store")
        try Self.writeV1Store(at: url)
        let pageBefore = try Self.rootPage(url, table: "Note")
        let container = try ModelContainer(for: NotesV2.schema, migrationPlan: NotesPlanToV2.self, configurations: [ModelConfiguration(url: url)])
        let context = ModelContext(container)
        let notes = try context.fetch(FetchDescriptor<NotesV2.Note>(sortBy: [SortDescriptor(\.text)]))
        #expect(notes.map(\.text) == ["a duplicate", "book the train", "milk, eggs", "être, avoir"])  // renamed from body
        #expect(notes.allSatisfy { !$0.pinned })  // added with its default
        context.insert(NotesV2.Folder(name: "new model"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<NotesV2.Folder>()) == 1)
        try container.close()
        // Same table (no rewrite), the removed column and its index gone, the version recorded.
        #expect(try Self.rootPage(url, table: "Note") == pageBefore)
        let db = try Database(path: url.path, mode: .readOnly)
        #expect(try db.columns(of: "Note") == ["pk", "title", "text", "priority", "category", "pinned"])
        #expect(try db.scalar("SELECT count(*) FROM sqlite_schema WHERE name = 'Note_legacy'", as: Int.self) == 0)
        db.close()
        #expect(try Self.storeVersion(url) == "2.0.0")
    }

    @Test func committedV1FixtureMigratesToV3() throws {
        let playground = try Playground()
        let url = playground.file("notes.store")
        try FileManager.default.copyItem(at: persistenceFixtures.appendingPathComponent("notes-v1.store"), to: url)
        #expect(try Self.storeVersion(url) == "1.0.0")
        let container = try ModelContainer(for: NotesV3.schema, migrationPlan: NotesPlan.self, configurations: [ModelConfiguration(url: url)])
        let context = ModelContext(container)
        let notes = try context.fetch(FetchDescriptor<NotesV3.Note>(sortBy: [SortDescriptor(\.title)]))
        #expect(notes.map(\.title) == ["groceries", "trip", "verbs"])           // de-duplicated
        #expect(notes.map(\.priority) == [3, 2, 1])                              // text became Int
        #expect(notes.map(\.category) == ["home", "travel", "inbox"])           // optional tightened
        #expect(notes.map(\.text) == ["milk, eggs", "book the train", "être, avoir"])
        #expect(try context.fetch(FetchDescriptor<NotesV2.Folder>()).map(\.name) == ["Migrated"])  // didMigrate ran on V3
        // The new unique constraint holds: a colliding insert updates the row.
        let again = NotesV3.Note(title: "trip")
        again.text = "replaced"
        context.insert(again)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<NotesV3.Note>()) == 3)
        try container.close()
        #expect(try Self.storeVersion(url) == "3.0.0")
        // Reopening at the current version runs nothing.
        let reopened = try ModelContainer(for: NotesV3.schema, migrationPlan: NotesPlan.self, configurations: [ModelConfiguration(url: url)])
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<NotesV3.Note>()) == 3)
    }

    @Test func failingStageLeavesStoreExactlyAsBefore() throws {
        let playground = try Playground()
        let url = playground.file("notes.store")
        try Self.writeV1Store(at: url)
        let before = try Self.dump(url)
        do {
            _ = try ModelContainer(for: NotesV3.schema, migrationPlan: ForgetfulPlan.self, configurations: [ModelConfiguration(url: url)])
            Issue.record("migration should have failed on the duplicate title")
        } catch PersistenceError.migrationFailed(let stage, let reason) {
            #expect(stage.contains("custom") && stage.contains("NotesV2 2.0.0") && stage.contains("NotesV3 3.0.0"), "\(stage)")
            #expect(reason.contains("UNIQUE"), "\(reason)")
        }
        #expect(try Self.dump(url) == before)
        #expect(try Self.storeVersion(url) == "1.0.0")
        // The foreign-key setting is back on for later openings: the good plan still works.
        let container = try ModelContainer(for: NotesV3.schema, migrationPlan: NotesPlan.self, configurations: [ModelConfiguration(url: url)])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<NotesV3.Note>()) == 3)
    }

    @Test func throwingWillMigrateNamesTheStage() throws {
        enum Refusal: Error { case no }
        enum ThrowingPlan: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self] }
            static var stages: [MigrationStage] {
                [.custom(fromVersion: NotesV1.self, toVersion: NotesV2.self, willMigrate: { context in
                    for note in try context.fetch(FetchDescriptor<NotesV1.Note>()) { note.body = "changed" }
                    try context.save()
                    throw Refusal.no
                }, didMigrate: nil)]
            }
        }
        let playground = try Playground()
        let url = playground.file("notes.store")
        try Self.writeV1Store(at: url)
        let before = try Self.dump(url)
        #expect {
            _ = try ModelContainer(for: NotesV2.schema, migrationPlan: ThrowingPlan.self, configurations: [ModelConfiguration(url: url)])
        } throws: { error in
            guard case PersistenceError.migrationFailed(let stage, let reason) = error else { return false }
            return stage.contains("NotesV1 1.0.0 → NotesV2 2.0.0") && reason.contains("no")
        }
        #expect(try Self.dump(url) == before)  // the save inside willMigrate was rolled back too
    }

    @Test(arguments: ["9.0.0", "0.5.0"])
    func versionOutsideThePlanIsRefusedNamingBoth(version: String) throws {
        let playground = try Playground()
        let url = playground.file("notes.store")
        try Self.writeV1Store(at: url)
        let db = try Database(path: url.path, mode: .create)
        try db.execute("UPDATE persistence_metadata SET value = ? WHERE key = 'schemaVersion'", [.text(version)])
        db.close()
        do {
            _ = try ModelContainer(for: NotesV3.schema, migrationPlan: NotesPlan.self, configurations: [ModelConfiguration(url: url)])
            Issue.record("opening should fail")
        } catch let error as PersistenceError {
            switch error {
            case .storeIsNewer(_, let store, let known): #expect(version == "9.0.0" && store == "9.0.0" && known == "3.0.0")
            case .unknownStoreVersion(_, let store, let current, let known):
                #expect(version == "0.5.0" && store == "0.5.0" && current == "3.0.0" && known == ["1.0.0", "2.0.0", "3.0.0"])
            default: Issue.record("unexpected \(error)")
            }
            #expect(error.description.contains(version) && error.description.contains("3.0.0"))
        }
        #expect(try Self.storeVersion(url) == version)
    }

    @Test func newStoreWithPlanStartsAtCurrentVersion() throws {
        let playground = try Playground()
        let url = playground.file("fresh.store")
        let container = try ModelContainer(for: NotesV3.schema, migrationPlan: NotesPlan.self, configurations: [ModelConfiguration(url: url)])
        ModelContext(container).insert(NotesV3.Note(title: "x"))
        try container.close()
        #expect(try Self.storeVersion(url) == "3.0.0")
    }
}

@Suite struct MigrationRebuildTests {
    @Test func rebuildingAReferencedTableKeepsRowsAndForeignKeys() throws {
        let playground = try Playground()
        let url = playground.file("shelves.store")
        do {
            let container = try ModelContainer(for: ShelvesV1.schema, configurations: [ModelConfiguration(url: url)])
            let context = ModelContext(container)
            for name in ["kitchen", "garage"] {
                let shelf = ShelvesV1.Shelf(name: name)
                shelf.items = [ShelvesV1.Item(label: "\(name) 1"), ShelvesV1.Item(label: "\(name) 2")]
                context.insert(shelf)
            }
            try context.save()
            try container.close()
        }
        let pageBefore = try MigrationTests.rootPage(url, table: "Shelf")
        let container = try ModelContainer(for: ShelvesV2.schema, migrationPlan: ShelvesPlan.self, configurations: [ModelConfiguration(url: url)])
        #expect(try MigrationTests.rootPage(url, table: "Shelf") != pageBefore)  // rebuilt for the unique constraint
        let context = ModelContext(container)
        // Dropping the old table fired no cascade: every item is still there, on its shelf.
        let items = try context.fetch(FetchDescriptor<ShelvesV2.Item>(sortBy: [SortDescriptor(\.label)]))
        #expect(items.map(\.label) == ["garage 1", "garage 2", "kitchen 1", "kitchen 2"])
        #expect(items.map { $0.shelf?.name } == ["garage", "garage", "kitchen", "kitchen"] && items.allSatisfy { $0.quantity == 1 })
        // The foreign key still points at the rebuilt table: a delete cascades in SQL.
        try context.delete(model: ShelvesV2.Shelf.self, where: #Predicate { $0.name == "garage" })
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ShelvesV2.Item>()) == 2)
        let (violations, foreignKeys, leftover) = try container.withDatabase(for: ShelvesV2.Item.self) { db in
            (try db.foreignKeyViolations(), try db.scalar("PRAGMA foreign_keys", as: Int.self), try db.tableExists("persistence_migrating_Shelf"))
        }
        #expect(violations == 0 && foreignKeys == 1 && !leftover)
    }
}

extension MigrationRebuildTests {
    @Test func aFirstSubclassAddsTheDiscriminator() throws {
        let playground = try Playground()
        let url = playground.file("library.store")
        do {
            let container = try ModelContainer(for: LibraryV1.schema, configurations: [ModelConfiguration(url: url)])
            let context = ModelContext(container)
            context.insert(LibraryV1.Media(title: "Pamphlet"))
            try context.save()
            try container.close()
        }
        let container = try ModelContainer(for: LibraryV2.schema, migrationPlan: LibraryPlan.self, configurations: [ModelConfiguration(url: url)])
        let context = ModelContext(container)
        let book = LibraryV2.Book()
        book.title = "Dune"
        book.pages = 412
        context.insert(book)
        try context.save()
        let all = try ModelContext(container).fetch(FetchDescriptor<LibraryV2.Media>(sortBy: [SortDescriptor(\.title)]))
        #expect(all.map(\.title) == ["Dune", "Pamphlet"])
        #expect(all.map(\.persistentModelID.entityName) == ["Book", "Media"])
        #expect((all[0] as? LibraryV2.Book)?.pages == 412)
    }
}
