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
    /// The presets (deck configs), by id order.
    package let presets: [AnkiPreset]
    /// The collection's configuration (schema 18's `config` table, schema 11's `col.conf`) as
    /// the text of one JSON object, key → value, verbatim.
    package let configuration: String
    /// The collection's creation time, in seconds (`col.crt`); review `due` days count from its day.
    package let creationTime: Int64
    /// The tags marked collapsed (schema 17's `tags.collapsed`; schema 11 has no such state).
    package let collapsedTags: [String]

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
        // Anki's names carry its `unicase` collation; without one, SQLite can't plan a query of them.
        do { try database.registerCaseFoldingCollation(named: "unicase") } catch {
            throw AnkiError(.corruptCollection, path: label, reason: "cannot prepare the collection: \(error.message)")
        }
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
        if try Self.has(database, table: "deck_config", label: label) {
            presets = try Self.readDeckConfigTable(database, label: label)
            configuration = try Self.readConfigTable(database, label: label)
        } else {
            presets = try Self.readLegacyPresets(database, label: label)
            configuration = try Self.readLegacyConfig(database, label: label)
        }
        collapsedTags = try Self.readCollapsedTags(database, label: label)
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
        try query("SELECT id, cid, ease, ivl, lastIvl, factor, time, type, usn FROM revlog ORDER BY id") { row in
            try body(AnkiReview(id: row.int64(at: 0), cardID: row.int64(at: 1), ease: Int(truncatingIfNeeded: row.int64(at: 2)),
                                interval: row.int64(at: 3), lastInterval: row.int64(at: 4), factor: row.int64(at: 5),
                                timeTaken: row.int64(at: 6), kind: .init(rawValue: Int(truncatingIfNeeded: row.int64(at: 7))),
                                usn: Int(truncatingIfNeeded: row.int64(at: 8))))
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

    /// Refuses a collection whose schema holds code: a view, a trigger, a virtual table or a
    /// generated column (computed as it is read). Anki's collections have none; a package from
    /// elsewhere is untrusted, and its SQL is never run (the connection is read-only, with
    /// views and triggers disabled, too). A table's `CHECK` and `DEFAULT` run only when a row
    /// is written, which a reader never does, so they are not looked at.
    private static func validateSchema(_ database: Database, label: String) throws {
        do {
            let objects = try database.schemaObjects()
            for object in objects where object.type == "view" || object.type == "trigger" || object.isVirtualTable {
                throw AnkiError(.corruptCollection, path: label,
                                reason: "the collection holds \(object), which Anki collections never have; a shared collection's SQL is never run")
            }
            for object in objects where object.type == "table" && !object.name.hasPrefix("sqlite_") {
                if let column = try database.tableColumns(of: object.name).first(where: { $0.hidden != 0 }) {
                    throw AnkiError(.corruptCollection, path: label,
                                    reason: "the collection's table \"\(object.name)\" has the generated column \"\(column.name)\", which Anki collections never have; a shared collection's SQL is never run")
                }
            }
        } catch let error as DatabaseError {
            throw AnkiError(.corruptCollection, path: label, reason: "cannot read the schema: \(error.message)")
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
        try query(database, "SELECT ntid, ord, name, config FROM fields", label: label) { row in
            var field = AnkiNoteType.Field(name: row.string(at: 2), ordinal: Int(truncatingIfNeeded: row.int64(at: 1)))
            let options = try SchemaConfig.readField(Array(row.data(at: 3)), into: &field, path: "\(label) (fields)")
            field.options = OptionsJSON.text(options)
            fields[row.int64(at: 0), default: []].append(field)
        }
        var templates: [Int64: [AnkiNoteType.Template]] = [:]
        try query(database, "SELECT ntid, ord, name, mtime_secs, usn, config FROM templates", label: label) { row in
            var template = AnkiNoteType.Template(name: row.string(at: 2), ordinal: Int(truncatingIfNeeded: row.int64(at: 1)),
                                                 questionFormat: "", answerFormat: "", modified: row.int64(at: 3))
            var options = try SchemaConfig.readTemplate(Array(row.data(at: 5)), into: &template, path: "\(label) (templates)")
            options["usn"] = row.int64(at: 4)
            template.options = OptionsJSON.text(options)
            templates[row.int64(at: 0), default: []].append(template)
        }
        var result: [AnkiNoteType] = []
        try query(database, "SELECT id, name, mtime_secs, usn, config FROM notetypes ORDER BY id", label: label) { row in
            let id = row.int64(at: 0)
            var type = AnkiNoteType(id: id, name: row.string(at: 1),
                                    fields: (fields[id] ?? []).sorted { $0.ordinal < $1.ordinal },
                                    templates: (templates[id] ?? []).sorted { $0.ordinal < $1.ordinal },
                                    css: "", modified: row.int64(at: 2))
            var options = try SchemaConfig.readNotetype(Array(row.data(at: 4)), into: &type, path: "\(label) (notetypes)")
            options["usn"] = row.int64(at: 3)
            type.options = OptionsJSON.text(options)
            result.append(type)
        }
        return result
    }

    private static func readDeckTable(_ database: Database, label: String) throws -> [AnkiDeck] {
        var result: [AnkiDeck] = []
        try query(database, "SELECT id, name, mtime_secs, usn, common, kind FROM decks ORDER BY id", label: label) { row in
            let name = row.string(at: 1).split(separator: "\u{1F}", omittingEmptySubsequences: false).joined(separator: "::")
            var deck = AnkiDeck(id: row.int64(at: 0), name: name, modified: row.int64(at: 2))
            var options = try SchemaConfig.readDeck(common: Array(row.data(at: 4)), kind: Array(row.data(at: 5)), into: &deck,
                                                    path: "\(label) (decks)")
            options["usn"] = row.int64(at: 3)
            deck.options = OptionsJSON.text(options)
            result.append(deck)
        }
        return result
    }

    private static func readDeckConfigTable(_ database: Database, label: String) throws -> [AnkiPreset] {
        guard try has(database, table: "deck_config", label: label) else { return [] }
        var result: [AnkiPreset] = []
        try query(database, "SELECT id, name, mtime_secs, usn, config FROM deck_config ORDER BY id", label: label) { row in
            var preset = AnkiPreset(id: row.int64(at: 0), name: row.string(at: 1), modified: row.int64(at: 2))
            var options = try SchemaConfig.readPreset(Array(row.data(at: 4)), into: &preset, path: "\(label) (deck_config)")
            options["usn"] = row.int64(at: 3)
            preset.options = OptionsJSON.text(options)
            result.append(preset)
        }
        return result
    }

    /// The tags whose `collapsed` is set, by name.
    private static func readCollapsedTags(_ database: Database, label: String) throws -> [String] {
        guard try has(database, table: "tags", label: label) else { return [] }
        let columns: [String]
        do { columns = try database.columns(of: "tags") } catch {
            throw AnkiError(.corruptCollection, path: label, reason: "cannot read the schema: \(error.message)")
        }
        guard columns.contains("collapsed") else { return [] }
        var names: [String] = []
        // No ORDER BY: the column's `unicase` collation exists only in Anki.
        try query(database, "SELECT tag FROM tags WHERE collapsed != 0", label: label) { names.append($0.string(at: 0)) }
        return names.sorted()
    }

    /// The `config` table as one JSON object (key → its JSON value), `{}` when there is none.
    private static func readConfigTable(_ database: Database, label: String) throws -> String {
        guard try has(database, table: "config", label: label) else { return "{}" }
        var object: [String: Any] = [:]
        try query(database, "SELECT KEY, val FROM config", label: label) { row in
            let bytes = row.data(at: 1)
            guard let value = try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed]) else {
                throw AnkiError(.malformedJSON, path: label, reason: "config value \(row.string(at: 0)) is not JSON")
            }
            object[row.string(at: 0)] = value
        }
        return OptionsJSON.text(object)
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

    /// A JSON column of `col` as an object (validated by the typed decoding first).
    private static func legacyObjects(_ json: Data, what: String, label: String) throws -> [String: [String: Any]] {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw AnkiError(.malformedJSON, path: label, reason: "\(what) is not a JSON object")
        }
        return object.compactMapValues { $0 as? [String: Any] }
    }

    private static func readLegacyNoteTypes(_ database: Database, label: String) throws -> [AnkiNoteType] {
        let json = try readLegacyJSON(database, column: "models", label: label)
        let models = try decode([String: LegacyJSON.NoteType].self, from: json, what: "col.models", label: label)
        let raw = try legacyObjects(json, what: "col.models", label: label)
        return models.map { key, model in
            let object = raw[key] ?? [:]
            let rawFields = object["flds"] as? [[String: Any]] ?? []
            let rawTemplates = object["tmpls"] as? [[String: Any]] ?? []
            let fields = model.flds.enumerated().map { index, field in
                let json = index < rawFields.count ? rawFields[index] : [:]
                return AnkiNoteType.Field(
                    name: field.name, ordinal: field.ord?.int ?? index,
                    font: LegacyValue.string(json["font"]) ?? "Arial", fontSize: LegacyValue.int(json["size"]) ?? 20,
                    rightToLeft: LegacyValue.bool(json["rtl"]) ?? false, sticky: LegacyValue.bool(json["sticky"]) ?? false,
                    plainText: LegacyValue.bool(json["plainText"]) ?? false, collapsed: LegacyValue.bool(json["collapsed"]) ?? false,
                    excludeFromSearch: LegacyValue.bool(json["excludeFromSearch"]) ?? false,
                    description: LegacyValue.string(json["description"]) ?? "", id: LegacyValue.int64(json["id"]),
                    options: LegacyValue.rest(of: json, without: LegacyValue.fieldKeys))
            }.sorted { $0.ordinal < $1.ordinal }
            let templates = model.tmpls.enumerated().map { index, template in
                let json = index < rawTemplates.count ? rawTemplates[index] : [:]
                return AnkiNoteType.Template(
                    name: template.name, ordinal: template.ord?.int ?? index,
                    questionFormat: template.qfmt ?? "", answerFormat: template.afmt ?? "",
                    browserQuestionFormat: LegacyValue.string(json["bqfmt"]) ?? "",
                    browserAnswerFormat: LegacyValue.string(json["bafmt"]) ?? "",
                    browserFont: LegacyValue.string(json["bfont"]) ?? "", browserFontSize: LegacyValue.int(json["bsize"]) ?? 0,
                    targetDeckID: LegacyValue.int64(json["did"]) ?? 0, modified: LegacyValue.int64(json["mod"]) ?? 0,
                    id: LegacyValue.int64(json["id"]),
                    options: LegacyValue.rest(of: json, without: LegacyValue.templateKeys))
            }.sorted { $0.ordinal < $1.ordinal }
            return AnkiNoteType(id: model.id.value, name: model.name, kind: model.type?.value == 1 ? .cloze : .standard,
                                fields: fields, templates: templates, css: model.css ?? "",
                                sortFieldIndex: model.sortf?.int ?? 0,
                                stockKind: .init(rawValue: LegacyValue.int(object["originalStockKind"]) ?? 0),
                                latexPre: LegacyValue.string(object["latexPre"]) ?? AnkiNoteType.defaultLatexPre,
                                latexPost: LegacyValue.string(object["latexPost"]) ?? AnkiNoteType.defaultLatexPost,
                                latexSVG: LegacyValue.bool(object["latexsvg"]) ?? false,
                                modified: LegacyValue.int64(object["mod"]) ?? 0,
                                options: LegacyValue.rest(of: object, without: LegacyValue.noteTypeKeys))
        }.sorted { $0.id < $1.id }
    }

    private static func readLegacyDecks(_ database: Database, label: String) throws -> [AnkiDeck] {
        let json = try readLegacyJSON(database, column: "decks", label: label)
        let decks = try decode([String: LegacyJSON.Deck].self, from: json, what: "col.decks", label: label)
        let raw = try legacyObjects(json, what: "col.decks", label: label)
        return decks.map { key, deck in
            let object = raw[key] ?? [:]
            let terms = (object["terms"] as? [Any] ?? []).compactMap { term -> AnkiDeck.FilterTerm? in
                guard let parts = term as? [Any], parts.count >= 3, let search = parts[0] as? String else { return nil }
                return AnkiDeck.FilterTerm(search: search, limit: LegacyValue.int(parts[1]) ?? 0, order: LegacyValue.int(parts[2]) ?? 0)
            }
            return AnkiDeck(id: deck.id.value, name: deck.name, description: deck.desc ?? "",
                            isFiltered: (deck.dyn?.value ?? 0) != 0, presetID: LegacyValue.int64(object["conf"]) ?? 1,
                            markdownDescription: LegacyValue.bool(object["md"]) ?? false,
                            collapsed: LegacyValue.bool(object["collapsed"]) ?? false, filterTerms: terms,
                            reschedules: LegacyValue.bool(object["resched"]) ?? true,
                            modified: LegacyValue.int64(object["mod"]) ?? 0,
                            options: LegacyValue.rest(of: object, without: LegacyValue.deckKeys))
        }.sorted { $0.id < $1.id }
    }

    private static func readLegacyPresets(_ database: Database, label: String) throws -> [AnkiPreset] {
        var json: Data?
        try query(database, "SELECT dconf FROM col LIMIT 1", label: label) { json = $0.data(at: 0) }
        guard let json, !json.isEmpty else { return [] }
        let raw = try legacyObjects(json, what: "col.dconf", label: label)
        return raw.values.compactMap { object -> AnkiPreset? in
            guard let id = LegacyValue.int64(object["id"]) else { return nil }
            let new = object["new"] as? [String: Any] ?? [:]
            let rev = object["rev"] as? [String: Any] ?? [:]
            let lapse = object["lapse"] as? [String: Any] ?? [:]
            let ints = (new["ints"] as? [Any] ?? []).compactMap(LegacyValue.int)
            var preset = AnkiPreset(id: id, name: LegacyValue.string(object["name"]) ?? "", modified: LegacyValue.int64(object["mod"]) ?? 0)
            preset.newPerDay = LegacyValue.int(new["perDay"]) ?? preset.newPerDay
            preset.reviewsPerDay = LegacyValue.int(rev["perDay"]) ?? preset.reviewsPerDay
            preset.learningSteps = (new["delays"] as? [Any])?.compactMap(LegacyValue.double) ?? preset.learningSteps
            preset.relearningSteps = (lapse["delays"] as? [Any])?.compactMap(LegacyValue.double) ?? preset.relearningSteps
            preset.maximumInterval = LegacyValue.int(rev["maxIvl"]) ?? preset.maximumInterval
            let weights = ["fsrsParams6", "fsrsParams5", "fsrsWeights"].lazy
                .compactMap { (object[$0] as? [Any])?.compactMap(LegacyValue.double) }.first { !$0.isEmpty }
            preset.fsrsParameters = weights ?? []
            preset.desiredRetention = LegacyValue.double(object["desiredRetention"]) ?? preset.desiredRetention
            preset.startingEase = LegacyValue.int(new["initialFactor"]) ?? preset.startingEase
            if ints.count > 0 { preset.graduatingInterval = ints[0] }
            if ints.count > 1 { preset.easyInterval = ints[1] }
            preset.easyBonus = LegacyValue.double(rev["ease4"]) ?? preset.easyBonus
            preset.hardMultiplier = LegacyValue.double(rev["hardFactor"]) ?? preset.hardMultiplier
            preset.intervalMultiplier = LegacyValue.double(rev["ivlFct"]) ?? preset.intervalMultiplier
            preset.lapseMultiplier = LegacyValue.double(lapse["mult"]) ?? preset.lapseMultiplier
            preset.minimumLapseInterval = LegacyValue.int(lapse["minInt"]) ?? preset.minimumLapseInterval
            preset.leechThreshold = LegacyValue.int(lapse["leechFails"]) ?? preset.leechThreshold
            preset.buryNewSiblings = LegacyValue.bool(new["bury"]) ?? false
            preset.buryReviewSiblings = LegacyValue.bool(rev["bury"]) ?? false
            preset.buryInterdaySiblings = LegacyValue.bool(object["buryInterdayLearning"]) ?? false
            var rest = object
            for key in LegacyValue.presetKeys { rest[key] = nil }
            let newest = ["fsrsParams6", "fsrsParams5", "fsrsWeights"].first { !((object[$0] as? [Any]) ?? []).isEmpty }
            if let newest { rest[newest] = nil }
            rest["new"] = new.filter { !["perDay", "delays", "initialFactor", "ints", "bury"].contains($0.key) }
            rest["rev"] = rev.filter { !["perDay", "maxIvl", "ease4", "hardFactor", "ivlFct", "bury"].contains($0.key) }
            rest["lapse"] = lapse.filter { !["delays", "mult", "minInt", "leechFails"].contains($0.key) }
            preset.options = OptionsJSON.text(rest)
            return preset
        }.sorted { $0.id < $1.id }
    }

    /// `col.conf` (schema 11's collection configuration), `{}` when empty.
    private static func readLegacyConfig(_ database: Database, label: String) throws -> String {
        var json: Data?
        try query(database, "SELECT conf FROM col LIMIT 1", label: label) { json = $0.data(at: 0) }
        guard let json, !json.isEmpty else { return "{}" }
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw AnkiError(.malformedJSON, path: label, reason: "col.conf is not a JSON object")
        }
        return OptionsJSON.text(object)
    }
}

/// Lenient reads of schema-11 JSON values (ids may be strings, flags numbers), and the keys
/// each object has columns for (the rest is kept as its options).
enum LegacyValue {
    static let noteTypeKeys = ["id", "name", "type", "sortf", "css", "latexPre", "latexPost", "latexsvg", "mod",
                               "originalStockKind", "flds", "tmpls"]
    static let fieldKeys = ["name", "ord", "font", "size", "rtl", "sticky", "plainText", "collapsed", "excludeFromSearch",
                            "description", "id"]
    static let templateKeys = ["name", "ord", "qfmt", "afmt", "bqfmt", "bafmt", "bfont", "bsize", "did", "mod", "id"]
    static let deckKeys = ["id", "name", "dyn", "conf", "desc", "md", "collapsed", "terms", "resched", "mod"]
    static let presetKeys = ["id", "name", "mod", "desiredRetention", "buryInterdayLearning"]

    static func int64(_ value: Any?) -> Int64? {
        if let number = value as? NSNumber {
            // Every Int64, to its ends (Anki's random field and template ids reach them); the
            // number keeps the integer exactly, whatever its double says.
            let double = number.doubleValue
            guard double.isFinite, double >= -9_223_372_036_854_775_808.0, double <= 9_223_372_036_854_775_808.0 else { return nil }
            // The last Int64s round up to 2^63 as a double: only an integer number holds one of them.
            if double == 9_223_372_036_854_775_808.0 {
                switch String(cString: number.objCType) {
                case "q", "l": return number.int64Value
                case "Q", "L": return number.uint64Value <= UInt64(Int64.max) ? Int64(number.uint64Value) : nil
                default: return nil
                }
            }
            return number.int64Value
        }
        if let text = value as? String { return Int64(text) }
        return nil
    }
    static func int(_ value: Any?) -> Int? { int64(value).map { Int(truncatingIfNeeded: $0) } }
    static func double(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber, number.doubleValue.isFinite else { return nil }
        return number.doubleValue
    }
    static func bool(_ value: Any?) -> Bool? { (value as? NSNumber).map { $0.doubleValue != 0 } }
    static func string(_ value: Any?) -> String? { value as? String }

    /// The object without `keys`, as JSON text.
    static func rest(of object: [String: Any], without keys: [String]) -> String {
        var rest = object
        for key in keys { rest[key] = nil }
        return OptionsJSON.text(rest)
    }
}
