import Foundation
import SQLite

/// Brings a freshly opened store in line with the schema: creates tables, checks the
/// recorded schema version, adds columns that a lightweight change introduced.
struct StoreSetup {
    let store: Store
    let schema: Schema
    let migrationPlan: (any SchemaMigrationPlan.Type)?

    static let versionKey = "schemaVersion"

    func run() throws {
        do {
            try store.withDatabase { db in
                let storedVersion = try readVersion(db)
                if let storedVersion, storedVersion > schema.version {
                    throw PersistenceError.storeIsNewer(path: store.path, storeVersion: storedVersion.description,
                                                        knownVersion: schema.version.description)
                }
                guard store.configuration.allowsSave else {
                    try verifyReadOnly(db)
                    return
                }
                if let migrationPlan, let storedVersion, storedVersion != schema.version {
                    try MigrationRunner(store: store, schema: schema, plan: migrationPlan, storedVersion: storedVersion, setup: self).run(db)
                } else {
                    let statements = storeStatements()
                    // Opening an up-to-date store runs no create-or-alter pass.
                    let upToDate = try storedVersion == schema.version && holdsExactly(statements, db)
                    if !upToDate {
                        try db.transaction(.immediate) {
                            try createOrAlter(db, statements: statements)
                            try writeVersion(db)
                        }
                    }
                }
                if try readMetadata(db, Self.decimalKey) != Self.decimalOrdered {
                    try db.transaction(.immediate) { try rewriteDecimals(db) }
                }
            }
        } catch let error as DatabaseError {
            throw PersistenceError.cannotOpenStore(path: store.path, reason: error.message)
        }
    }

    /// Records the schema's version in the store (creating the metadata table if needed).
    func writeVersion(_ db: Database) throws {
        // Opening an up-to-date store writes nothing.
        if try readVersion(db) == schema.version { return }
        try db.execute("CREATE TABLE IF NOT EXISTS \(quoteIdentifier(Schema.metadataTable)) (\"key\" TEXT PRIMARY KEY, \"value\" TEXT NOT NULL)")
        try db.execute("INSERT INTO \(quoteIdentifier(Schema.metadataTable)) VALUES (?, ?) ON CONFLICT(\"key\") DO UPDATE SET \"value\" = excluded.\"value\"",
                       [.text(Self.versionKey), .text(schema.version.description)])
    }

    func readVersion(_ db: Database) throws -> Schema.Version? {
        try readMetadata(db, Self.versionKey).flatMap(Schema.Version.init(string:))
    }

    func readMetadata(_ db: Database, _ key: String) throws -> String? {
        guard try db.tableExists(Schema.metadataTable) else { return nil }
        return try db.scalar("SELECT \"value\" FROM \(quoteIdentifier(Schema.metadataTable)) WHERE \"key\" = ?", [.text(key)], as: String.self)
    }

    /// The metadata key recording that Decimal columns hold ordered text.
    static let decimalKey = "decimalEncoding"
    static let decimalOrdered = "ordered"

    /// Stores written before Decimal values were kept as ordered text (`Decimal.orderedText`)
    /// hold them as plain text (`12.5`), which sorts as text: the first writable open
    /// rewrites every such value, once (recorded in `persistence_metadata`), in the open's
    /// transaction. Read-only opens read both forms.
    func rewriteDecimals(_ db: Database) throws {
        for root in tables {
            guard try db.tableExists(root.tableName) else { continue }
            for entity in root.hierarchy {
                for attribute in entity.attributes where attribute.storesDecimal(prototype: entity.make()) {
                    let table = quoteIdentifier(root.tableName), column = quoteIdentifier(attribute.name)
                    let rows = try db.rows("SELECT \"pk\", \(column) FROM \(table) WHERE \(column) IS NOT NULL AND NOT (typeof(\(column)) = 'text' AND (substr(\(column), 1, 1) IN ('n', 'o', 'p') OR \(column) = 'NaN'))")
                    let update = try db.prepare("UPDATE \(table) SET \(column) = ? WHERE \"pk\" = ?")
                    for row in rows {
                        guard row.count == 2, case .integer(let pk) = row[0], let value = Decimal.fromDatabaseValue(row[1]) else {
                            throw PersistenceError.invalidStoredValue(entity: entity.name, attribute: attribute.name, value: row.last?.description ?? "")
                        }
                        try update.execute([value.databaseValue, .integer(pk)])
                    }
                }
            }
        }
        try db.execute("CREATE TABLE IF NOT EXISTS \(quoteIdentifier(Schema.metadataTable)) (\"key\" TEXT PRIMARY KEY, \"value\" TEXT NOT NULL)")
        try db.execute("INSERT INTO \(quoteIdentifier(Schema.metadataTable)) VALUES (?, ?) ON CONFLICT(\"key\") DO UPDATE SET \"value\" = excluded.\"value\"",
                       [.text(Self.decimalKey), .text(Self.decimalOrdered)])
    }

    private var tables: [Schema.Entity] { store.entities.filter { $0.superentity == nil } }

    /// Creates missing tables and indexes; adds columns missing from existing tables.
    func createOrAlter(_ db: Database) throws {
        try createOrAlter(db, statements: storeStatements())
    }

    /// Runs `statements` (``storeStatements()``), adding the missing columns of tables that exist.
    private func createOrAlter(_ db: Database, statements: [String]) throws {
        for statement in statements {
            if statement.hasPrefix("CREATE TABLE"), let table = tableName(in: statement), try db.tableExists(table) {
                try addMissingColumns(db, table: table)
                continue
            }
            try db.execute(statement)
        }
    }

    /// The statements of ``Schema/makeDDL()`` that create this store's tables and indexes.
    func storeStatements() -> [String] {
        let names = Set(store.entities.map(\.name))
        return schema.makeDDL().filter { belongsToStore($0, names: names) }
    }

    /// Whether the store holds every table and index of `statements` exactly as they create
    /// it: SQLite keeps each `CREATE` statement's text, without its `IF NOT EXISTS`, and a
    /// column added later (`ALTER TABLE`) changes the kept text. Then there is nothing to
    /// create or alter (one read of the schema table, where creating or altering checks every
    /// table's columns in a write transaction).
    func holdsExactly(_ statements: [String], _ db: Database) throws -> Bool {
        var stored: Set<String> = []
        let rows = try db.prepare("SELECT \"sql\" FROM main.sqlite_schema WHERE \"sql\" IS NOT NULL")
        while try rows.step() { stored.insert(rows.string(at: 0)) }
        return statements.allSatisfy { statement in
            guard let kept = Self.removingIfNotExists(statement) else { return false }
            return stored.contains(kept)
        }
    }

    /// `statement` without the first ` IF NOT EXISTS` (how SQLite keeps a `CREATE` statement),
    /// nil when it has none.
    static func removingIfNotExists(_ statement: String) -> String? {
        guard let range = range(of: " IF NOT EXISTS", in: statement) else { return nil }
        var bytes = Array(statement.utf8)
        bytes.removeSubrange(range)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Where `needle` (ASCII) first occurs in `text`, as byte offsets: a plain byte search (this
    /// runs for every statement of every open; `range(of:)` compares by Unicode rules).
    static func range(of needle: StaticString, in text: String) -> Range<Int>? {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        var text = text
        return text.withUTF8 { bytes -> Range<Int>? in
            guard !pattern.isEmpty, bytes.count >= pattern.count else { return nil }
            for start in 0...(bytes.count - pattern.count) where bytes[start] == pattern[0] {
                if (1..<pattern.count).allSatisfy({ bytes[start + $0] == pattern[$0] }) { return start..<start + pattern.count }
            }
            return nil
        }
    }

    /// The identifier quoted right after `marker` in `statement` (`"` doubled inside).
    private static func quotedName(after marker: StaticString, in statement: String) -> String? {
        guard let found = range(of: marker, in: statement) else { return nil }
        let bytes = Array(statement.utf8)
        var index = found.upperBound, name: [UInt8] = []
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\"") {
                guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") else {
                    return String(decoding: name, as: UTF8.self)
                }
                index += 1
            }
            name.append(bytes[index])
            index += 1
        }
        return nil
    }

    private func tableName(in statement: String) -> String? {
        Self.quotedName(after: "IF NOT EXISTS \"", in: statement)
    }

    private func belongsToStore(_ statement: String, names: Set<String>) -> Bool {
        // Statements name their table right after IF NOT EXISTS (tables) or after ON (indexes).
        let table = statement.hasPrefix("CREATE TABLE") ? tableName(in: statement) : Self.quotedName(after: " ON \"", in: statement)
        guard let table else { return false }
        if names.contains(table) { return true }
        // Join tables are named <Entity>_<relationship>.
        return names.contains { table.hasPrefix($0 + "_") }
    }

    /// Lightweight evolution: a column the schema has and the table lacks is added, with the
    /// value a new model would have as its default (so existing rows get it).
    private func addMissingColumns(_ db: Database, table: String) throws {
        let existing = Set(try db.columns(of: table))
        guard let root = store.entities.first(where: { $0.name == table }) else { return }
        for entity in root.hierarchy {
            let prototype = entity.make()
            for attribute in entity.attributes where !existing.contains(attribute.name) {
                if let original = attribute.originalName, existing.contains(original) {
                    try db.execute("ALTER TABLE \(quoteIdentifier(table)) RENAME COLUMN \(quoteIdentifier(original)) TO \(quoteIdentifier(attribute.name))")
                    continue
                }
                let value = attribute.read(prototype)
                let notNull = (!attribute.isOptional && entity === root && !value.isNull) ? " NOT NULL" : ""
                let defaultClause = value.isNull ? "" : " DEFAULT \(sqlLiteral(value))"
                try db.execute("ALTER TABLE \(quoteIdentifier(table)) ADD COLUMN \(quoteIdentifier(attribute.name)) \(attribute.sqlType)\(notNull)\(defaultClause)")
            }
            for relationship in entity.relationships where !relationship.isToMany && !existing.contains(relationship.name) {
                try db.execute("ALTER TABLE \(quoteIdentifier(table)) ADD COLUMN \(quoteIdentifier(relationship.name)) INTEGER")
            }
        }
    }

    /// Checks that a read-only store has every table the schema needs.
    private func verifyReadOnly(_ db: Database) throws {
        if try holdsExactly(storeStatements(), db) { return }
        for root in tables {
            guard try db.tableExists(root.name) else {
                throw PersistenceError.incompatibleStore(path: store.path, reason: "table \(root.name) is missing")
            }
            let existing = Set(try db.columns(of: root.name))
            for entity in root.hierarchy {
                for column in entity.columnNames where !existing.contains(column) {
                    throw PersistenceError.incompatibleStore(path: store.path, reason: "column \(root.name).\(column) is missing")
                }
            }
        }
    }
}

/// A value as an SQL literal (for DEFAULT clauses; never for user data in queries).
func sqlLiteral(_ value: SQLValue) -> String {
    switch value {
    case .null: "NULL"
    case .integer(let v): String(v)
    case .real(let v): v.isFinite ? "\(v)" : "NULL"
    case .text(let v): "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
    case .blob(let v): "X'" + v.map { String(format: "%02X", $0) }.joined() + "'"
    }
}

extension Schema.Attribute {
    /// Whether the attribute stores a `Decimal` through its database conversion (a
    /// `Codable` attribute of that type is JSON, and is left alone).
    func storesDecimal(prototype: AnyObject) -> Bool {
        guard valueTypeName == "Decimal" || valueTypeName == "Optional<Decimal>", sqlType == "TEXT" else { return false }
        switch read(prototype) {
        case .text(let text): return Decimal(orderedText: text) != nil
        case .null: return true
        default: return false
        }
    }
}
