import CardTemplates
import Foundation
import Persistence
import SQLite

/// One edit applied to many notes: fields set (by ordinal or by name), tags added and
/// removed, the cards moved to a deck. Empty parts change nothing.
public struct NoteEdit: Sendable, Equatable {
    /// Values by field ordinal (0 is `front`, 1 is `back`).
    public var fieldsByOrdinal: [Int: String] = [:]
    /// Values by field name (ignoring case) in each note's type.
    public var fieldsByName: [(name: String, value: String)] = []
    public var addTags: [String] = []
    public var removeTags: [String] = []
    /// The `::` path every card of the note moves to (created when missing).
    public var deck: String?

    public init(fieldsByOrdinal: [Int: String] = [:], fieldsByName: [(name: String, value: String)] = [],
                addTags: [String] = [], removeTags: [String] = [], deck: String? = nil) {
        self.fieldsByOrdinal = fieldsByOrdinal
        self.fieldsByName = fieldsByName
        self.addTags = addTags
        self.removeTags = removeTags
        self.deck = deck
    }

    public var isEmpty: Bool { fieldsByOrdinal.isEmpty && fieldsByName.isEmpty && addTags.isEmpty && removeTags.isEmpty && deck == nil }

    public static func == (a: NoteEdit, b: NoteEdit) -> Bool {
        a.fieldsByOrdinal == b.fieldsByOrdinal && a.fieldsByName.map(\.name) == b.fieldsByName.map(\.name)
            && a.fieldsByName.map(\.value) == b.fieldsByName.map(\.value) && a.addTags == b.addTags
            && a.removeTags == b.removeTags && a.deck == b.deck
    }
}

/// What an edit changes (or would change) in one note.
public struct NoteChange: Sendable, Hashable {
    public struct FieldChange: Sendable, Hashable {
        public var name: String
        public var old: String
        public var new: String
    }

    /// The note's key.
    public var note: Int64
    /// The id of its first card (what a listing of notes shows).
    public var card: Int64
    public var fields: [FieldChange]
    public var addedTags: [String]
    public var removedTags: [String]
    /// The decks its cards leave (sorted) and the one they go to, when they move.
    public var fromDecks: [String]
    public var toDeck: String?

    public var isEmpty: Bool { fields.isEmpty && addedTags.isEmpty && removedTags.isEmpty && toDeck == nil }
}


/// An edit worked out for many notes by ``DeckDocument/planEdit(ids:_:)``: what changes in each
/// (``changes``) and the values to write, which ``DeckDocument/applyEdit(_:)`` writes.
public struct NoteEditPlan: Sendable {
    /// The notes that change, with what changes, in key order; notes the edit leaves as they
    /// are are not in it.
    public let changes: [NoteChange]
    let targetDeck: String?
    let notes: [Planned]

    /// One note's values after the edit.
    struct Planned: Sendable {
        let key: Int64
        /// The note's fields after the edit (as stored when they don't change).
        let fields: [String]
        let fieldsChange: Bool
        let sortText: String
        /// The tag names after the edit, when they change.
        let tags: [String]?
        let currentTags: [String]
        /// Whether its cards move to ``NoteEditPlan/targetDeck``.
        let moves: Bool
        /// Whether the new values make cards the note lacks (applied through the models, which
        /// make cards; the others by SQL).
        let makesCards: Bool
    }
}

extension DeckDocument {
    /// Works out what `edit` changes in the notes with these keys (read from the saved store:
    /// save unsaved changes first), changing nothing; ``applyEdit(_:)`` writes it.
    ///
    /// Every note is checked: a field name a note's type lacks, too many values, a cloze note
    /// left without a cloze deletion throws.
    ///
    /// Cost: three queries for all the notes (their rows, tags and cards), no models but the
    /// note types'.
    /// - Throws: ``NoteInputError``; ``DeckOrganizeError`` `notFound` for a key with no note
    ///   (`invalid` for an empty deck level); ``DeckError`` `corrupt` for a note without a type
    ///   or whose fields are not a JSON array of strings; the store's error.
    public func planEdit(ids: [Int64], _ edit: NoteEdit) throws -> NoteEditPlan {
        try requireOpen()
        var keys: [Int64] = []
        var seen: Set<Int64> = []
        for id in ids.sorted() where seen.insert(id).inserted { keys.append(id) }
        let targetDeck = try edit.deck.map { try Self.normalizedDeckPath($0) }
        struct Stored {
            var type: Int64?
            var fields: String?
            var tags: [String] = []
            var cards: [(key: Int64, ordinal: Int, deck: String?)] = []
        }
        var stored: [Int64: Stored] = [:]
        stored.reserveCapacity(keys.count)
        let list = SQLValue.text("[" + keys.map(String.init).joined(separator: ",") + "]")
        try container.withDatabase(for: Note.self) { db in
            let notes = try db.prepare(#"SELECT n."pk", n."noteType", n."fields" FROM json_each(?) k JOIN "Note" n ON n."pk" = k."value""#)
            try notes.bind([list])
            while try notes.step() {
                stored[notes.int64(at: 0)] = Stored(type: notes.isNull(at: 1) ? nil : notes.int64(at: 1),
                                                    fields: notes.isText(at: 2) ? notes.string(at: 2) : nil)
            }
            // In the order the models load a note's tags (by tag key).
            let tags = try db.prepare("""
                SELECT j."source", t."name" FROM json_each(?) k JOIN "Note_tags" j ON j."source" = k."value" \
                JOIN "Tag" t ON t."pk" = j."target" ORDER BY j."source", j."target"
                """)
            try tags.bind([list])
            while try tags.step() { stored[tags.int64(at: 0)]?.tags.append(tags.string(at: 1)) }
            let cards = try db.prepare("""
                SELECT c."note", c."pk", c."ordinal", d."name" FROM json_each(?) k JOIN "Card" c ON c."note" = k."value" \
                LEFT JOIN "Deck" d ON d."pk" = c."deck"
                """)
            try cards.bind([list])
            while try cards.step() {
                stored[cards.int64(at: 0)]?.cards.append((cards.int64(at: 1), Int(truncatingIfNeeded: cards.int64(at: 2)),
                                                          cards.isText(at: 3) ? cards.string(at: 3) : nil))
            }
        }
        if let missing = keys.first(where: { stored[$0] == nil }) { throw DeckOrganizeError(.notFound, "no note with key \(missing)") }

        // Existing tags by folded name, fetched once.
        var tagsByName: [String: String] = [:]
        for tag in try allTags() where !tag.isDeleted { tagsByName[tag.name.lowercased()] = tag.name }
        let removing = Set(edit.removeTags.map { $0.lowercased() })
        let adding = edit.addTags.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        var types: [Int64: (NoteType, NoteLayout)] = [:]
        var changes: [NoteChange] = []
        var planned: [NoteEditPlan.Planned] = []
        for key in keys {
            guard let note = stored[key] else { continue }
            guard let typeKey = note.type, let known = try types[typeKey] ?? noteTypeAndLayout(typeKey) else {
                throw DeckError(path: storeURL.path, reason: "note \(key) has no note type", kind: .corrupt)
            }
            types[typeKey] = known
            let (type, layout) = known
            guard let json = note.fields, let current = JSONStringArray.parse(json) else {
                throw DeckError(path: storeURL.path, reason: "note \(key): fields is not a JSON array of strings", kind: .corrupt)
            }
            var values = try Self.fieldValues(current, for: layout)
            for (ordinal, value) in edit.fieldsByOrdinal.sorted(by: { $0.key < $1.key }) {
                guard values.indices.contains(ordinal) else {
                    throw NoteInputError("note \(key) (\(type.name)) has no field \(ordinal + 1); its fields are \(layout.fieldNames.joined(separator: ", "))")
                }
                values[ordinal] = value
            }
            for (name, value) in edit.fieldsByName {
                guard let index = layout.fieldNames.firstIndex(where: { $0.lowercased() == name.lowercased() }) else {
                    throw NoteInputError("note \(key): \(type.name) has no field \"\(name)\"; its fields are \(layout.fieldNames.joined(separator: ", "))")
                }
                values[index] = value
            }
            if values != current, type.kind == .cloze, layout.nonEmptyOrdinals(fieldValues: values).isEmpty {
                throw NoteInputError("note \(key): a \(type.name) note needs a cloze deletion such as {{c1::text}} in a field")
            }
            let fieldChanges = values.indices.compactMap { index -> NoteChange.FieldChange? in
                let old = current.indices.contains(index) ? current[index] : ""
                return old == values[index] ? nil : .init(name: layout.fieldNames[index], old: old, new: values[index])
            }
            let currentTags = note.tags
            let folded = Set(currentTags.map { $0.lowercased() })
            var tags = currentTags.filter { !removing.contains($0.lowercased()) }
            let removed = currentTags.filter { removing.contains($0.lowercased()) }
            var added: [String] = []
            for name in adding {
                guard !tags.contains(where: { $0.lowercased() == name.lowercased() }) else { continue }
                let spelled = tagsByName[name.lowercased()] ?? name
                tags.append(spelled)
                if !folded.contains(name.lowercased()) { added.append(spelled) }
            }
            let decks = Set(note.cards.compactMap(\.deck))
            let moves = targetDeck.map { target in note.cards.contains { $0.deck?.lowercased() != target.lowercased() } } ?? false
            let change = NoteChange(note: key, card: note.cards.map(\.key).min() ?? 0, fields: fieldChanges,
                                    addedTags: added, removedTags: removed,
                                    fromDecks: moves ? decks.sorted() : [], toDeck: moves ? targetDeck : nil)
            guard !change.isEmpty else { continue }
            let fieldsChange = !fieldChanges.isEmpty && values != current
            let tagsChange = !(added.isEmpty && removed.isEmpty) && Set(tags) != Set(currentTags)
            let fields = fieldsChange ? values : current
            // As setFields and then setTags would make them: each adds the cards its values generate.
            let existing = Set(note.cards.map(\.ordinal))
            let makesCards = (fieldsChange && !layout.cardOrdinals(fieldValues: fields, tags: currentTags, existing: existing).isEmpty)
                || (tagsChange && !layout.cardOrdinals(fieldValues: fields, tags: tags, existing: existing).isEmpty)
            changes.append(change)
            planned.append(.init(key: key, fields: fields, fieldsChange: fieldsChange,
                                 sortText: FieldText.plainText(fromHTML: fields.indices.contains(type.sortField) ? fields[type.sortField] : ""),
                                 tags: tagsChange ? tags : nil, currentTags: currentTags, moves: moves, makesCards: makesCards))
        }
        return NoteEditPlan(changes: changes, targetDeck: targetDeck, notes: planned)
    }

    /// The note type with key `key` and its layout, or nil when there is none.
    private func noteTypeAndLayout(_ key: Int64) throws -> (NoteType, NoteLayout)? {
        let identifier = PersistentIdentifier(storeIdentifier: "Deck", entityName: NoteType.entityName, primaryKey: key)
        do {
            guard let type = try mainContext.model(for: identifier) as? NoteType else { return nil }
            return (type, layout(of: type))
        } catch PersistenceError.modelNotFound {
            return nil
        }
    }

    /// Writes what ``planEdit(ids:_:)`` worked out, at once and in one transaction (with what
    /// else is unsaved), then rewrites the manifest as ``save()`` does: the fields, sort text
    /// and modification time of each note that changes, its tag links (tags created when
    /// missing, reused ignoring case), its cards moved to the deck (created when missing, each
    /// moved card's modification time set), and its row of the search index. Notes whose new
    /// values make cards they lack are changed through their models, which make the cards.
    ///
    /// With undo recording on (`mainContext.isUndoEnabled`) every note is changed through its
    /// model instead, so the edit can be undone, and nothing is written until the next ``save()``.
    ///
    /// Plan and apply on the same document with nothing written in between (the write lock a
    /// writable document holds keeps other processes out).
    ///
    /// Cost: a few statements per note, no model per note.
    /// - Throws: ``DeckError`` `readOnly`; ``NoteInputError`` for an empty deck level; the
    ///   store's error (nothing is written then).
    public func applyEdit(_ plan: NoteEditPlan) throws {
        try requireWritable()
        guard !plan.notes.isEmpty else { return }
        let deck = try plan.targetDeck.map { try existingDeck(named: $0) ?? self.deck(named: $0) }
        var names: [String] = []
        for note in plan.notes { names += note.tags ?? [] }
        var tagModels: [String: DeckSchemaV2.Tag] = [:]
        for tag in try self.tagModels(named: names) { tagModels[tag.name.lowercased()] = tag }
        if mainContext.isUndoEnabled {
            for note in plan.notes { try applyThroughModel(note, deck: deck, tags: tagModels) }
            return
        }
        try container.withDatabase(for: Note.self) { db in try db.execute("SAVEPOINT deck_bulk_edit") }
        do {
            for note in plan.notes where note.makesCards { try applyThroughModel(note, deck: deck, tags: tagModels) }
            if mainContext.hasChanges { try saveIndexingNotes() }
            let deckKey = deck?.persistentModelID.primaryKey
            let now = Date().timeIntervalSince1970
            let encoder = JSONEncoder()
            try container.withDatabase(for: Note.self) { db in
                let setFields = try db.prepare(#"UPDATE "Note" SET "fields" = ?, "sortText" = ?, "modified" = ? WHERE "pk" = ?"#)
                let touch = try db.prepare(#"UPDATE "Note" SET "modified" = ? WHERE "pk" = ?"#)
                let unlink = try db.prepare(#"DELETE FROM "Note_tags" WHERE "source" = ?"#)
                let link = try db.prepare(#"INSERT OR IGNORE INTO "Note_tags" ("source", "target") VALUES (?, ?)"#)
                let move = try db.prepare(#"UPDATE "Card" SET "deck" = ?1, "modified" = ?2 WHERE "note" = ?3 AND "deck" IS NOT ?1"#)
                let unindex = try db.prepare("DELETE FROM \"\(DeckStoreV2.searchTable)\" WHERE rowid = ?")
                let index = try db.prepare("INSERT INTO \"\(DeckStoreV2.searchTable)\" (rowid, fields, tags) VALUES (?, ?, ?)")
                for note in plan.notes where !note.makesCards {
                    let key = SQLValue.integer(note.key)
                    if note.fieldsChange {
                        let json = String(decoding: try encoder.encode(note.fields), as: UTF8.self)
                        try setFields.execute([.text(json), .text(note.sortText), .real(now), key])
                    } else if note.tags != nil {
                        try touch.execute([.real(now), key])
                    }
                    var tagNames = note.currentTags
                    if let tags = note.tags {
                        try unlink.execute([key])
                        tagNames = []
                        for name in tags {
                            guard let tag = tagModels[name.lowercased()] else { continue }
                            try link.execute([key, .integer(tag.persistentModelID.primaryKey)])
                            tagNames.append(tag.name)
                        }
                    }
                    if note.moves, let deckKey { try move.execute([.integer(deckKey), .real(now), key]) }
                    if note.fieldsChange || note.tags != nil {
                        try unindex.execute([key])
                        try index.execute([key, .text(DeckStoreV2.searchText(ofFields: note.fields)), .text(tagNames.joined(separator: " "))])
                    }
                }
                try db.execute("RELEASE deck_bulk_edit")
            }
        } catch {
            try? container.withDatabase(for: Note.self) { db in
                try db.execute("ROLLBACK TO deck_bulk_edit")
                try db.execute("RELEASE deck_bulk_edit")
            }
            throw error
        }
        // Models of these notes and cards read before are read again.
        try mainContext.refreshRegisteredModels(of: [Note.entityName, V2.Card.entityName])
        try save()
    }

    /// Applies one planned note through its model, as setFields and setTags do (making the
    /// cards the new values generate).
    private func applyThroughModel(_ planned: NoteEditPlan.Planned, deck: DeckSchemaV2.Deck?, tags: [String: DeckSchemaV2.Tag]) throws {
        guard let note = try note(id: planned.key) else { throw DeckOrganizeError(.notFound, "no note with key \(planned.key)") }
        if planned.fieldsChange { try setFields(planned.fields, of: note) }
        if let names = planned.tags {
            let models = names.compactMap { tags[$0.lowercased()] }
            if Set(models.map(\.name)) != Set(note.tags.map(\.name)) {
                note.tags = models
                note.modified = Date()
                try regenerateCards(of: note)
            }
        }
        if let deck, planned.moves {
            let now = Date()
            for card in note.cards where card.deck !== deck {
                card.deck = deck
                card.modified = now
            }
        }
    }

    /// ``planEdit(ids:_:)`` and, unless `dryRun`, ``applyEdit(_:)``: returns the notes that
    /// change (or would), with what changes, in key order.
    /// - Throws: as those two.
    @discardableResult
    public func editNotes(ids: [Int64], _ edit: NoteEdit, dryRun: Bool = false) throws -> [NoteChange] {
        if !dryRun { try requireWritable() }
        let plan = try planEdit(ids: ids, edit)
        if !dryRun { try applyEdit(plan) }
        return plan.changes
    }
}
