import CardTemplates
import Foundation
import Persistence
import SQLite

// Updates on import: an incoming note whose GUID is already in the deck updates that note (as
// Anki's importer does) instead of being added again. The importers decide per note with an
// ``ImportUpdatePolicy``; the SQL of finding, comparing and rewriting a note lives here.

/// When a note (or note type) already in the deck is replaced by the one an import brings:
/// Anki's update condition (`ImportAnkiPackageUpdateCondition`).
public enum ImportUpdatePolicy: String, Sendable, Hashable, CaseIterable, Codable {
    /// Only when the incoming one was modified later than the deck's (Anki's default).
    case newer
    /// Whenever it differs.
    case always
    /// Never: notes already in the deck are left as they are.
    case never

    /// Whether an incoming value modified at `incoming` replaces one modified at `existing`
    /// (Unix seconds). Anki compares whole seconds, so a difference within a second is none.
    public func allows(existing: Double, incoming: Double) -> Bool {
        switch self {
        case .newer: incoming.rounded(.down) > existing.rounded(.down)
        case .always: true
        case .never: false
        }
    }
}

/// Why an incoming note whose GUID is in the deck was not applied.
public enum ImportSkipReason: String, Sendable, Hashable, Codable {
    /// `--update newer` and the deck's note was modified as late or later.
    case older
    /// `--update never`.
    case never
    /// The incoming note's type is not the deck's note's type, nor one that could be merged
    /// into it (Anki: "conflicting"; its fields or templates changed).
    case noteType

    /// The reason in words, for a report.
    public var sentence: String {
        switch self {
        case .older: "the deck's note is as new or newer"
        case .never: "--update never"
        case .noteType: "its note type differs from the deck's note's (fields or templates changed)"
        }
    }
}

/// What became of one incoming note whose GUID was already in the deck.
public enum NoteUpdateOutcome: Sendable, Hashable {
    /// Its fields and tags replaced the deck's note's.
    case updated
    /// The deck's note has the same fields and tags already.
    case unchanged
    /// Left as it is, for the reason given.
    case skipped(ImportSkipReason)
}

/// A note skipped by an import, named for a report (`deck import --verbose`).
public struct SkippedNote: Sendable, Hashable, Codable {
    public var guid: String
    /// Its sort field (or first field) as plain text, cut to 60 characters.
    public var text: String
    public var reason: ImportSkipReason
    public init(guid: String, text: String, reason: ImportSkipReason) {
        self.guid = guid
        self.text = text
        self.reason = reason
    }
}

/// What an import did with one incoming note type that the deck already had (by Anki id), or added.
public struct NoteTypeDecision: Sendable, Hashable, Codable {
    public enum Action: String, Sendable, Hashable, Codable {
        /// New to the deck: added.
        case added
        /// The deck's type has the same fields and templates, and nothing newer came: kept as it is.
        case kept
        /// Same fields and templates (same ids or names, same order): the deck's type took the
        /// incoming names, formats, CSS and options in place.
        case updated
        /// Its fields or templates changed: the deck's type is kept, the incoming one added
        /// beside it under another name (Anki's default, without "merge note types"); notes of
        /// it already in the deck are skipped.
        case copied
        /// Its fields or templates changed and the import merged them (`--merge-notetypes`,
        /// Anki's "merge note types"): the deck's type has the fields and templates of both,
        /// and its notes and the incoming ones are mapped onto it.
        case merged
    }
    /// The incoming type's name.
    public var name: String
    public var action: Action
    /// The name the type has in the deck (the copy's, for ``Action/copied``).
    public var deckName: String
    public init(name: String, action: Action, deckName: String) {
        self.name = name
        self.action = action
        self.deckName = deckName
    }
}

/// Counts of an import's notes that were already in the deck, with the skipped ones named.
public struct ImportUpdateCounts: Sendable, Hashable, Codable {
    public var updated = 0
    public var unchanged = 0
    public var skipped = 0
    /// Every skipped note (for `--verbose`).
    public var skippedNotes: [SkippedNote] = []
    /// What became of each incoming note type (Anki packages; JSON files: the merged ones).
    public var noteTypes: [NoteTypeDecision] = []
    /// What became of the incoming decks (Anki packages; see ``BulkImport/importDeck(_:takesPreset:policy:)``).
    public var decks = ImportRowCounts()
    /// What became of the incoming presets (Anki packages; see ``BulkImport/importPreset(_:policy:)``).
    public var presets = ImportRowCounts()
    public init() {}

    /// Counts `outcome` of the note with `guid` and `text`.
    public mutating func record(_ outcome: NoteUpdateOutcome, guid: String, text: @autoclosure () -> String) {
        switch outcome {
        case .updated: updated += 1
        case .unchanged: unchanged += 1
        case .skipped(let reason):
            skipped += 1
            skippedNotes.append(SkippedNote(guid: guid, text: String(FieldText.plainText(fromHTML: text()).prefix(60)), reason: reason))
        }
    }

    /// Adds another file's counts.
    public mutating func add(_ other: ImportUpdateCounts) {
        updated += other.updated
        unchanged += other.unchanged
        skipped += other.skipped
        skippedNotes += other.skippedNotes
        noteTypes += other.noteTypes
        decks.add(other.decks)
        presets.add(other.presets)
    }
}

/// A note of the deck found by its GUID.
public struct SavedNote: Sendable, Hashable {
    /// Its key (`Note.pk`).
    public var key: Int64
    /// The key of its note type.
    public var noteType: Int64
    /// Unix seconds.
    public var modified: Double
}

/// The statements that find, compare and rewrite notes already in the deck, on one connection
/// inside an import's transaction (``DeckDocument/bulkImport(_:)``).
struct NoteUpdateSQL {
    let db: Database
    /// The deck's path, for errors.
    let path: String
    private let find, fields, tags, ordinals, update, unlinkTags, unlinkMedia, linkTag, linkMedia: Statement
    private let unindex, index, isIndexedThrough: Statement

    init(db: Database, path: String) throws {
        self.db = db
        self.path = path
        find = try db.prepare("SELECT \"pk\", \"noteType\", \"modified\" FROM \"Note\" WHERE \"guid\" = ?")
        fields = try db.prepare("SELECT \"fields\" FROM \"Note\" WHERE \"pk\" = ?")
        tags = try db.prepare("SELECT t.\"name\" FROM \"Note_tags\" j JOIN \"Tag\" t ON t.\"pk\" = j.\"target\" WHERE j.\"source\" = ?")
        ordinals = try db.prepare("SELECT \"ordinal\" FROM \"Card\" WHERE \"note\" = ?")
        update = try db.prepare("UPDATE \"Note\" SET \"fields\" = ?, \"sortText\" = ?, \"modified\" = ? WHERE \"pk\" = ?")
        unlinkTags = try db.prepare("DELETE FROM \"Note_tags\" WHERE \"source\" = ?")
        unlinkMedia = try db.prepare("DELETE FROM \"Note_media\" WHERE \"source\" = ?")
        linkTag = try db.prepare("INSERT OR IGNORE INTO \"Note_tags\" (\"source\", \"target\") VALUES (?, ?)")
        linkMedia = try db.prepare("INSERT OR IGNORE INTO \"Note_media\" (\"source\", \"target\") VALUES (?, ?)")
        unindex = try db.prepare("DELETE FROM \"\(DeckStoreV2.searchTable)\" WHERE rowid = ?")
        index = try db.prepare("INSERT INTO \"\(DeckStoreV2.searchTable)\" (rowid, fields, tags) VALUES (?, ?, ?)")
        isIndexedThrough = try db.prepare("SELECT min(\"indexedThrough\") FROM \"\(DeckStoreV2.pendingTable)\"")
    }

    /// The saved note with `guid`, if any (one lookup on the unique index).
    func note(guid: String) throws -> SavedNote? {
        try find.bind([.text(guid)])
        defer { find.reset() }
        guard try find.step() else { return nil }
        return SavedNote(key: find.int64(at: 0), noteType: find.int64(at: 1), modified: find.double(at: 2))
    }

    /// The field values of note `key`.
    func fieldValues(of key: Int64) throws -> [String] {
        try fields.bind([.integer(key)])
        defer { fields.reset() }
        let problem = DeckError(path: path, reason: "note \(key): fields is not a JSON array of strings", kind: .corrupt)
        guard try fields.step(), fields.isText(at: 0) else { throw problem }
        do {
            return try JSONDecoder().decode([String].self, from: Data(fields.string(at: 0).utf8))
        } catch {
            throw problem
        }
    }

    /// Recomputes the sort text of every note of `noteType` after its sort field changed.
    func resort(noteType: Int64, sortField: Int) throws {
        let notes = try db.prepare("SELECT \"pk\", \"fields\" FROM \"Note\" WHERE \"noteType\" = ?")
        try notes.bind([.integer(noteType)])
        var rows: [(Int64, String)] = []
        while try notes.step() { rows.append((notes.int64(at: 0), notes.isText(at: 1) ? notes.string(at: 1) : "[]")) }
        let update = try db.prepare("UPDATE \"Note\" SET \"sortText\" = ? WHERE \"pk\" = ?")
        for (key, json) in rows {
            let values: [String]
            do { values = try JSONDecoder().decode([String].self, from: Data(json.utf8)) } catch {
                throw DeckError(path: path, reason: "note \(key): fields is not a JSON array of strings", kind: .corrupt)
            }
            try update.execute([.text(FieldText.plainText(fromHTML: values.indices.contains(sortField) ? values[sortField] : "")), .integer(key)])
        }
    }

    /// The tag names of note `key`.
    func tagNames(of key: Int64) throws -> [String] {
        try tags.bind([.integer(key)])
        defer { tags.reset() }
        var names: [String] = []
        while try tags.step() { names.append(tags.string(at: 0)) }
        return names
    }

    /// The sort text of `values` for a type whose sort field is `sortField`.
    static func sortText(_ values: [String], sortField: Int) -> String {
        FieldText.plainText(fromHTML: values.indices.contains(sortField) ? values[sortField] : "")
    }

    /// The deck of note `key`'s first card (where its new cards go), nil when it has none.
    func deck(of key: Int64) throws -> Int64? {
        try db.scalar("SELECT \"deck\" FROM \"Card\" WHERE \"note\" = ? ORDER BY \"ordinal\" LIMIT 1", [.integer(key)], as: Int64.self)
    }

    /// The ordinals of the cards note `key` has.
    func cardOrdinals(of key: Int64) throws -> Set<Int> {
        try ordinals.bind([.integer(key)])
        defer { ordinals.reset() }
        var result: Set<Int> = []
        while try ordinals.step() { result.insert(Int(ordinals.int64(at: 0))) }
        return result
    }

    /// Whether note `key` already has `fields` and the tags `tagNames` (ignoring case and order).
    func hasContents(_ key: Int64, fields values: [String], tags incoming: [String]) throws -> Bool {
        guard try fieldValues(of: key) == values else { return false }
        func folded(_ names: [String]) -> Set<String> {
            Set(names.map { $0.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }.filter { !$0.isEmpty })
        }
        return folded(try tagNames(of: key)) == folded(incoming)
    }

    /// Rewrites note `key`: its fields, sort text and modification time, its tag links (when
    /// `tagKeys` is given) and media links (when `mediaKeys` is), and its row of the search index.
    func rewrite(_ key: Int64, fields values: [String], sortText: String, modified: Double, tagKeys: [Int64]?, mediaKeys: [Int64]?) throws {
        let json = String(decoding: try JSONEncoder().encode(values), as: UTF8.self)
        try update.execute([.text(json), .text(sortText), .real(modified), .integer(key)])
        if let tagKeys {
            try unlinkTags.execute([.integer(key)])
            for tag in Set(tagKeys) { try linkTag.execute([.integer(key), .integer(tag)]) }
        }
        if let mediaKeys {
            try unlinkMedia.execute([.integer(key)])
            for name in Set(mediaKeys) { try linkMedia.execute([.integer(key), .integer(name)]) }
        }
        // Notes above the pending marker are indexed at the next search anyway.
        try isIndexedThrough.bind([])
        let through: Int64? = try isIndexedThrough.step() && !isIndexedThrough.isNull(at: 0) ? isIndexedThrough.int64(at: 0) : nil
        isIndexedThrough.reset()
        if through.map({ key <= $0 }) ?? true {
            try unindex.execute([.integer(key)])
            try index.execute([.integer(key), .text(DeckStoreV2.searchText(ofFields: values)),
                               .text(try tagNames(of: key).joined(separator: " "))])
        }
    }
}

extension BulkImport {
    /// The update statements, prepared on first use.
    func updateStatements() throws -> NoteUpdateSQL {
        if let updates { return updates }
        let made = try document.container.withDatabase(for: Note.self) { db in try NoteUpdateSQL(db: db, path: document.url.path) }
        updates = made
        return made
    }

    /// The note of the deck with `guid`, if there is one (one lookup on the unique index; none
    /// at all when the deck had no notes before the import).
    /// - Throws: the store's error.
    public func savedNote(guid: String) throws -> SavedNote? {
        guard firstNewNote > 1, !guid.isEmpty else { return nil }
        // A note of this import still waiting to be written is found too (importers skip a
        // GUID they have seen, so this is rare).
        if hasPendingNote(guid: guid) { try flushRows() }
        return try updateStatements().note(guid: guid)
    }

    /// Applies `note` (read at full fidelity, its note type added with
    /// ``importNoteType(_:policy:)``) to the deck's note `saved`, which has its GUID, as
    /// Anki's importer does:
    ///
    /// - another note type than the deck's note's: skipped (``ImportSkipReason/noteType``);
    /// - the same fields and tags (tags ignoring case and order): unchanged;
    /// - otherwise, when `policy` allows (by the notes' modification times): its fields, tags,
    ///   media links and modification time replace the deck's, else skipped.
    ///
    /// The deck's cards keep their scheduling and reviews whatever happens (Anki leaves cards
    /// already there alone); cards of `note` at ordinals the deck's note lacks are added with
    /// their scheduling and reviews, unless the note type differs.
    /// - Throws: ``NoteInputError`` for an unknown note type key or too many fields;
    ///   ``DeckError`` when the store fails.
    public func update(_ saved: SavedNote, with note: ImportNote, policy: ImportUpdatePolicy) throws -> NoteUpdateOutcome {
        try flushRows()
        do {
            return try applyUpdate(saved, note, policy)
        } catch let error as DatabaseError {
            throw DeckError(path: document.url.path, reason: "can't update the imported notes: \(error.message)", kind: DeckError.kind(of: error))
        }
    }

    private func applyUpdate(_ saved: SavedNote, _ note: ImportNote, _ policy: ImportUpdatePolicy) throws -> NoteUpdateOutcome {
        guard saved.noteType == note.noteType else { return .skipped(.noteType) }
        guard let (sortField, fieldCount) = recordSortFields[note.noteType] else {
            throw NoteInputError("note \(note.guid) names a note type that was not added")
        }
        guard note.fields.count <= fieldCount else {
            throw NoteInputError("note \(note.guid) has \(note.fields.count) fields, its note type \(fieldCount)")
        }
        let values = note.fields + Array(repeating: "", count: fieldCount - note.fields.count)
        let sql = try updateStatements()
        let outcome: NoteUpdateOutcome
        if try sql.hasContents(saved.key, fields: values, tags: note.tags) {
            outcome = .unchanged
        } else if !policy.allows(existing: saved.modified, incoming: note.modified.timeIntervalSince1970) {
            outcome = .skipped(policy == .never ? .never : .older)
        } else {
            let tagKeys = try note.tags.compactMap { try tagKey($0) }
            let mediaKeys = try note.media.compactMap { try mediaKey($0) }
            try sql.rewrite(saved.key, fields: values, sortText: NoteUpdateSQL.sortText(values, sortField: sortField),
                            modified: note.modified.timeIntervalSince1970,
                            tagKeys: tagKeys, mediaKeys: mediaKeys)
            outcome = .updated
        }
        let present = try sql.cardOrdinals(of: saved.key)
        for card in note.cards where !present.contains(card.ordinal) { try insertRecordCard(card, note: saved.key) }
        return outcome
    }

    /// Applies a row of a text file to the deck's note `saved`, which has its GUID (Anki's
    /// text import with "update" for duplicates): `fields` replaces the note's values where it
    /// holds one (nil keeps the deck's value, as for a column the file does not have), `tags`
    /// replaces its tags when given. A `noteTypeName` other than the note's type's name skips
    /// it (``ImportSkipReason/noteType``); nil accepts the note's type. The same fields and
    /// tags leave it unchanged; otherwise `policy` decides by comparing `modified` (the file's
    /// time: rows carry none) with the note's. New cards are added for ordinals the updated
    /// fields now generate; existing cards keep their scheduling.
    /// - Throws: ``DeckError`` when the store fails.
    public func update(_ saved: SavedNote, fields incoming: [String?], noteTypeName: String?, tags: [String]?,
                       modified: Date, policy: ImportUpdatePolicy) throws -> NoteUpdateOutcome {
        try flushRows()
        do {
            return try applyUpdate(saved, incoming, noteTypeName, tags, modified, policy)
        } catch let error as DatabaseError {
            throw DeckError(path: document.url.path, reason: "can't update the imported notes: \(error.message)", kind: DeckError.kind(of: error))
        }
    }

    private func applyUpdate(_ saved: SavedNote, _ incoming: [String?], _ noteTypeName: String?, _ tags: [String]?,
                             _ modified: Date, _ policy: ImportUpdatePolicy) throws -> NoteUpdateOutcome {
        let type = try document.mainContext.model(for: PersistentIdentifier(
            storeIdentifier: "Deck", entityName: DeckSchemaV2.NoteType.entityName, primaryKey: saved.noteType)) as? DeckSchemaV2.NoteType
        guard let type else { return .skipped(.noteType) }
        if let noteTypeName, noteTypeName.lowercased() != type.name.lowercased() { return .skipped(.noteType) }
        let sql = try updateStatements()
        var values = try sql.fieldValues(of: saved.key)
        for (index, value) in incoming.enumerated() where values.indices.contains(index) {
            if let value { values[index] = value }
        }
        let tagNames = try tags ?? sql.tagNames(of: saved.key)
        if try sql.hasContents(saved.key, fields: values, tags: tagNames) { return .unchanged }
        guard policy.allows(existing: saved.modified, incoming: modified.timeIntervalSince1970) else {
            return .skipped(policy == .never ? .never : .older)
        }
        let tagKeys = try tags.map { try $0.compactMap { try tagKey($0) } }
        try sql.rewrite(saved.key, fields: values, sortText: NoteUpdateSQL.sortText(values, sortField: type.sortField),
                        modified: modified.timeIntervalSince1970, tagKeys: tagKeys, mediaKeys: nil)
        let present = try sql.cardOrdinals(of: saved.key)
        let added = document.layout(of: type).cardOrdinals(fieldValues: values, tags: tagNames, existing: present)
        if !added.isEmpty {
            let deck = try sql.deck(of: saved.key) ?? deckKey(nil)
            for ordinal in added { try insertNewCard(ordinal: ordinal, note: saved.key, deck: deck, at: modified) }
        }
        return .updated
    }

    // MARK: Note types

    /// Adds or matches an incoming note type by Anki's rules (its importer without "merge note
    /// types", which is Anki's default) and returns its key in the deck and what was done:
    ///
    /// - No type of the deck has its Anki id (nor is a copy made from it): added.
    /// - The deck's type with that id has the same schema (as many fields and templates, each
    ///   matching by Anki's id or else by name, in the same order): that type is used; when
    ///   anything else differs (names, formats, CSS, options) and `policy` allows by the types'
    ///   modification times, the deck's type takes the incoming values in place.
    /// - Otherwise a copy made by an earlier import with the same schema is used (updated the
    ///   same way), else the incoming type is added beside the deck's, under a name made
    ///   unique, recording the id it came from in its options (`originalId`, as Anki does).
    ///   Notes of it whose GUID is in the deck are then skipped (their type differs).
    ///
    /// A type without an Anki id is added (``addNoteType(_:)``).
    /// - Throws: ``DeckError`` `corrupt` when a type's stored options (or the record's) are not
    ///   a JSON object; the store's error.
    public func importNoteType(_ record: ImportNoteType, policy: ImportUpdatePolicy) throws -> (key: Int64, decision: NoteTypeDecision) {
        try flushRows()
        guard let ankiID = record.ankiID else {
            let key = try addNoteType(record)
            return (key, NoteTypeDecision(name: record.name, action: .added, deckName: record.name))
        }
        let context = document.mainContext
        let all = try context.fetch(FetchDescriptor<DeckSchemaV2.NoteType>()).sorted { Self.key(of: $0) < Self.key(of: $1) }
        let sameID = all.filter { $0.ankiID == ankiID }
        let copies = try sameID.dropFirst() + all.filter { try $0.ankiID != ankiID && originalID(of: $0) == ankiID }
        let target: DeckSchemaV2.NoteType?
        if let first = sameID.first, Self.equalSchema(first, record) {
            target = first
        } else {
            target = copies.first { Self.equalSchema($0, record) }
        }
        if let target {
            let key = try savedKey(of: target)
            // What the deck's type would become: a copy keeps its own name, no Anki id and its origin.
            var incoming = Self.comparable(record)
            if target.ankiID != ankiID {
                incoming.ankiID = nil
                incoming.options = try options(record.options, of: record, originalID: ankiID)
            }
            if all.contains(where: { $0 !== target && $0.name == record.name }) { incoming.name = target.name }
            var action = NoteTypeDecision.Action.kept
            if Self.record(of: target) != incoming,
               policy.allows(existing: target.modified.timeIntervalSince1970, incoming: record.modified.timeIntervalSince1970) {
                let resort = target.sortField != record.sortField
                incoming.modified = record.modified
                incoming.templates = zip(incoming.templates, record.templates).map { spec, original in
                    var spec = spec
                    spec.modified = original.modified
                    return spec
                }
                try apply(incoming, to: target)
                try document.saveIndexingNotes()
                document.noteLayouts.removeValue(forKey: key)
                if resort { try updateStatements().resort(noteType: key, sortField: record.sortField) }
                action = .updated
            }
            recordSortFields[key] = (target.sortField, target.fields.count)
            return (key, NoteTypeDecision(name: record.name, action: action, deckName: target.name))
        }
        guard !sameID.isEmpty else {
            let key = try addNoteType(record)
            return (key, NoteTypeDecision(name: record.name, action: .added, deckName: record.name))
        }
        var copy = record
        copy.ankiID = nil
        copy.options = try options(record.options, of: record, originalID: ankiID)
        let names = Set(all.map(\.name))
        var number = 2
        while names.contains(copy.name) {
            copy.name = "\(record.name) (\(number))"
            number += 1
        }
        let key = try addNoteType(copy)
        return (key, NoteTypeDecision(name: record.name, action: .copied, deckName: copy.name))
    }

    static func key(of model: some PersistentModel) -> Int64 {
        model.persistentModelID.isTemporary ? Int64.max : model.persistentModelID.primaryKey
    }

    /// Anki's `equal_schema`: as many fields and templates, pairwise matching by Anki's id when
    /// both have one, else by name; and the same kind (standard or cloze).
    static func equalSchema(_ type: DeckSchemaV2.NoteType, _ record: ImportNoteType) -> Bool {
        let fields = type.fields.sorted { $0.ordinal < $1.ordinal }
        let templates = type.templates.sorted { $0.ordinal < $1.ordinal }
        func match(_ ids: (Int64?, Int64?), _ names: (String, String)) -> Bool {
            if let a = ids.0, let b = ids.1 { return a == b }
            return names.0 == names.1
        }
        return type.kind == record.kind && fields.count == record.fields.count && templates.count == record.templates.count
            && zip(fields, record.fields).allSatisfy { match(($0.ankiID, $1.ankiID), ($0.name, $1.name)) }
            && zip(templates, record.templates).allSatisfy { match(($0.ankiID, $1.ankiID), ($0.name, $1.name)) }
    }

    /// The Anki id a copy made by an import came from (`originalId` of its options).
    /// - Throws: ``DeckError`` `corrupt` when the type's stored options are not a JSON object.
    func originalID(of type: DeckSchemaV2.NoteType) throws -> Int64? {
        guard type.ankiOptions.contains("originalId") else { return nil }
        guard let object = Self.jsonObject(type.ankiOptions) else {
            throw DeckError(path: document.storeURL.path, reason: "note type \(Self.key(of: type)) (\(type.name)): ankiOptions is not a JSON object",
                            kind: .corrupt)
        }
        return (object["originalId"] as? NSNumber)?.int64Value
    }

    /// `options` (a JSON object, or empty) with `originalId` set.
    /// - Throws: ``DeckError`` `corrupt` when the incoming type's options are not a JSON object.
    func options(_ options: String, of record: ImportNoteType, originalID: Int64) throws -> String {
        guard var object = options.isEmpty ? [:] : Self.jsonObject(options) else {
            throw DeckError(path: document.storeURL.path, reason: "note type \(record.name): its options are not a JSON object", kind: .corrupt)
        }
        object["originalId"] = NSNumber(value: originalID)
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// `text` parsed as a JSON object, or nil when it is not one.
    static func jsonObject(_ text: String) -> [String: Any]? {
        do {
            return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        } catch {
            return nil
        }
    }

    /// A record's values without its modification times (what an update compares).
    static func comparable(_ record: ImportNoteType) -> ImportNoteType {
        var copy = record
        copy.modified = Date(timeIntervalSince1970: 0)
        for index in copy.templates.indices { copy.templates[index].modified = Date(timeIntervalSince1970: 0) }
        return copy
    }

    /// A saved type as a record, without modification times.
    static func record(of type: DeckSchemaV2.NoteType) -> ImportNoteType {
        let fields = type.fields.sorted { $0.ordinal < $1.ordinal }.map { field in
            var spec = ImportNoteType.Field(name: field.name)
            spec.font = field.font
            spec.fontSize = field.fontSize
            spec.rightToLeft = field.rightToLeft
            spec.sticky = field.sticky
            spec.plainText = field.plainText
            spec.collapsed = field.collapsed
            spec.excludeFromSearch = field.excludeFromSearch
            spec.description = field.fieldDescription
            spec.ankiID = field.ankiID
            spec.options = field.ankiOptions
            return spec
        }
        let templates = type.templates.sorted { $0.ordinal < $1.ordinal }.map { template in
            var spec = ImportNoteType.Template(name: template.name, questionFormat: template.questionFormat, answerFormat: template.answerFormat)
            spec.browserQuestionFormat = template.browserQuestionFormat
            spec.browserAnswerFormat = template.browserAnswerFormat
            spec.browserFont = template.browserFont
            spec.browserFontSize = template.browserFontSize
            spec.targetDeck = template.targetDeck.map { $0.persistentModelID.primaryKey }
            spec.ankiID = template.ankiID
            spec.options = template.ankiOptions
            return spec
        }
        var record = ImportNoteType(name: type.name, kind: type.kind, fields: fields, templates: templates)
        record.stockKind = type.stockKind
        record.css = type.css
        record.sortField = type.sortField
        record.latexPre = type.latexPre
        record.latexPost = type.latexPost
        record.latexSVG = type.latexSVG
        record.ankiID = type.ankiID
        record.options = type.ankiOptions
        return record
    }

    /// The deck's type takes the record's values, field by field and template by template (the
    /// schemas are equal, so ordinals line up).
    private func apply(_ record: ImportNoteType, to type: DeckSchemaV2.NoteType) throws {
        Self.assign(record, to: type)
        for (field, spec) in zip(type.fields.sorted { $0.ordinal < $1.ordinal }, record.fields) { Self.assign(spec, to: field) }
        for (template, spec) in zip(type.templates.sorted { $0.ordinal < $1.ordinal }, record.templates) { try assign(spec, to: template) }
    }
}
