import Foundation
import Persistence
import SQLite

extension DeckStore {
    /// A statement of the format's layout: the text SQLite keeps for it. A store's object whose
    /// text is the same byte for byte matches without more work (what every store this
    /// library wrote holds); any other text is compared as tokens (``tokens``), made only then,
    /// so that opening a deck does not tokenize the whole layout at each process start.
    struct ReferenceStatement: Sendable {
        var sql: String
        /// The statement as tokens; nil if the tokenizer can't read it (then a store's object
        /// held to it is refused).
        var tokens: SchemaStatement? { SchemaStatement(sql) }

        /// Whether `text` is this statement's byte for byte. Not `==`: String equality is
        /// canonical equivalence, under which a hostile `\u{212A}` (KELVIN SIGN) equals the `K`
        /// of `KEY`, while SQLite reads it as a name.
        func isText(of text: String) -> Bool { text.utf8.elementsEqual(sql.utf8) }
    }

    /// Every object a store of the format holds, as SQLite stores it (`IF NOT EXISTS` dropped).
    struct ReferenceSchema: Sendable {
        /// Trigger name → (table, accepted statements: the current one, then those of earlier builds).
        var triggers: [String: (table: String, sql: [ReferenceStatement])] = [:]
        /// Virtual table name → its statement.
        var virtualTables: [String: ReferenceStatement] = [:]
        /// Ordinary table name → its statement (the models', the join tables, the index's shadow
        /// tables, the pending marker, the persistence layer's bookkeeping).
        var tables: [String: ReferenceStatement] = [:]
        /// Index name → (table, statement).
        var indexes: [String: (table: String, sql: ReferenceStatement)] = [:]

        init() {}

        /// The reference of a store holding `objects` (as `sqlite_schema` lists them).
        init(objects: [SchemaObject]) {
            for object in objects {
                guard let sql = object.sql else { continue }
                let statement = ReferenceStatement(sql: sql)
                switch object.type {
                case "trigger":
                    triggers[object.name] = (object.tableName, [statement] + (retiredTriggerSQL[object.name] ?? []).map(ReferenceStatement.init))
                case "table" where object.isVirtualTable:
                    virtualTables[object.name] = statement
                case "table":
                    tables[object.name] = statement
                case "index":
                    indexes[object.name] = (object.tableName, statement)
                default:
                    continue
                }
            }
            if tables[Schema.metadataTable] == nil {
                tables[Schema.metadataTable] = ReferenceStatement(sql: DeckStoreV2.normalized(DeckStoreV2.metadataDDL))
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

    /// An object of a store's schema that the format does not define as it is.
    struct SchemaFault: CustomStringConvertible {
        var object: SchemaObject
        /// True when the format has no such object at all (as opposed to one defined otherwise).
        var isForeign: Bool
        var why: String
        /// `table "Card" is not as the format defines it (…)`: one line (the caller's printer
        /// escapes control characters of a hostile name).
        var description: String { "\(object) is not as the format defines it (\(why))" }
    }

    /// The reference a store's schema is held to: by its format version and, for version 2,
    /// the revision its `schemaVersion` names (2.0.0 has two more indexes).
    static func reference(for db: Database, objects: [SchemaObject], formatVersion: Int) throws -> ReferenceSchema {
        guard formatVersion == DeckStoreV2.formatVersion else { return referenceSchema ?? ReferenceSchema() }
        let revision = try DeckStoreV2.storedRevision(db, objects: objects)
        return revision == DeckSchemaV2_0.versionIdentifier ? referenceSchemaV2_0 : referenceSchemaV2
    }

    /// What in `objects` (the store's `sqlite_schema`) the format does not define so, code first
    /// (views, triggers, virtual tables: the most telling refusal), in schema order within each.
    /// Each object is compared by type, name, table and statement: statements as tokens
    /// (``SchemaStatement``: whitespace and the style of quoting a name don't matter), a
    /// table's without the constant defaults that `ALTER TABLE ADD COLUMN` leaves (a migrated
    /// store's). A table that matches is then read back through `PRAGMA table_xinfo`, SQLite's
    /// own parse of it, which must show no generated or hidden column and only constant
    /// defaults. Reads `sqlite_schema` and those pragmas only: nothing of the store runs.
    static func schemaFaults(_ db: Database, objects: [SchemaObject], reference: ReferenceSchema, formatVersion: Int) throws -> [SchemaFault] {
        func rank(_ object: SchemaObject) -> Int {
            object.type == "view" ? 0 : object.type == "trigger" ? 1 : object.isVirtualTable ? 2 : 3
        }
        var faults: [SchemaFault] = []
        func foreign(_ object: SchemaObject, _ why: String) { faults.append(SchemaFault(object: object, isForeign: true, why: why)) }
        func differs(_ object: SchemaObject, _ why: String) { faults.append(SchemaFault(object: object, isForeign: false, why: why)) }
        /// Why the store's statement is not `expected` (nil when it is). Text equal to the
        /// format's byte for byte is the format's statement; other text is compared as tokens.
        func difference(_ object: SchemaObject, _ expected: ReferenceStatement, ignoringConstantDefaults: Bool = false) -> String? {
            guard let sql = object.sql else { return "it has no statement" }
            if expected.isText(of: sql) { return nil }
            guard var found = SchemaStatement(sql) else { return "its statement holds a comment, a parameter or text SQLite's tokenizer would reject" }
            guard var wanted = expected.tokens else { return "the format's statement can't be read to compare it" }
            if ignoringConstantDefaults {
                found = found.withoutConstantDefaults
                wanted = wanted.withoutConstantDefaults
            }
            return found.firstDifference(from: wanted).map { "its statement differs \($0)" }
        }
        for object in objects.enumerated().sorted(by: { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }).map(\.element) {
            switch object.type {
            case "view":
                foreign(object, "a deck store has no views")
            case "trigger":
                guard let expected = reference.triggers[object.name] else {
                    foreign(object, "the format has no such trigger")
                    continue
                }
                if expected.table != object.tableName {
                    differs(object, "the format's is on \"\(expected.table)\"")
                } else if !expected.sql.contains(where: { difference(object, $0) == nil }) {
                    // None of the accepted statements matches: say how it differs from the current one.
                    differs(object, difference(object, expected.sql[0]) ?? "its statement is not the format's")
                }
            case "table" where object.isVirtualTable:
                guard let expected = reference.virtualTables[object.name] else {
                    foreign(object, "the format has no such table")
                    continue
                }
                if let why = difference(object, expected) { differs(object, why) }
            case "table":
                // SQLite's own (`sqlite_stat1`, `sqlite_sequence`): made by SQLite, never read by us.
                if object.name.hasPrefix("sqlite_") { continue }
                guard let expected = reference.tables[object.name] else {
                    foreign(object, "the format has no such table")
                    continue
                }
                if let why = difference(object, expected, ignoringConstantDefaults: true) {
                    differs(object, why)
                    continue
                }
                // The format's own text defines no generated or hidden column and no default
                // but its constants: only another text needs SQLite's parse read back.
                if let sql = object.sql, expected.isText(of: sql) { continue }
                for column in try db.tableColumns(of: object.name) {
                    if column.hidden != 0 {
                        differs(object, "column \"\(column.name)\" is \(column.hidden == 1 ? "hidden" : "generated")")
                    } else if let value = column.defaultValue, SchemaStatement(value)?.isConstantLiteral != true {
                        differs(object, "column \"\(column.name)\" has the default \(value), not a constant")
                    }
                }
            case "index":
                // Automatic indexes (UNIQUE and PRIMARY KEY constraints) have no statement.
                if object.name.hasPrefix("sqlite_autoindex_"), object.sql == nil { continue }
                if formatVersion < DeckStoreV2.formatVersion, retiredIndexes.contains(object.name) {
                    if object.tableName != "Card" || object.sql.flatMap(SchemaStatement.init)?.tokens.dropFirst().first != .word("INDEX") {
                        differs(object, "it is not a plain index on \"Card\", as earlier versions of the format made it")
                    }
                    continue
                }
                guard let expected = reference.indexes[object.name] else {
                    foreign(object, "the format has no such index")
                    continue
                }
                if expected.table != object.tableName {
                    differs(object, "the format's is on \"\(expected.table)\"")
                } else if let why = difference(object, expected.sql) {
                    differs(object, why)
                }
            default:
                foreign(object, "the format has no objects of this type")
            }
        }
        return faults
    }

    /// Checks the store's schema against what the format allows, before anything else is
    /// read from it: a shared deck is untrusted, and its SQL must never run.
    ///
    /// Refused (``DeckError`` `corrupt`, naming the file and the object: `table "Card" is not
    /// as the format defines it (…)`): the first of ``schemaFaults(_:objects:reference:formatVersion:)``:
    /// any view (a view named like one of our tables would be read in its place; a recursive
    /// one never ends), any trigger, virtual table, table or index that the format does not
    /// define or defines otherwise (a `CHECK`, an extra or generated column, another type, a
    /// `DEFAULT` that calls a function, another index expression or `WHERE`), SQLite's own
    /// `sqlite_*` objects aside, and a ``retiredIndexes`` entry that is not a plain index on
    /// `Card`. A version 2 store is held to the layout of the revision its `schemaVersion`
    /// names (2.0.0 has two more indexes), and refused (`notADeck`) when it lacks any of its tables.
    static func validateSchema(_ db: Database, path: String, formatVersion: Int) throws {
        let objects = try db.schemaObjects()
        let reference = try reference(for: db, objects: objects, formatVersion: formatVersion)
        if let fault = try schemaFaults(db, objects: objects, reference: reference, formatVersion: formatVersion).first {
            throw DeckError(path: path, reason: fault.description, kind: .corrupt)
        }
        // A version 2 store lacking a table of the format is refused at open (docs/FORMAT.md,
        // "Version policy"), not left to fail the first query that needs it: nothing is
        // created or repaired on open. (A missing index is `deck check`'s to report.)
        if formatVersion == DeckStoreV2.formatVersion {
            let present = Set(objects.lazy.filter { $0.type == "table" }.map(\.name))
            for name in Set(reference.tables.keys).union(reference.virtualTables.keys).sorted() where !present.contains(name) {
                throw DeckError(path: path, reason: "not a deck store: table \(name) is missing", kind: .notADeck)
            }
        }
    }

    /// Statements of the search triggers written by earlier builds, by trigger name, still
    /// accepted when reading; a writer replaces them with the current ones (``install(_:formatVersion:)``).
    static let retiredTriggerSQL: [String: [String]] = [:]
}
