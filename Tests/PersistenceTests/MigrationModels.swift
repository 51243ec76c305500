import Foundation
import Persistence

// Three versions of a notes schema, the way a SwiftData app declares them: one namespace per
// version, the same class name in each.

enum NotesV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }

    final class Note: PersistentModel {
        var title: String = ""
        var body: String = ""
        var priority: String = "low"
        var category: String? = nil
        var legacy: Int = 0
        static let schemaMetadata: [Schema.PropertyMetadata] = [
            .attribute("title", \Note.title),
            .attribute("body", \Note.body),
            .attribute("priority", \Note.priority),
            .attribute("category", \Note.category),
            .attribute("legacy", \Note.legacy, options: [.index]),
        ]
        let persistentBackingData = BackingData()
        init() {}
        init(title: String, body: String, priority: String = "low", category: String? = nil) {
            (self.title, self.body, self.priority, self.category) = (title, body, priority, category)
        }
    }
}

/// Lightweight from V1: `body` renamed `text`, `pinned` added with a default, `legacy`
/// removed, a `Folder` model added.
enum NotesV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self, Folder.self] }

    final class Note: PersistentModel {
        var title: String = ""
        var text: String = ""
        var priority: String = "low"
        var category: String? = nil
        var pinned: Bool = false
        static let schemaMetadata: [Schema.PropertyMetadata] = [
            .attribute("title", \Note.title),
            .attribute("text", \Note.text, originalName: "body"),
            .attribute("priority", \Note.priority),
            .attribute("category", \Note.category),
            .attribute("pinned", \Note.pinned),
        ]
        let persistentBackingData = BackingData()
        init() {}
    }

    final class Folder: PersistentModel {
        var name: String = ""
        static let schemaMetadata: [Schema.PropertyMetadata] = [.attribute("name", \Folder.name)]
        let persistentBackingData = BackingData()
        init() {}
        init(name: String) { self.name = name }
    }
}

/// Custom from V2: `priority` becomes an `Int`, `category` is no longer optional, `title`
/// becomes unique.
enum NotesV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self, Folder.self] }

    final class Note: PersistentModel {
        var title: String = ""
        var text: String = ""
        var priority: Int = 0
        var category: String = "inbox"
        var pinned: Bool = false
        static let schemaMetadata: [Schema.PropertyMetadata] = [
            .attribute("title", \Note.title, options: [.unique]),
            .attribute("text", \Note.text),
            .attribute("priority", \Note.priority),
            .attribute("category", \Note.category),
            .attribute("pinned", \Note.pinned),
        ]
        let persistentBackingData = BackingData()
        init() {}
        init(title: String) { self.title = title }
    }

    typealias Folder = NotesV2.Folder
}

enum NotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self, NotesV3.self] }
    static var stages: [MigrationStage] { [v1ToV2, v2ToV3] }

    static let v1ToV2 = MigrationStage.lightweight(fromVersion: NotesV1.self, toVersion: NotesV2.self)
    static let v2ToV3 = MigrationStage.custom(fromVersion: NotesV2.self, toVersion: NotesV3.self, willMigrate: { context in
        // De-duplicate titles (keep the first), fill missing categories, make priorities numeric.
        let notes = try context.fetch(FetchDescriptor<NotesV2.Note>(sortBy: [SortDescriptor(\.title)]))
        var seen: Set<String> = []
        for note in notes {
            if !seen.insert(note.title).inserted { context.delete(note); continue }
            if note.category == nil { note.category = "inbox" }
            note.priority = ["low": "1", "high": "3"][note.priority] ?? "2"
        }
        try context.save()
    }, didMigrate: { context in
        context.insert(NotesV2.Folder(name: "Migrated"))
    })
}

/// V1 → V2 only.
enum NotesPlanToV2: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self] }
    static var stages: [MigrationStage] { [NotesPlan.v1ToV2] }
}

/// A plan whose custom stage forgets to de-duplicate before the unique constraint.
enum ForgetfulPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self, NotesV3.self] }
    static var stages: [MigrationStage] {
        [NotesPlan.v1ToV2, .custom(fromVersion: NotesV2.self, toVersion: NotesV3.self, willMigrate: { context in
            for note in try context.fetch(FetchDescriptor<NotesV2.Note>()) {
                note.category = note.category ?? "inbox"
                note.priority = "1"
            }
        }, didMigrate: nil)]
    }
}

// Two versions of a schema with a relationship: V2 makes `Shelf.name` unique, which rebuilds
// the table `Item` rows point to.

enum ShelvesV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Shelf.self, Item.self] }

    final class Shelf: PersistentModel {
        var name: String = ""
        var items: [Item] {
            get { getValue(forKey: \.items) }
            set { setValue(forKey: \.items, to: newValue) }
        }
        static let schemaMetadata: [Schema.PropertyMetadata] = [
            .attribute("name", \Shelf.name),
            .relationship("items", \Shelf.items, deleteRule: .cascade, inverse: \Item.shelf),
        ]
        let persistentBackingData = BackingData()
        init() {}
        init(name: String) { self.name = name }
    }

    final class Item: PersistentModel {
        var label: String = ""
        var shelf: Shelf? {
            get { getValue(forKey: \.shelf) }
            set { setValue(forKey: \.shelf, to: newValue) }
        }
        static let schemaMetadata: [Schema.PropertyMetadata] = [
            .attribute("label", \Item.label),
            .relationship("shelf", \Item.shelf, inverse: \Shelf.items),
        ]
        let persistentBackingData = BackingData()
        init() {}
        init(label: String) { self.label = label }
    }
}

enum ShelvesV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Shelf.self, Item.self] }

    final class Shelf: PersistentModel {
        var name: String = ""
        var items: [Item] {
            get { getValue(forKey: \.items) }
            set { setValue(forKey: \.items, to: newValue) }
        }
        static let schemaMetadata: [Schema.PropertyMetadata] = [
            .attribute("name", \Shelf.name, options: [.unique]),
            .relationship("items", \Shelf.items, deleteRule: .cascade, inverse: \Item.shelf),
        ]
        let persistentBackingData = BackingData()
        init() {}
    }

    final class Item: PersistentModel {
        var label: String = ""
        var quantity: Int = 1
        var shelf: Shelf? {
            get { getValue(forKey: \.shelf) }
            set { setValue(forKey: \.shelf, to: newValue) }
        }
        static let schemaMetadata: [Schema.PropertyMetadata] = [
            .attribute("label", \Item.label),
            .attribute("quantity", \Item.quantity),
            .relationship("shelf", \Item.shelf, inverse: \Shelf.items),
        ]
        let persistentBackingData = BackingData()
        init() {}
    }
}

enum ShelvesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ShelvesV1.self, ShelvesV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: ShelvesV1.self, toVersion: ShelvesV2.self)] }
}

// V2 gives `Media` its first subclass: the table gains the discriminator column (a rebuild).

enum LibraryV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Media.self] }

    final class Media: PersistentModel {
        var title: String = ""
        static let schemaMetadata: [Schema.PropertyMetadata] = [.attribute("title", \Media.title)]
        let persistentBackingData = BackingData()
        init() {}
        init(title: String) { self.title = title }
    }
}

enum LibraryV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Media.self, Book.self] }

    class Media: PersistentModel {
        var title: String = ""
        class var schemaMetadata: [Schema.PropertyMetadata] { [.attribute("title", \Media.title)] }
        let persistentBackingData = BackingData()
        required init() {}
    }

    final class Book: Media {
        var pages: Int = 0
        override class var schemaMetadata: [Schema.PropertyMetadata] { super.schemaMetadata + [.attribute("pages", \Book.pages)] }
        required init() { super.init() }
    }
}

enum LibraryPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [LibraryV1.self, LibraryV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: LibraryV1.self, toVersion: LibraryV2.self)] }
}
