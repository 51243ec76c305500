import CardTemplates
import Foundation
import Persistence
import SQLite

/// A note of a deck (format version 2): field values of its note type, tags, and its cards.
public typealias Note = DeckSchemaV2.Note
/// A note type of a deck: fields, card templates and CSS.
public typealias NoteType = DeckSchemaV2.NoteType

/// A note that can't be added or changed as asked: a field the note type doesn't have, too
/// many values, a cloze note without a cloze deletion. The message says which.
public struct NoteInputError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension CardKind {
    /// The stock note type a kind of version 1 became, and that `deck add --kind` names.
    public var stockKind: DeckSchemaV2.StockKind {
        switch self {
        case .basic: .basic
        case .reversible: .basicAndReversed
        case .cloze: .cloze
        }
    }

    /// The kind a note type is listed as: `cloze` for cloze types (image occlusion too),
    /// `reversible` for types started as Basic (and reversed card), `basic` for the rest.
    public init(noteType: NoteType) {
        if noteType.kind == .cloze {
            self = .cloze
        } else if noteType.stockKind == .basicAndReversed {
            self = .reversible
        } else {
            self = .basic
        }
    }
}

extension DeckDocument {
    typealias V2 = DeckSchemaV2

    func requireWritable() throws {
        try requireOpen()
        guard mode == .readWrite else { throw DeckError(path: url.path, reason: "deck is open read-only", kind: .readOnly) }
    }

    // MARK: Note types and decks

    /// Every note type of the deck, by name.
    /// - Throws: the store's error.
    public func noteTypes() throws -> [NoteType] {
        try requireOpen()
        return try mainContext.fetch(FetchDescriptor<NoteType>(sortBy: [SortDescriptor(\.name)]))
    }

    /// The note type named `name` (ignoring case), the first one made when several share it.
    /// - Throws: the store's error.
    public func noteType(named name: String) throws -> NoteType? {
        try requireOpen()
        let all = try mainContext.fetch(FetchDescriptor<NoteType>())
        let wanted = name.lowercased()
        return all.filter { $0.name.lowercased() == wanted }.min { $0.persistentModelID.primaryKey < $1.persistentModelID.primaryKey }
    }

    /// The deck's stock note type for a kind (Basic, Basic (and reversed card), Cloze): the
    /// first type started as it, created with Anki's templates when the deck has none.
    /// - Throws: ``DeckError`` `readOnly` when it must be created in a read-only deck; the store's error.
    public func stockNoteType(_ kind: CardKind) throws -> NoteType {
        try requireOpen()
        let stock = kind.stockKind
        let all = try mainContext.fetch(FetchDescriptor<NoteType>())
        if let found = all.filter({ $0.stockKind == stock }).min(by: { $0.persistentModelID.primaryKey < $1.persistentModelID.primaryKey }) {
            return found
        }
        try requireWritable()
        let made = StockNoteTypes.make(kind, in: mainContext, modified: Date())
        made.ankiID = try newAnkiID()
        return made
    }

    /// The deck at a `::` path, created with its missing ancestors (using the deck `Default`'s
    /// preset) when it doesn't exist.
    /// - Throws: ``NoteInputError`` for a path with an empty level; ``DeckError`` `readOnly`; the store's error.
    public func deck(named path: String) throws -> DeckSchemaV2.Deck {
        try requireOpen()
        let levels = path.components(separatedBy: "::").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !levels.contains(where: \.isEmpty) else { throw NoteInputError("deck name \"\(path)\" has an empty level") }
        let name = levels.joined(separator: "::")
        var descriptor = FetchDescriptor<DeckSchemaV2.Deck>(predicate: #Predicate { $0.name == name })
        descriptor.fetchLimit = 1
        if let existing = try mainContext.fetch(descriptor).first { return existing }
        try requireWritable()
        var parentPreset: DeckSchemaV2.Preset? = nil
        if levels.count > 1 {
            parentPreset = try deck(named: levels.dropLast().joined(separator: "::")).preset
        }
        let made = DeckSchemaV2.Deck(name: name)
        made.modified = Date()
        if name != DeckStoreV2.defaultDeckName { made.ankiID = try newAnkiID() }
        made.preset = try parentPreset ?? defaultPreset()
        mainContext.insert(made)
        return made
    }

    /// The preset new decks use: the deck `Default`'s, else the first preset, else a new `Default`.
    func defaultPreset() throws -> DeckSchemaV2.Preset {
        let name = DeckStoreV2.defaultDeckName
        var descriptor = FetchDescriptor<DeckSchemaV2.Deck>(predicate: #Predicate { $0.name == name })
        descriptor.fetchLimit = 1
        if let preset = try mainContext.fetch(descriptor).first?.preset { return preset }
        if let first = try mainContext.fetch(FetchDescriptor<DeckSchemaV2.Preset>()).min(by: { $0.persistentModelID.primaryKey < $1.persistentModelID.primaryKey }) {
            return first
        }
        let preset = DeckSchemaV2.Preset(name: "Default")
        mainContext.insert(preset)
        return preset
    }

    /// The card layout of a note type (its fields, templates and CSS as the template language
    /// sees them), built once per document.
    public func layout(of type: NoteType) -> NoteLayout {
        if !type.persistentModelID.isTemporary, let known = noteLayouts[type.persistentModelID.primaryKey] { return known }
        let fields = type.fields.sorted { $0.ordinal < $1.ordinal }.map(\.name)
        let templates = type.templates.sorted { $0.ordinal < $1.ordinal }.map {
            CardLayout(name: $0.name, questionFormat: $0.questionFormat, answerFormat: $0.answerFormat,
                       browserQuestionFormat: $0.browserQuestionFormat, browserAnswerFormat: $0.browserAnswerFormat)
        }
        let layout = NoteLayout(name: type.name, kind: type.kind == .cloze ? .cloze : .standard, fieldNames: fields,
                                templates: templates, css: type.css)
        // Temporary identifiers change at the save: only saved types are remembered.
        if !type.persistentModelID.isTemporary { noteLayouts[type.persistentModelID.primaryKey] = layout }
        return layout
    }

    /// The position the next new card gets (new cards are studied in position order).
    func takeNewPosition() throws -> Int64 {
        if nextNewPosition == nil {
            let saved = try container.withDatabase(for: V2.Card.self) { db in
                try db.scalar("SELECT max(\"due\") FROM \"Card\" WHERE \"type\" = 0", as: Int64.self) ?? 0
            }
            // A position at the end of the range (a store written by someone else) starts over at 1
            // rather than overflowing: positions only order new cards.
            nextNewPosition = saved < Int64.max - 1_000_000 ? max(saved, 0) + 1 : 1
        }
        let position = nextNewPosition ?? 1
        nextNewPosition = position < Int64.max ? position + 1 : 1
        return position
    }

    // MARK: Adding and changing notes

    /// Adds a note of `type` with `fields` (in the type's field order; missing trailing values
    /// are empty) and the cards it generates, as Anki does: a standard type's card for each
    /// template whose question renders non-empty, a cloze type's card for each cloze number.
    /// Cards go to `deck` (a `::` path, created when missing), else the template's target deck,
    /// else `Default`. Tags are reused by name ignoring case, or created.
    ///
    /// Written by the next ``save()``; the cards' ids become permanent then.
    /// - Throws: ``NoteInputError`` for more values than fields, an empty first field, or a cloze
    ///   note without a cloze deletion; ``DeckError`` `readOnly`; the store's error.
    @discardableResult
    public func addNote(type: NoteType, fields: [String], tags: [String] = [], deck deckPath: String? = nil,
                        guid: String? = nil, created: Date = Date()) throws -> Note {
        try requireWritable()
        let layout = layout(of: type)
        let values = try Self.fieldValues(fields, for: layout)
        if type.kind == .cloze, layout.nonEmptyOrdinals(fieldValues: values).isEmpty {
            throw NoteInputError("a \(type.name) note needs a cloze deletion such as {{c1::text}} in a field")
        }
        let note = Note(guid: guid ?? AnkiGUID.random(), fields: values, created: created)
        note.ankiID = try newAnkiID()
        note.sortText = FieldText.plainText(fromHTML: values.indices.contains(type.sortField) ? values[type.sortField] : "")
        mainContext.insert(note)
        note.noteType = type
        let tagModels = try tagModels(named: tags)
        note.tags = tagModels
        let target = try deckPath.map { try deck(named: $0) }
        try addCards(to: note, layout: layout, type: type, ordinals: layout.cardOrdinals(fieldValues: values, tags: tagModels.map(\.name)), deck: target)
        return note
    }

    /// Adds a note of the stock type of `kind` (Basic, Basic (and reversed card), Cloze) with
    /// `front` and `back` as its two fields (for Cloze, Text and Back Extra).
    /// - Throws: as ``addNote(type:fields:tags:deck:guid:created:)``.
    @discardableResult
    public func addCard(kind: CardKind, front: String, back: String, tags: [String]) throws -> Note {
        try addNote(type: try stockNoteType(kind), fields: [front, back], tags: tags)
    }

    /// Values for every field of `layout`: the given ones, then empty ones.
    static func fieldValues(_ fields: [String], for layout: NoteLayout) throws -> [String] {
        guard fields.count <= layout.fieldNames.count else {
            throw NoteInputError("\(layout.name) has \(layout.fieldNames.count) field\(layout.fieldNames.count == 1 ? "" : "s") "
                                 + "(\(layout.fieldNames.joined(separator: ", "))), not \(fields.count)")
        }
        guard fields.count < layout.fieldNames.count else { return fields }
        return fields + Array(repeating: "", count: layout.fieldNames.count - fields.count)
    }

    /// Field values by name for `type` (names ignore case); fields not named are empty.
    /// - Throws: ``NoteInputError`` naming an unknown field.
    public func fieldValues(_ named: [(name: String, value: String)], for type: NoteType) throws -> [String] {
        let names = layout(of: type).fieldNames
        var values = Array(repeating: "", count: names.count)
        for (name, value) in named {
            guard let index = names.firstIndex(where: { $0.lowercased() == name.lowercased() }) else {
                throw NoteInputError("\(type.name) has no field \"\(name)\"; its fields are \(names.joined(separator: ", "))")
            }
            values[index] = value
        }
        return values
    }

    private func addCards(to note: Note, layout: NoteLayout, type: NoteType, ordinals: [Int], deck: DeckSchemaV2.Deck?) throws {
        guard !ordinals.isEmpty else { return }
        let position = try takeNewPosition()
        let templates = type.templates
        var fallback: DeckSchemaV2.Deck?
        for ordinal in ordinals {
            let card = V2.Card(ordinal: ordinal, created: note.modified)
            card.due = position
            card.ankiID = try newAnkiID()
            mainContext.insert(card)
            card.note = note
            if let deck {
                card.deck = deck
            } else if type.kind == .standard, let target = templates.first(where: { $0.ordinal == ordinal })?.targetDeck {
                card.deck = target
            } else {
                if fallback == nil { fallback = try self.deck(named: DeckStoreV2.defaultDeckName) }
                card.deck = fallback
            }
        }
    }

    /// Replaces a note's field values (in its type's field order), and adds the cards the new
    /// values generate. No card is removed: a card whose template now renders empty (or whose
    /// cloze number is gone) stays, with its reviews, as Anki keeps it until its Empty Cards tool
    /// runs. Written by the next ``save()``.
    /// - Throws: ``NoteInputError`` for more values than fields, a cloze note left without any
    ///   cloze deletion; ``DeckError`` `readOnly`; the store's error.
    public func setFields(_ fields: [String], of note: Note) throws {
        try requireWritable()
        guard let type = note.noteType else { throw DeckError(path: storeURL.path, reason: "note \(note.id) has no note type", kind: .corrupt) }
        let layout = layout(of: type)
        let values = try Self.fieldValues(fields, for: layout)
        if type.kind == .cloze, layout.nonEmptyOrdinals(fieldValues: values).isEmpty {
            throw NoteInputError("a \(type.name) note needs a cloze deletion such as {{c1::text}} in a field")
        }
        guard values != note.fields else { return }
        note.fields = values
        note.sortText = FieldText.plainText(fromHTML: values.indices.contains(type.sortField) ? values[type.sortField] : "")
        note.modified = Date()
        try regenerateCards(of: note)
    }

    /// Replaces a note's tags (by name, reused ignoring case or created). Written by the next ``save()``.
    public func setTags(_ names: [String], of note: Note) throws {
        try requireWritable()
        let models = try tagModels(named: names)
        guard Set(models.map(\.name)) != Set(note.tags.map(\.name)) else { return }
        note.tags = models
        note.modified = Date()
        // `{{Tags}}` in a question can make a card.
        try regenerateCards(of: note)
    }

    /// Links a note to media names (``DeckMedia/originalName`` as ``addMedia(_:originalName:mime:sha1:)``
    /// returned it, or a file name inside `Media/`), keeping its other links. Written by the next ``save()``.
    /// - Throws: ``NoteInputError`` for a name the deck has no media under; ``DeckError`` `readOnly`.
    public func attachMedia(named names: [String], to note: Note) throws {
        try requireWritable()
        var linked = note.media
        for name in names {
            var found = try mediaName(name)
            if found == nil, let file = try mediaFile(fileName: name) {
                found = file.names.min { $0.name < $1.name }
            }
            guard let found else { throw NoteInputError("the deck has no media named \"\(name)\"") }
            if !linked.contains(where: { $0 === found }) { linked.append(found) }
        }
        note.media = linked
    }

    /// Adds the cards a note's values generate that it doesn't have yet.
    func regenerateCards(of note: Note) throws {
        guard let type = note.noteType else { return }
        let layout = layout(of: type)
        let cards = note.cards
        let existing = Set(cards.map(\.ordinal))
        let ordinals = layout.cardOrdinals(fieldValues: note.fields, tags: note.tags.map(\.name), existing: existing)
        try addCards(to: note, layout: layout, type: type, ordinals: ordinals, deck: cards.min(by: { $0.ordinal < $1.ordinal })?.deck)
    }

    // MARK: Reading and deleting

    /// The card with a numeric id (its row key), or nil.
    public func card(id: Int64) throws -> DeckSchemaV2.Card? {
        try requireOpen()
        let identifier = PersistentIdentifier(storeIdentifier: "Deck", entityName: V2.Card.entityName, primaryKey: id)
        do {
            return try mainContext.model(for: identifier) as? V2.Card
        } catch PersistenceError.modelNotFound {
            return nil
        }
    }

    /// The note of the card with a numeric id (``CardRow/id``), or nil.
    public func note(forCard id: Int64) throws -> Note? {
        try card(id: id)?.note
    }

    /// The note with a numeric key, or nil.
    public func note(id: Int64) throws -> Note? {
        try requireOpen()
        let identifier = PersistentIdentifier(storeIdentifier: "Deck", entityName: Note.entityName, primaryKey: id)
        do {
            return try mainContext.model(for: identifier) as? Note
        } catch PersistenceError.modelNotFound {
            return nil
        }
    }

    /// Marks notes deleted, with their cards and the cards' reviews; written by the next ``save()``.
    public func delete(_ notes: [Note]) throws {
        try requireWritable()
        for note in notes { mainContext.delete(note) }
    }

    /// The number of cards, counted in SQL (unsaved inserts included).
    public func cardCount() throws -> Int {
        try requireOpen()
        return try mainContext.fetchCount(FetchDescriptor<DeckSchemaV2.Card>())
    }

    /// The number of notes, counted in SQL (unsaved inserts included).
    public func noteCount() throws -> Int {
        try requireOpen()
        return try mainContext.fetchCount(FetchDescriptor<Note>())
    }

    // MARK: Tags

    /// The tag models for names, fetched (ignoring case: the existing spelling is kept) or
    /// created, one per distinct non-empty name.
    public func tagModels(named names: [String]) throws -> [DeckSchemaV2.Tag] {
        try requireOpen()
        var result: [DeckSchemaV2.Tag] = []
        var seen: Set<String> = []
        var existing: [String: DeckSchemaV2.Tag]?
        for raw in names {
            // Foundation's trimming is the slow part of 20,000 names: only names that start or
            // end with white space go through it.
            let edges = [raw.unicodeScalars.first, raw.unicodeScalars.last].compactMap { $0 }
            let name = edges.contains(where: \.properties.isWhitespace) ? raw.trimmingCharacters(in: .whitespacesAndNewlines) : raw
            let folded = name.lowercased()
            guard !name.isEmpty, seen.insert(folded).inserted else { continue }
            if existing == nil {
                existing = [:]
                for tag in try mainContext.fetch(FetchDescriptor<DeckSchemaV2.Tag>()) where !tag.isDeleted {
                    existing?[tag.name.lowercased()] = tag
                }
            }
            if let tag = existing?[folded] {
                result.append(tag)
            } else {
                try requireWritable()
                let tag = DeckSchemaV2.Tag(name: name)
                mainContext.insert(tag)
                existing?[folded] = tag
                result.append(tag)
            }
        }
        return result
    }

    /// All tags, sorted by name.
    public func allTags() throws -> [DeckSchemaV2.Tag] {
        try requireOpen()
        return try mainContext.fetch(FetchDescriptor<DeckSchemaV2.Tag>(sortBy: [SortDescriptor(\.name)]))
    }

    // MARK: Anki ids

    /// A new Anki id (a millisecond timestamp, above every id the deck's notes and cards hold),
    /// given once to a note, card, note type or deck when it is made here: an export then
    /// writes the same ids every time, so Anki updates the notes of a re-exported deck instead
    /// of adding them again.
    func newAnkiID() throws -> Int64 {
        if nextAnkiID == nil {
            let stored = try container.withDatabase(for: Note.self) { db in
                let notes = try db.scalar("SELECT max(\"ankiID\") FROM \"Note\" WHERE \"ankiID\" IS NOT NULL", as: Int64.self) ?? 0
                let cards = try db.scalar("SELECT max(\"ankiID\") FROM \"Card\" WHERE \"ankiID\" IS NOT NULL", as: Int64.self) ?? 0
                return max(notes, cards)
            }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            nextAnkiID = stored < Int64.max - 1_000_000_000 ? max(now, stored + 1) : now
        }
        let id = nextAnkiID ?? 1
        nextAnkiID = id &+ 1
        return id
    }

    /// Gives the notes, cards, note types and decks about to be inserted that have no Anki id
    /// one (models inserted into the context directly rather than through ``addNote(type:fields:tags:deck:guid:created:)``
    /// and the other calls, which give theirs when they make them). Not while the context
    /// records undo: the ids would be a change of their own; an export derives the missing ones.
    /// The deck `Default` keeps none: an export writes it as Anki's deck 1.
    func assignAnkiIDs() throws {
        guard !mainContext.isUndoEnabled else { return }
        for model in mainContext.insertedModelsArray {
            switch model {
            case let note as Note where note.ankiID == nil: note.ankiID = try newAnkiID()
            case let card as V2.Card where card.ankiID == nil: card.ankiID = try newAnkiID()
            case let type as NoteType where type.ankiID == nil: type.ankiID = try newAnkiID()
            case let deck as V2.Deck where deck.ankiID == nil && deck.name != DeckStoreV2.defaultDeckName: deck.ankiID = try newAnkiID()
            default: continue
            }
        }
    }

    // MARK: Saving with the search index

    /// Saves ``mainContext`` and, in the same transaction, writes the search index rows of the
    /// notes it inserted or changed (their plain text, which SQL can't compute; deleted notes
    /// leave the index through the `Note_search_delete` trigger).
    func saveIndexingNotes() throws {
        try assignAnkiIDs()
        var touched: [Note] = []
        var seen: Set<ObjectIdentifier> = []
        for case let note as Note in mainContext.insertedModelsArray + mainContext.changedModelsArray
        where seen.insert(ObjectIdentifier(note)).inserted {
            touched.append(note)
        }
        // A renamed tag changes the index text of its notes.
        for case let tag as DeckSchemaV2.Tag in mainContext.changedModelsArray {
            for note in tag.notes where seen.insert(ObjectIdentifier(note)).inserted { touched.append(note) }
        }
        guard !touched.isEmpty else { return try mainContext.save() }
        try container.withDatabase(for: Note.self) { db in try db.execute("SAVEPOINT deck_save") }
        do {
            try mainContext.save()
            try container.withDatabase(for: Note.self) { db in
                let remove = try db.cachedStatement("DELETE FROM \"NoteSearch\" WHERE rowid = ?")
                let insert = try db.cachedStatement("INSERT INTO \"NoteSearch\"(rowid, fields, tags) VALUES (?, ?, ?)")
                for note in touched where !note.isDeleted && !note.persistentModelID.isTemporary {
                    let key = note.id
                    try remove.execute([.integer(key)])
                    try insert.execute([.integer(key), .text(DeckStoreV2.searchText(ofFields: note.fields)),
                                        .text(note.tags.map(\.name).joined(separator: " "))])
                }
                try db.execute("RELEASE deck_save")
            }
        } catch {
            try? container.withDatabase(for: Note.self) { db in
                try db.execute("ROLLBACK TO deck_save")
                try db.execute("RELEASE deck_save")
            }
            throw error
        }
    }
}
