import Foundation
import Persistence
import SQLite

extension DeckStore {
    /// The schema objects a deck store may hold that run code or reach outside plain tables:
    /// the full-text index (the one virtual table, module `fts5`) and its triggers, each with
    /// the exact statement SQLite keeps for it. Views: none.
    struct ExecutableObjects {
        /// Trigger name → (table, accepted statements: the current one, then those of earlier builds).
        var triggers: [String: (table: String, sql: Set<String>)] = [:]
        /// Virtual table name → its statement.
        var virtualTables: [String: String] = [:]
    }

    /// What ``searchDDL`` creates, as SQLite stores it (`IF NOT EXISTS` dropped), read back from
    /// an in-memory store built from the models and ``searchDDL``; nil if that fails (then
    /// no trigger or virtual table is accepted).
    static let executableObjects: ExecutableObjects? = {
        guard let db = try? Database.inMemory() else { return nil }
        defer { db.close() }
        do {
            for statement in schema().makeDDL() + searchDDL { try db.execute(statement) }
            var objects = ExecutableObjects()
            for object in try db.schemaObjects() {
                guard let sql = object.sql else { continue }
                if object.type == "trigger" {
                    objects.triggers[object.name] = (object.tableName, Set([sql] + (retiredTriggerSQL[object.name] ?? [])))
                } else if object.isVirtualTable {
                    objects.virtualTables[object.name] = sql
                }
            }
            return objects
        } catch {
            return nil
        }
    }()

    /// Checks the store's schema against what the format allows, before anything else is
    /// read from it: a shared deck is untrusted, and its SQL must never run.
    ///
    /// Refused (``DeckError`` `corrupt`, naming the file and the object): any view (a view
    /// named like one of our tables would be read in its place; a recursive one never ends);
    /// any trigger but the search index's own, each compared by name, table and statement;
    /// any virtual table but the search index (an unknown module, or `fts5` with other
    /// options). Tables and indexes of other names are allowed: they run nothing and are
    /// never read (``DeckDocument/check()`` warns about them).
    static func validateSchema(_ db: Database, path: String) throws {
        let objects = try db.schemaObjects()
        let allowed = executableObjects ?? ExecutableObjects()
        let file = URL(fileURLWithPath: path).lastPathComponent
        func refuse(_ object: SchemaObject, _ why: String) -> DeckError {
            DeckError(path: path, reason: "\(file) holds \(object), \(why); a shared deck's SQL is never run", kind: .corrupt)
        }
        for object in objects {
            switch object.type {
            case "view":
                throw refuse(object, "and a deck store has no views")
            case "trigger":
                guard let expected = allowed.triggers[object.name] else {
                    throw refuse(object, "which is not a trigger of the deck format")
                }
                guard expected.table == object.tableName, let sql = object.sql, expected.sql.contains(sql) else {
                    throw refuse(object, "whose statement is not the deck format's")
                }
            case "table" where object.isVirtualTable:
                guard let expected = allowed.virtualTables[object.name] else {
                    throw refuse(object, "which is not a table of the deck format")
                }
                guard object.sql == expected else {
                    throw refuse(object, "whose definition is not the deck format's")
                }
            default:
                continue
            }
        }
    }

    /// Tables and indexes the store holds that the format does not define (harmless, and
    /// never read, but not something a deck writer makes): for ``DeckDocument/check()``.
    static func foreignObjects(_ db: Database) throws -> [SchemaObject] {
        guard let reference = try? Database.inMemory() else { return [] }
        defer { reference.close() }
        for statement in schema().makeDDL() + searchDDL + sparseIndexDDL { try reference.execute(statement) }
        let known = Set(try reference.schemaObjects().map(\.name)).union(retiredIndexes).union([Schema.metadataTable])
        return try db.schemaObjects().filter { object in
            !known.contains(object.name) && !object.name.hasPrefix("sqlite_") && object.type != "trigger" && object.type != "view"
        }
    }

    /// Statements of the search triggers written by earlier builds, by trigger name, still
    /// accepted when reading; a writer replaces them with the current ones (``install(_:formatVersion:)``).
    static let retiredTriggerSQL: [String: [String]] = [:]
}
