import Foundation
import SQLite

/// Runs the stages of a ``SchemaMigrationPlan`` on one store, from the version recorded in
/// the store to the container's version, in one transaction.
///
/// Each stage changes the tables in place when SQLite can (`ALTER TABLE … ADD / RENAME /
/// DROP COLUMN`, new indexes, new tables): adding a column to a table of a million rows
/// then costs a schema edit, not a copy. A table whose existing columns change type or
/// nullability, whose unique constraints change, or which gains its first subclass is
/// rebuilt: a new table is created, the rows copied, the old table dropped and the new one
/// renamed. Foreign keys are switched off for the duration (so dropping a rebuilt table
/// fires no delete actions) and checked before the commit.
///
/// A custom stage's `willMigrate` gets a context on the old schema, `didMigrate` one on the
/// new schema; their saves join the migration's transaction. On any failure the
/// transaction rolls back, so the store is exactly as before, and the error names the stage.
struct MigrationRunner {
    let store: Store
    let schema: Schema
    let plan: any SchemaMigrationPlan.Type
    let storedVersion: Schema.Version
    let setup: StoreSetup

    /// The stages leading from the stored version to the current one.
    func path() throws -> [MigrationStage] {
        let known = plan.schemas.map { $0.versionIdentifier }
        let unknown = PersistenceError.unknownStoreVersion(
            path: store.path, storeVersion: storedVersion.description, currentVersion: schema.version.description,
            knownVersions: known.map { $0.description })
        guard known.contains(storedVersion) else { throw unknown }
        var stages: [MigrationStage] = []
        var version = storedVersion
        while version != schema.version {
            guard let stage = plan.stages.first(where: { $0.fromVersion.versionIdentifier == version }),
                  stage.toVersion.versionIdentifier > version, stages.count <= plan.stages.count else { throw unknown }
            stages.append(stage)
            version = stage.toVersion.versionIdentifier
        }
        return stages
    }

    /// Migrates the store; `db` is the store's connection, outside any transaction.
    func run(_ db: Database) throws {
        let stages = try path()
        try db.execute("PRAGMA foreign_keys = OFF")
        var current = stages.first.map(Self.label) ?? "setup"
        do {
            try db.transaction(.immediate) {
                for stage in stages {
                    current = Self.label(stage)
                    try apply(stage, db)
                }
                try setup.createOrAlter(db)
                let violations = try db.foreignKeyViolations()
                if violations > 0 { throw MigrationIssue("\(violations) rows reference rows that no longer exist") }
                try setup.writeVersion(db)
            }
        } catch {
            // Best effort: the migration's own error is the one to report.
            try? db.execute("PRAGMA foreign_keys = ON")
            if let error = error as? PersistenceError, case .migrationFailed = error { throw error }
            throw PersistenceError.migrationFailed(stage: current, reason: (error as? PersistenceError)?.description ?? String(describing: error))
        }
        // The migration is committed; a connection left without foreign keys would let later
        // saves break references without a word, so this one is checked. (SQLite ignores the
        // pragma inside a transaction, without an error.)
        try db.execute("PRAGMA foreign_keys = ON")
        guard try db.scalar("PRAGMA foreign_keys", as: Int64.self) == 1 else {
            throw PersistenceError.migrationFailed(stage: current, reason: "foreign keys could not be switched back on after the migration")
        }
    }

    static func label(_ stage: MigrationStage) -> String {
        let kind: String
        switch stage { case .lightweight: kind = "lightweight"; case .custom: kind = "custom" }
        return "\(kind) \(stage.fromVersion) \(stage.fromVersion.versionIdentifier) → \(stage.toVersion) \(stage.toVersion.versionIdentifier)"
    }

    private func apply(_ stage: MigrationStage, _ db: Database) throws {
        let old = stage.fromVersion.schema
        let new = stage.toVersion.schema
        if case .custom(_, _, let willMigrate?, _) = stage {
            try runInContext(schema: old, willMigrate)
        }
        try restructure(from: old, to: new, db)
        if case .custom(_, _, _, let didMigrate?) = stage {
            try runInContext(schema: new, didMigrate)
        }
    }

    /// Runs a stage's closure with a context on `schema` and saves what it left pending.
    private func runInContext(schema: Schema, _ body: (ModelContext) throws -> Void) throws {
        let container = ModelContainer(migrating: schema, sharing: store)
        let context = ModelContext(container)
        try body(context)
        if context.hasChanges { try context.save() }
    }

    // MARK: Tables

    /// The root tables of `schema` that belong in this store (by name).
    private func roots(of schema: Schema) -> [Schema.Entity] {
        let names = Set(store.entities.map(\.name))
        return schema.entities.filter { $0.superentity == nil && (names.contains($0.name) || store.entities.isEmpty) }
    }

    private func joinTables(of schema: Schema) -> Set<String> {
        var tables: [String: String] = [:]
        for root in schema.entities where root.superentity == nil { _ = schema.tableLayout(of: root, joinTables: &tables) }
        return Set(tables.keys)
    }

    /// Brings the tables from `old`'s layout to `new`'s.
    private func restructure(from old: Schema, to new: Schema, _ db: Database) throws {
        let newNames = Set(new.entities.map(\.name))
        // Models that are gone: their tables go too.
        for oldRoot in old.entities where oldRoot.superentity == nil && !newNames.contains(oldRoot.name) {
            if try db.tableExists(oldRoot.name) { try db.execute("DROP TABLE \(quoteIdentifier(oldRoot.name))") }
        }
        let keptJoins = joinTables(of: new)
        for table in joinTables(of: old).subtracting(keptJoins).sorted() {
            try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(table))")
        }
        for root in roots(of: new) {
            let layout = new.tableLayout(of: root)
            guard try db.tableExists(root.name), let oldRoot = old.entity(named: root.name)?.rootEntity, oldRoot.name == root.name else {
                try db.execute(layout.createSQL(table: root.name))
                for index in layout.indexes { try db.execute(index.sql) }
                continue
            }
            try migrateTable(root, layout: layout, oldLayout: old.tableLayout(of: oldRoot), schema: new, db)
        }
        // Join tables of the new layout that the store lacks (a many-to-many relationship new
        // in this version): made now, so that a custom stage's `didMigrate` can fill them.
        var newJoins: [String: String] = [:]
        for root in roots(of: new) { _ = new.tableLayout(of: root, joinTables: &newJoins) }
        for (table, statement) in newJoins.sorted(by: { $0.key < $1.key }) where try !db.tableExists(table) {
            try db.execute(statement)
            try db.execute(Schema.joinTargetIndexSQL(table))
        }
    }

    private func migrateTable(_ root: Schema.Entity, layout: Schema.TableLayout, oldLayout: Schema.TableLayout, schema: Schema, _ db: Database) throws {
        let table = quoteIdentifier(root.name)
        let existing = Set(try db.columns(of: root.name))
        let oldDefinitions = Dictionary(oldLayout.columns.map { ($0.name, $0.definition) }, uniquingKeysWith: { a, _ in a })
        let originalNames = self.originalNames(root)
        // Where each new column's values come from: a column of the old table, or nothing.
        var sources: [String: String] = [:]
        var rebuild = Set(layout.constraints) != Set(oldLayout.constraints)
        for column in layout.columns {
            if existing.contains(column.name) {
                sources[column.name] = column.name
            } else if let original = originalNames[column.name], existing.contains(original) {
                sources[column.name] = original
            }
            if let source = sources[column.name], let before = oldDefinitions[source], before != column.definition { rebuild = true }
            if column.name == "entity" && sources[column.name] == nil { rebuild = true }
        }
        let used = Set(sources.values)
        let dropped = existing.subtracting(used)
        // A dropped column that a constraint or a foreign key names can't be dropped in place.
        for column in dropped {
            if oldDefinitions[column]?.contains("REFERENCES") == true || oldLayout.constraints.contains(where: { $0.contains(quoteIdentifier(column)) }) {
                rebuild = true
            }
        }
        if rebuild {
            try rebuildTable(root, layout: layout, sources: sources, oldDefinitions: oldDefinitions, db)
            return
        }
        // In place: drop indexes the new layout lacks, rename, drop, add, index.
        let wanted = Set(layout.indexes.map(\.name))
        for name in try indexNames(of: root.name, db) where !wanted.contains(name) {
            try db.execute("DROP INDEX \(quoteIdentifier(name))")
        }
        for column in layout.columns {
            if let source = sources[column.name], source != column.name {
                try db.execute("ALTER TABLE \(table) RENAME COLUMN \(quoteIdentifier(source)) TO \(quoteIdentifier(column.name))")
            }
        }
        for column in dropped.sorted() {
            try db.execute("ALTER TABLE \(table) DROP COLUMN \(quoteIdentifier(column))")
        }
        for column in layout.columns where sources[column.name] == nil {
            let value = defaultValue(of: column.name, root: root)
            var definition = column.definition
            if value.isNull { definition = definition.replacingOccurrences(of: " NOT NULL", with: "") }
            let defaultClause = value.isNull ? "" : " DEFAULT \(sqlLiteral(value))"
            try db.execute("ALTER TABLE \(table) ADD COLUMN \(quoteIdentifier(column.name)) \(definition)\(defaultClause)")
        }
        for index in layout.indexes { try db.execute(index.sql) }
    }

    /// Creates the table anew with the new layout, copies the rows, swaps it in. A column that
    /// becomes `NOT NULL` (an optional attribute made non-optional) gets the new model's
    /// default value where the old column held NULL, as SwiftData's lightweight migration does.
    private func rebuildTable(_ root: Schema.Entity, layout: Schema.TableLayout, sources: [String: String],
                              oldDefinitions: [String: String], _ db: Database) throws {
        let temporary = "persistence_migrating_" + root.name
        try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(temporary))")
        try db.execute(layout.createSQL(table: temporary))
        var columns: [String] = [], values: [String] = []
        for column in layout.columns {
            columns.append(quoteIdentifier(column.name))
            if let source = sources[column.name] {
                let tightened = column.definition.contains(" NOT NULL") && oldDefinitions[source]?.contains(" NOT NULL") == false
                let value = tightened ? defaultValue(of: column.name, root: root) : .null
                values.append(value.isNull ? quoteIdentifier(source) : "coalesce(\(quoteIdentifier(source)), \(sqlLiteral(value)))")
            } else if column.name == "entity" {
                values.append(sqlLiteral(.text(root.name)))
            } else {
                values.append(sqlLiteral(defaultValue(of: column.name, root: root)))
            }
        }
        try db.execute("INSERT INTO \(quoteIdentifier(temporary)) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(quoteIdentifier(root.name))")
        try db.execute("DROP TABLE \(quoteIdentifier(root.name))")
        try db.execute("ALTER TABLE \(quoteIdentifier(temporary)) RENAME TO \(quoteIdentifier(root.name))")
        for index in layout.indexes { try db.execute(index.sql) }
    }

    private func indexNames(of table: String, _ db: Database) throws -> [String] {
        try db.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", [.text(table)]).compactMap {
            if case .text(let name)? = $0.first { name } else { nil }
        }
    }

    /// New column name → its name in the previous version, for attributes and to-one
    /// relationships declared with `originalName`.
    private func originalNames(_ root: Schema.Entity) -> [String: String] {
        var names: [String: String] = [:]
        for entity in root.hierarchy {
            for attribute in entity.attributes { if let original = attribute.originalName { names[attribute.name] = original } }
            for relationship in entity.relationships where !relationship.isToMany {
                if let original = relationship.originalName { names[relationship.name] = original }
            }
        }
        return names
    }

    /// The value a new model has for a column: existing rows get it.
    private func defaultValue(of column: String, root: Schema.Entity) -> SQLValue {
        for entity in root.hierarchy {
            if let attribute = entity.attributes.first(where: { $0.name == column }) {
                return attribute.read(entity.make())
            }
        }
        return .null
    }
}

/// A reason a migration stage failed that isn't an error of its own.
struct MigrationIssue: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
