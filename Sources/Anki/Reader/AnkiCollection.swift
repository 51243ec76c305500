import Foundation
import SQLite

/// An Anki collection file (SQLite) opened read-only: note types and decks loaded at open, notes,
/// cards and reviews streamed row by row.
///
/// Handles schema 11 (note types and decks as JSON in `col`) and schemas 15–18 (the `notetypes`,
/// `fields`, `templates` and `decks` tables, whose configuration is protobuf). Queries never sort
/// or compare on Anki's `unicase` collation, which plain SQLite lacks.
package final class AnkiCollection {
    /// The latest Unix time (seconds) a collection's dates may hold: the end of year 9999.
    package static let maximumTime: Int64 = 253_402_300_799

    /// The newest collection schema this reader understands.
    package static let newestSchema = 18

    /// The collection's schema version (`col.ver`).
    package let schemaVersion: Int
    /// The note types, by id order.
    package let noteTypes: [AnkiNoteType]
    /// The decks, by id order.
    package let decks: [AnkiDeck]
    /// The collection's creation time, in seconds (`col.crt`); review `due` days count from its day.
    package let creationTime: Int64

    let database: Database
    /// The name used in errors (the package and entry).
    let label: String

    /// Opens the collection at `url` read-only and loads its note types and decks.
    ///
    /// - Throws: ``AnkiError`` of kind ``AnkiError/Kind/corruptCollection`` (not SQLite, no `col`
    ///   row, missing tables), ``AnkiError/Kind/unsupportedVersion``, ``AnkiError/Kind/malformedJSON``,
    ///   ``AnkiError/Kind/malformedProtobuf``.
    package convenience init(url: URL, label: String) throws {
        try self.init(source: .file(url), label: label)
    }

    /// Opens the collection in `source` (a file, or a stored entry of the package read in
    /// place); throws as ``init(url:label:)``.
    init(source: CollectionSource, label: String) throws {
        self.label = label
        let database: Database
        do {
            switch source {
            case .file(let url):
                // `immutable=1`: the file is our private copy, so SQLite needs no locks and no
                // -wal/-shm files (collections exported by Anki are often in WAL mode).
                let escaped = url.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? url.path
                database = try Database(path: "file:\(escaped)?immutable=1", mode: .readOnly)
            case .slice(let path, let entry):
                database = try Database(readOnlySliceOf: path, offset: entry.offset, length: entry.length)
            }
        } catch {
            throw AnkiError(.corruptCollection, path: label, reason: "not an SQLite database (\(error.message))")
        }
        self.database = database
        try Self.validateSchema(database, label: label)
        let (version, created) = try Self.readCol(database, label: label)
        guard version >= 11, version <= Self.newestSchema else {
            throw AnkiError(.unsupportedVersion, path: label,
                            reason: "collection schema \(version) is not supported (11 to \(Self.newestSchema) are)")
        }
        schemaVersion = version
        creationTime = created
        if try Self.has(database, table: "notetypes", label: label) {
            noteTypes = try Self.readNoteTypeTables(database, label: label)
        } else {
            noteTypes = try Self.readLegacyNoteTypes(database, label: label)
        }
        if try Self.has(database, table: "decks", label: label) {
            decks = try Self.readDeckTable(database, label: label)
        } else {
            decks = try Self.readLegacyDecks(database, label: label)
        }
        for table in ["notes", "cards", "revlog"] where try !Self.has(database, table: table, label: label) {
            throw AnkiError(.corruptCollection, path: label, reason: "the collection has no \(table) table")
        }
    }

    deinit { database.close() }

    /// Closes the database connection.
    package func close() { database.close() }

    /// The number of notes.
    package func noteCount() throws -> Int { try count("notes") }
    /// The number of cards.
    package func cardCount() throws -> Int { try count("cards") }
    /// The number of review-history entries.
    package func reviewCount() throws -> Int { try count("revlog") }

    /// Calls `body` with each note, in id order, one row in memory at a time.
    package func forEachNote(_ body: (AnkiNote) throws -> Void) throws {
        try query("SELECT id, guid, mid, mod, tags, flds FROM notes ORDER BY id") { row in
            try body(AnkiNote(id: row.int64(at: 0), guid: row.string(at: 1), noteTypeID: row.int64(at: 2),
                              modified: row.int64(at: 3), tags: AnkiText.splitTags(row.string(at: 4)),
                              fields: AnkiText.splitFields(row.string(at: 5))))
        }
    }

    /// Calls `body` with each card, in id order.
    package func forEachCard(_ body: (AnkiCard) throws -> Void) throws {
        let sql = """
            SELECT id, nid, did, ord, mod, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags
            FROM cards ORDER BY id
            """
        try query(sql) { row in
            try body(AnkiCard(id: row.int64(at: 0), noteID: row.int64(at: 1), deckID: row.int64(at: 2),
                              ordinal: Int(row.int64(at: 3)), modified: row.int64(at: 4),
                              type: .init(rawValue: Int(row.int64(at: 5))), queue: .init(rawValue: Int(row.int64(at: 6))),
                              due: row.int64(at: 7), interval: row.int64(at: 8), factor: row.int64(at: 9),
                              reps: row.int64(at: 10), lapses: row.int64(at: 11), left: row.int64(at: 12),
                              originalDue: row.int64(at: 13), originalDeckID: row.int64(at: 14),
                              flags: Int(row.int64(at: 15))))
        }
    }

    /// Calls `body` with each review-history entry, in time order.
    package func forEachReview(_ body: (AnkiReview) throws -> Void) throws {
        try query("SELECT id, cid, ease, ivl, lastIvl, factor, time, type FROM revlog ORDER BY id") { row in
            try body(AnkiReview(id: row.int64(at: 0), cardID: row.int64(at: 1), ease: Int(row.int64(at: 2)),
                                interval: row.int64(at: 3), lastInterval: row.int64(at: 4), factor: row.int64(at: 5),
                                timeTaken: row.int64(at: 6), kind: .init(rawValue: Int(row.int64(at: 7)))))
        }
    }

    // MARK: - Queries

    private func count(_ table: String) throws -> Int {
        var result = 0
        try query("SELECT count(*) FROM \(table)") { result = Int($0.int64(at: 0)) }
        return result
    }

    private func query(_ sql: String, _ body: (Statement) throws -> Void) throws {
        try Self.query(database, sql, label: label, body)
    }

    private static func query(_ database: Database, _ sql: String, label: String,
                              _ body: (Statement) throws -> Void) throws {
        do {
            let statement = try database.prepare(sql)
            while try statement.step() { try body(statement) }
        } catch let error as DatabaseError {
            throw AnkiError(.corruptCollection, path: label, reason: "cannot read the collection: \(error.message)")
        }
    }

    /// Refuses a collection whose schema holds code: a view, a trigger or a virtual table.
    /// Anki's collections have none; a package from elsewhere is untrusted, and its SQL is
    /// never run (the connection is read-only, with views and triggers disabled, too).
    private static func validateSchema(_ database: Database, label: String) throws {
        let objects: [SchemaObject]
        do {
            objects = try database.schemaObjects()
        } catch {
            throw AnkiError(.corruptCollection, path: label, reason: "cannot read the schema: \(error.message)")
        }
        for object in objects where object.type == "view" || object.type == "trigger" || object.isVirtualTable {
            throw AnkiError(.corruptCollection, path: label,
                            reason: "the collection holds \(object), which Anki collections never have; a shared collection's SQL is never run")
        }
    }

    private static func has(_ database: Database, table: String, label: String) throws -> Bool {
        do {
            return try database.tableExists(table)
        } catch {
            throw AnkiError(.corruptCollection, path: label, reason: "cannot read the schema: \(error.message)")
        }
    }

    private static func readCol(_ database: Database, label: String) throws -> (version: Int, created: Int64) {
        guard try has(database, table: "col", label: label) else {
            throw AnkiError(.corruptCollection, path: label, reason: "not an Anki collection (no col table)")
        }
        var result: (Int, Int64)?
        try query(database, "SELECT ver, crt FROM col LIMIT 1", label: label) {
            result = (Int(truncatingIfNeeded: $0.int64(at: 0)), $0.int64(at: 1))
        }
        guard let result else {
            throw AnkiError(.corruptCollection, path: label, reason: "the col table is empty")
        }
        // Due days count from it: a value beyond any date would overflow every day number.
        guard (0...maximumTime).contains(result.1) else {
            throw AnkiError(.corruptCollection, path: label,
                            reason: "col.crt \(result.1) is out of range (a Unix time in seconds from 1970 to 9999)")
        }
        return result
    }

    // MARK: - Schema 15-18: tables with protobuf configuration

    private static func readNoteTypeTables(_ database: Database, label: String) throws -> [AnkiNoteType] {
        var fields: [Int64: [AnkiNoteType.Field]] = [:]
        try query(database, "SELECT ntid, ord, name FROM fields", label: label) { row in
            fields[row.int64(at: 0), default: []].append(.init(name: row.string(at: 2), ordinal: Int(row.int64(at: 1))))
        }
        var templates: [Int64: [AnkiNoteType.Template]] = [:]
        try query(database, "SELECT ntid, ord, name, config FROM templates", label: label) { row in
            let config = try TemplateConfig(decoding: Array(row.data(at: 3)), path: "\(label) (templates)")
            templates[row.int64(at: 0), default: []].append(.init(
                name: row.string(at: 2), ordinal: Int(row.int64(at: 1)),
                questionFormat: config.questionFormat, answerFormat: config.answerFormat))
        }
        var result: [AnkiNoteType] = []
        try query(database, "SELECT id, name, config FROM notetypes ORDER BY id", label: label) { row in
            let id = row.int64(at: 0)
            let config = try NotetypeConfig(decoding: Array(row.data(at: 2)), path: "\(label) (notetypes)")
            result.append(AnkiNoteType(
                id: id, name: row.string(at: 1), kind: config.kind == 1 ? .cloze : .standard,
                fields: (fields[id] ?? []).sorted { $0.ordinal < $1.ordinal },
                templates: (templates[id] ?? []).sorted { $0.ordinal < $1.ordinal },
                css: config.css, sortFieldIndex: config.sortFieldIndex))
        }
        return result
    }

    private static func readDeckTable(_ database: Database, label: String) throws -> [AnkiDeck] {
        var result: [AnkiDeck] = []
        try query(database, "SELECT id, name, kind FROM decks ORDER BY id", label: label) { row in
            let kind = try DeckKind(decoding: Array(row.data(at: 2)), path: "\(label) (decks)")
            let name = row.string(at: 1).split(separator: "\u{1F}", omittingEmptySubsequences: false).joined(separator: "::")
            result.append(AnkiDeck(id: row.int64(at: 0), name: name, description: kind.description,
                                   isFiltered: kind.isFiltered))
        }
        return result
    }

    // MARK: - Schema 11: JSON in col

    private static func readLegacyJSON(_ database: Database, column: String, label: String) throws -> Data {
        var json: Data?
        try query(database, "SELECT \(column) FROM col LIMIT 1", label: label) { json = $0.data(at: 0) }
        guard let json, !json.isEmpty else {
            throw AnkiError(.malformedJSON, path: label, reason: "col.\(column) is empty")
        }
        return json
    }

    private static func decode<T: Decodable>(_ type: T.Type, from json: Data, what: String, label: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: json)
        } catch {
            throw AnkiError(.malformedJSON, path: label, reason: "\(what) is not valid: \(LegacyJSON.describe(error))")
        }
    }

    private static func readLegacyNoteTypes(_ database: Database, label: String) throws -> [AnkiNoteType] {
        let json = try readLegacyJSON(database, column: "models", label: label)
        let models = try decode([String: LegacyJSON.NoteType].self, from: json, what: "col.models", label: label)
        return models.values.map { model in
            let fields = model.flds.enumerated().map { index, field in
                AnkiNoteType.Field(name: field.name, ordinal: field.ord?.int ?? index)
            }.sorted { $0.ordinal < $1.ordinal }
            let templates = model.tmpls.enumerated().map { index, template in
                AnkiNoteType.Template(name: template.name, ordinal: template.ord?.int ?? index,
                                      questionFormat: template.qfmt ?? "", answerFormat: template.afmt ?? "")
            }.sorted { $0.ordinal < $1.ordinal }
            return AnkiNoteType(id: model.id.value, name: model.name, kind: model.type?.value == 1 ? .cloze : .standard,
                                fields: fields, templates: templates, css: model.css ?? "",
                                sortFieldIndex: model.sortf?.int ?? 0)
        }.sorted { $0.id < $1.id }
    }

    private static func readLegacyDecks(_ database: Database, label: String) throws -> [AnkiDeck] {
        let json = try readLegacyJSON(database, column: "decks", label: label)
        let decks = try decode([String: LegacyJSON.Deck].self, from: json, what: "col.decks", label: label)
        return decks.values.map { deck in
            AnkiDeck(id: deck.id.value, name: deck.name, description: deck.desc ?? "",
                     isFiltered: (deck.dyn?.value ?? 0) != 0)
        }.sorted { $0.id < $1.id }
    }
}
