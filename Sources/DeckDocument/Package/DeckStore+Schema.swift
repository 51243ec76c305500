import Foundation
import Persistence
import SQLite

extension DeckStore {
    /// Every object a store of the format holds, as SQLite stores it (`IF NOT EXISTS` dropped).
    struct ReferenceSchema {
        /// Trigger name → (table, accepted statements: the current one, then those of earlier builds).
        var triggers: [String: (table: String, sql: Set<String>)] = [:]
        /// Virtual table name → its statement.
        var virtualTables: [String: String] = [:]
        /// Names of ordinary tables (the models', the join tables, the index's shadow tables,
        /// the pending marker, the persistence layer's bookkeeping).
        var tables: Set<String> = []
        /// Index name → (table, statement).
        var indexes: [String: (table: String, sql: String)] = [:]

        init() {}

        /// The reference of a store holding `objects` (as `sqlite_schema` lists them).
        init(objects: [SchemaObject]) {
            tables.insert(Schema.metadataTable)
            for object in objects {
                switch object.type {
                case "trigger":
                    guard let sql = object.sql else { continue }
                    triggers[object.name] = (object.tableName, Set([sql] + (retiredTriggerSQL[object.name] ?? [])))
                case "table" where object.isVirtualTable:
                    virtualTables[object.name] = object.sql ?? ""
                case "table":
                    tables.insert(object.name)
                case "index":
                    if let sql = object.sql { indexes[object.name] = (object.tableName, sql) }
                default:
                    continue
                }
            }
        }
    }

    /// The reference schema, read back from an in-memory store built from the models,
    /// ``searchDDL`` and ``sparseIndexDDL``; nil if that fails (then every store is refused).
    static let referenceSchema: ReferenceSchema? = reference(schema().makeDDL() + searchDDL + sparseIndexDDL)

    /// The reference schema of format version 2 (``DeckStoreV2/statements``), from the objects
    /// written out in ``DeckStoreV2/layoutObjects`` (a test keeps them equal to what running the
    /// statements makes): building it by running the statements in memory took 3-4 ms, as much as
    /// the rest of `deck review`'s open.
    static let referenceSchemaV2 = ReferenceSchema(objects: DeckStoreV2.layoutObjects)
    /// The reference schema of revision 2.0.0 of format version 2 (``DeckStoreV2/version2_0Statements``).
    static let referenceSchemaV2_0 = ReferenceSchema(objects: DeckStoreV2.layoutObjects + DeckStoreV2.version2_0LayoutObjects)

    /// The objects SQLite keeps after running `statements` on an empty in-memory database
    /// (nil if that fails), in `sqlite_schema` order.
    static func objects(_ statements: [String]) -> [SchemaObject]? {
        guard let db = try? Database.inMemory() else { return nil }
        defer { db.close() }
        do {
            for statement in statements { try db.execute(statement) }
            return try db.schemaObjects()
        } catch {
            return nil
        }
    }

    static func reference(_ statements: [String]) -> ReferenceSchema? {
        objects(statements).map(ReferenceSchema.init(objects:))
    }

    /// Checks the store's schema against what the format allows, before anything else is
    /// read from it: a shared deck is untrusted, and its SQL must never run.
    ///
    /// Refused (``DeckError`` `corrupt`, naming the file and the object): any view (a view
    /// named like one of our tables would be read in its place; a recursive one never ends);
    /// any trigger but the search index's own, each compared by name, table and statement;
    /// any virtual table but the search index (an unknown module, or `fts5` with other
    /// options); any table or index the format does not define (SQLite's own `sqlite_*`
    /// objects aside), an index of ours on another table or with another statement, and a
    /// ``retiredIndexes`` entry that is not a plain index on `Card`. A version 2 store is held to
    /// the layout of the revision its `schemaVersion` names (2.0.0 has two more indexes), and
    /// refused (`notADeck`) when it lacks any of its tables.
    static func validateSchema(_ db: Database, path: String, formatVersion: Int) throws {
        // Code first (views, triggers, virtual tables): the most telling refusal.
        let objects = try db.schemaObjects().sorted { rank($0) < rank($1) }
        func rank(_ object: SchemaObject) -> Int {
            object.type == "view" ? 0 : object.type == "trigger" ? 1 : object.isVirtualTable ? 2 : 3
        }
        let reference: ReferenceSchema
        if formatVersion == DeckStoreV2.formatVersion {
            let revision = try DeckStoreV2.storedRevision(db, objects: objects)
            reference = revision == DeckSchemaV2_0.versionIdentifier ? referenceSchemaV2_0 : referenceSchemaV2
        } else {
            reference = referenceSchema ?? ReferenceSchema()
        }
        let file = URL(fileURLWithPath: path).lastPathComponent
        func refuse(_ object: SchemaObject, _ why: String) -> DeckError {
            DeckError(path: path, reason: "\(file) holds \(object), \(why); a shared deck's SQL is never run", kind: .corrupt)
        }
        for object in objects {
            switch object.type {
            case "view":
                throw refuse(object, "and a deck store has no views")
            case "trigger":
                guard let expected = reference.triggers[object.name] else {
                    throw refuse(object, "which is not a trigger of the deck format")
                }
                guard expected.table == object.tableName, let sql = object.sql, expected.sql.contains(sql) else {
                    throw refuse(object, "whose statement is not the deck format's")
                }
            case "table" where object.isVirtualTable:
                guard let expected = reference.virtualTables[object.name] else {
                    throw refuse(object, "which is not a table of the deck format")
                }
                guard object.sql == expected else {
                    throw refuse(object, "whose definition is not the deck format's")
                }
            case "table":
                guard reference.tables.contains(object.name) || object.name.hasPrefix("sqlite_") else {
                    throw refuse(object, "which is not a table of the deck format")
                }
            case "index":
                // Automatic indexes (UNIQUE and PRIMARY KEY constraints) have no statement.
                if object.name.hasPrefix("sqlite_autoindex_"), object.sql == nil { continue }
                if formatVersion < DeckStoreV2.formatVersion, retiredIndexes.contains(object.name) {
                    guard object.tableName == "Card", let sql = object.sql, !sql.uppercased().hasPrefix("CREATE UNIQUE") else {
                        throw refuse(object, "which is not an index earlier versions of the format made")
                    }
                    continue
                }
                guard let expected = reference.indexes[object.name] else {
                    throw refuse(object, "which is not an index of the deck format")
                }
                guard expected.table == object.tableName, object.sql == expected.sql else {
                    throw refuse(object, "whose statement is not the deck format's")
                }
            default:
                throw refuse(object, "which is not part of the deck format")
            }
        }
        // A version 2 store lacking a table of the format is refused at open (docs/FORMAT.md,
        // "Version policy"), not left to fail the first query that needs it: nothing is
        // created or repaired on open. (A missing index is `deck check`'s to report.)
        if formatVersion == DeckStoreV2.formatVersion {
            let present = Set(objects.lazy.filter { $0.type == "table" }.map(\.name))
            for name in reference.tables.union(reference.virtualTables.keys).sorted() where !present.contains(name) {
                throw DeckError(path: path, reason: "not a deck store: table \(name) is missing", kind: .notADeck)
            }
        }
    }

    /// Statements of the search triggers written by earlier builds, by trigger name, still
    /// accepted when reading; a writer replaces them with the current ones (``install(_:formatVersion:)``).
    static let retiredTriggerSQL: [String: [String]] = [:]
}
