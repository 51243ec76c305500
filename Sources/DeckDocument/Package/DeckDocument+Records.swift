import CardTemplates
import Foundation
import Persistence
import SQLite

// Rows of another program's collection (Anki's) added at full fidelity through a bulk import:
// note types with every field and template option, presets, the deck tree, notes with each of
// their cards and each card's reviews, as docs/FORMAT.md stores them. Values are in the
// format's units already (Anki's numbers); importers check their ranges before.

/// A note type to add with ``BulkImport/addNoteType(_:)``.
public struct ImportNoteType: Sendable, Hashable {
    public struct Field: Sendable, Hashable {
        public var name: String
        public var font = "Arial", fontSize = 20
        public var rightToLeft = false, sticky = false, plainText = false, collapsed = false, excludeFromSearch = false
        public var description = ""
        public var ankiID: Int64?
        public var options = "{}"
        public init(name: String) { self.name = name }
    }
    public struct Template: Sendable, Hashable {
        public var name: String
        public var questionFormat: String, answerFormat: String
        public var browserQuestionFormat = "", browserAnswerFormat = "", browserFont = ""
        public var browserFontSize = 0
        /// The key of the deck new cards of it go to (``BulkImport/addDeck(_:)``), nil for none.
        public var targetDeck: Int64?
        public var modified = Date(timeIntervalSince1970: 0)
        public var ankiID: Int64?
        public var options = "{}"
        public init(name: String, questionFormat: String, answerFormat: String) {
            self.name = name
            self.questionFormat = questionFormat
            self.answerFormat = answerFormat
        }
    }
    public var name: String
    public var kind: DeckSchemaV2.NoteTypeKind
    public var stockKind: DeckSchemaV2.StockKind?
    public var css = ""
    public var sortField = 0
    public var latexPre = "", latexPost = ""
    public var latexSVG = false
    public var modified = Date(timeIntervalSince1970: 0)
    public var ankiID: Int64?
    /// Anki's options this model does not name, as a JSON object (kept verbatim).
    public var options = "{}"
    /// In ordinal order (ordinals are the positions).
    public var fields: [Field]
    /// In ordinal order.
    public var templates: [Template]
    public init(name: String, kind: DeckSchemaV2.NoteTypeKind, fields: [Field], templates: [Template]) {
        self.name = name
        self.kind = kind
        self.fields = fields
        self.templates = templates
    }
}

/// A preset to add with ``BulkImport/addPreset(_:)``.
public struct ImportPreset: Sendable, Hashable {
    public var name: String
    public var newPerDay = 20, reviewsPerDay = 200
    /// JSON arrays of minutes.
    public var learningSteps = "[1,10]", relearningSteps = "[10]"
    public var maximumInterval = 36_500
    public var usesFSRS = true
    /// A JSON array of numbers.
    public var fsrsParameters = "[]"
    public var desiredRetention = 0.9
    public var startingEase = 2500, graduatingInterval = 1, easyInterval = 4
    public var easyBonus = 1.3, hardMultiplier = 1.2, intervalMultiplier = 1.0, lapseMultiplier = 0.0
    public var minimumLapseInterval = 1, leechThreshold = 8
    public var buryNewSiblings = false, buryReviewSiblings = false, buryInterdaySiblings = false
    public var modified = Date(timeIntervalSince1970: 0)
    public var ankiID: Int64?
    public var options = "{}"
    public init(name: String) { self.name = name }
}

/// A deck of the tree to add with ``BulkImport/addDeck(_:)``.
public struct ImportDeck: Sendable, Hashable {
    /// The full `::` path.
    public var name: String
    public var kind: DeckSchemaV2.DeckKind = .normal
    public var description = ""
    public var markdownDescription = false, collapsed = false
    /// A JSON array of `{"search", "limit", "order"}` objects.
    public var filterTerms = "[]"
    public var reschedules = true
    public var modified = Date(timeIntervalSince1970: 0)
    public var ankiID: Int64?
    public var options = "{}"
    /// The key of its preset (``BulkImport/addPreset(_:)``); nil: the parent's or the default.
    public var preset: Int64?
    public init(name: String) { self.name = name }
}

/// One review of a card (a revlog row), in the format's units.
public struct ImportReview: Sendable, Hashable {
    public var time: Int64
    public var rating: Int
    public var interval: Int, lastInterval: Int
    public var easeFactor: Int
    public var duration: Int
    public var kind: DeckSchemaV2.ReviewKind
    /// Anki's revlog id when it differs from ``time``.
    public var ankiID: Int64?
    public init(time: Int64, rating: Int, interval: Int, lastInterval: Int, easeFactor: Int, duration: Int,
                kind: DeckSchemaV2.ReviewKind, ankiID: Int64? = nil) {
        self.time = time
        self.rating = rating
        self.interval = interval
        self.lastInterval = lastInterval
        self.easeFactor = easeFactor
        self.duration = duration
        self.kind = kind
        self.ankiID = ankiID
    }
}

/// A card with its full scheduling state, in the format's units (docs/FORMAT.md, `Card`).
public struct ImportCard: Sendable, Hashable {
    public var ordinal: Int
    /// The key of its deck (``BulkImport/addDeck(_:)``).
    public var deck: Int64
    /// The key of the deck it came from while in a filtered deck.
    public var originalDeck: Int64?
    public var type: DeckSchemaV2.CardType = .new
    public var queue: DeckSchemaV2.CardQueue = .new
    /// Read by ``queue``: a position, a Unix time, or a day number from the deck's `dayZero`.
    public var due: Int64 = 0
    public var interval = 0, easeFactor = 0, repetitions = 0, lapses = 0, remainingSteps = 0
    public var originalDue: Int64 = 0
    public var flag = 0
    public var stability: Double?, difficulty: Double?, desiredRetention: Double?, decay: Double?
    public var lastReview: Int64?, originalPosition: Int64?
    public var customData = ""
    public var created: Date, modified: Date
    public var ankiID: Int64?
    public var options = "{}"
    public var reviews: [ImportReview] = []
    public init(ordinal: Int, deck: Int64, created: Date, modified: Date) {
        self.ordinal = ordinal
        self.deck = deck
        self.created = created
        self.modified = modified
    }
}

/// A note with its cards, for ``BulkImport/add(_:)-(ImportNote)``.
public struct ImportNote: Sendable, Hashable {
    /// The key of its note type (``BulkImport/addNoteType(_:)``).
    public var noteType: Int64
    public var guid: String
    /// One value per field of the type (fewer are padded with empty values).
    public var fields: [String]
    public var tags: [String] = []
    /// Media names its fields refer to.
    public var media: [String] = []
    public var created: Date, modified: Date
    public var ankiID: Int64?
    public var cards: [ImportCard] = []
    public init(noteType: Int64, guid: String, fields: [String], created: Date, modified: Date) {
        self.noteType = noteType
        self.guid = guid
        self.fields = fields
        self.created = created
        self.modified = modified
    }
}

/// The row batches of record imports.
struct RecordStatements {
    let note, card, review: RowBatch
}

extension BulkImport {
    // MARK: Note types, presets, decks (few rows: through the main context)

    /// Adds a note type with its fields and templates and returns its key; a saved type with
    /// the same Anki id, name, field names and template names and formats is reused instead
    /// (so importing a package twice makes no second copy).
    /// - Throws: the store's error.
    public func addNoteType(_ record: ImportNoteType) throws -> Int64 {
        try flushRows()
        let context = document.mainContext
        if let ankiID = record.ankiID {
            let candidates = try context.fetch(FetchDescriptor<DeckSchemaV2.NoteType>(predicate: #Predicate { $0.ankiID == ankiID }))
            for type in candidates where Self.sameShape(type, record) {
                let key = try savedKey(of: type)
                recordSortFields[key] = (type.sortField, type.fields.count)
                return key
            }
        }
        let type = DeckSchemaV2.NoteType(name: record.name, kind: record.kind, stockKind: record.stockKind, css: record.css)
        Self.assign(record, to: type)
        context.insert(type)
        for (ordinal, spec) in record.fields.enumerated() {
            let field = DeckSchemaV2.NoteField(ordinal: ordinal, name: spec.name)
            Self.assign(spec, to: field)
            context.insert(field)
            field.noteType = type
        }
        for (ordinal, spec) in record.templates.enumerated() {
            let template = DeckSchemaV2.CardTemplate(ordinal: ordinal, name: spec.name, questionFormat: spec.questionFormat,
                                                     answerFormat: spec.answerFormat)
            context.insert(template)
            template.noteType = type
            try assign(spec, to: template)
        }
        try document.saveIndexingNotes()
        let key = type.persistentModelID.primaryKey
        recordSortFields[key] = (record.sortField, record.fields.count)
        return key
    }

    /// A note type row takes a record's values: all but its kind, its fields and its templates
    /// (adding a type, updating one, merging two).
    static func assign(_ record: ImportNoteType, to type: DeckSchemaV2.NoteType) {
        type.name = record.name
        type.ankiID = record.ankiID
        type.stockKind = record.stockKind
        type.css = record.css
        type.sortField = record.sortField
        type.latexPre = record.latexPre
        type.latexPost = record.latexPost
        type.latexSVG = record.latexSVG
        type.modified = record.modified
        type.ankiOptions = record.options
    }

    /// A field row takes a record's values, all but its ordinal.
    static func assign(_ spec: ImportNoteType.Field, to field: DeckSchemaV2.NoteField) {
        field.name = spec.name
        field.font = spec.font
        field.fontSize = spec.fontSize
        field.rightToLeft = spec.rightToLeft
        field.sticky = spec.sticky
        field.plainText = spec.plainText
        field.collapsed = spec.collapsed
        field.excludeFromSearch = spec.excludeFromSearch
        field.fieldDescription = spec.description
        field.ankiID = spec.ankiID
        field.ankiOptions = spec.options
    }

    /// A template row takes a record's values, all but its ordinal; its target deck is the
    /// deck of that key (none when the key names no deck).
    /// - Throws: the store's error.
    func assign(_ spec: ImportNoteType.Template, to template: DeckSchemaV2.CardTemplate) throws {
        template.name = spec.name
        template.questionFormat = spec.questionFormat
        template.answerFormat = spec.answerFormat
        template.browserQuestionFormat = spec.browserQuestionFormat
        template.browserAnswerFormat = spec.browserAnswerFormat
        template.browserFont = spec.browserFont
        template.browserFontSize = spec.browserFontSize
        template.modified = spec.modified
        template.ankiID = spec.ankiID
        template.ankiOptions = spec.options
        template.targetDeck = try spec.targetDeck.map { key in
            try document.mainContext.model(for: PersistentIdentifier(storeIdentifier: "Deck", entityName: DeckSchemaV2.Deck.entityName,
                                                                      primaryKey: key)) as? DeckSchemaV2.Deck
        } ?? nil
    }

    static func sameShape(_ type: DeckSchemaV2.NoteType, _ record: ImportNoteType) -> Bool {
        let fields = type.fields.sorted { $0.ordinal < $1.ordinal }.map(\.name)
        let templates = type.templates.sorted { $0.ordinal < $1.ordinal }.map { [$0.name, $0.questionFormat, $0.answerFormat] }
        return type.name == record.name && type.kind == record.kind && fields == record.fields.map(\.name)
            && templates == record.templates.map { [$0.name, $0.questionFormat, $0.answerFormat] }
    }

    /// Adds a preset and returns its key; a saved preset with the same Anki id and name is reused.
    /// - Throws: the store's error.
    public func addPreset(_ record: ImportPreset) throws -> Int64 {
        try flushRows()
        let context = document.mainContext
        if let ankiID = record.ankiID {
            let name = record.name
            let found = try context.fetch(FetchDescriptor<DeckSchemaV2.Preset>(predicate: #Predicate { $0.ankiID == ankiID && $0.name == name }))
            if let first = found.first { return try savedKey(of: first) }
        }
        // The store's own default preset, never used by Anki yet, takes the package's default.
        if record.ankiID == 1 {
            let all = try context.fetch(FetchDescriptor<DeckSchemaV2.Preset>())
            if all.count == 1, let only = all.first, only.ankiID == nil, only.name == "Default",
               try context.fetchCount(FetchDescriptor<DeckSchemaV2.Card>()) == 0 {
                apply(record, to: only)
                try document.saveIndexingNotes()
                return try savedKey(of: only)
            }
        }
        let preset = DeckSchemaV2.Preset(name: record.name)
        apply(record, to: preset)
        context.insert(preset)
        try document.saveIndexingNotes()
        return preset.persistentModelID.primaryKey
    }

    func apply(_ record: ImportPreset, to preset: DeckSchemaV2.Preset) {
        preset.name = record.name
        preset.newPerDay = record.newPerDay
        preset.reviewsPerDay = record.reviewsPerDay
        preset.learningSteps = record.learningSteps
        preset.relearningSteps = record.relearningSteps
        preset.maximumInterval = record.maximumInterval
        preset.usesFSRS = record.usesFSRS
        preset.fsrsParameters = record.fsrsParameters
        preset.desiredRetention = record.desiredRetention
        preset.startingEase = record.startingEase
        preset.graduatingInterval = record.graduatingInterval
        preset.easyInterval = record.easyInterval
        preset.easyBonus = record.easyBonus
        preset.hardMultiplier = record.hardMultiplier
        preset.intervalMultiplier = record.intervalMultiplier
        preset.lapseMultiplier = record.lapseMultiplier
        preset.minimumLapseInterval = record.minimumLapseInterval
        preset.leechThreshold = record.leechThreshold
        preset.buryNewSiblings = record.buryNewSiblings
        preset.buryReviewSiblings = record.buryReviewSiblings
        preset.buryInterdaySiblings = record.buryInterdaySiblings
        preset.modified = record.modified
        preset.ankiID = record.ankiID
        preset.ankiOptions = record.options
    }

    /// Adds a deck (its missing ancestors made as ``DeckDocument/deck(named:)`` makes them) and
    /// returns its key. A deck of that name already in the store is kept as it is and its key
    /// returned, except that an empty description, no Anki id and the default preset of a deck
    /// without cards take the record's (the store's `Default` deck becomes Anki's).
    /// - Throws: ``NoteInputError`` for a path with an empty level; the store's error.
    public func addDeck(_ record: ImportDeck) throws -> Int64 {
        try flushRows()
        let context = document.mainContext
        let name = record.name
        var descriptor = FetchDescriptor<DeckSchemaV2.Deck>(predicate: #Predicate { $0.name == name })
        descriptor.fetchLimit = 1
        if let existing = try context.fetch(descriptor).first {
            if existing.ankiID == nil, existing.kind == record.kind {
                existing.ankiID = record.ankiID
                if existing.deckDescription.isEmpty { existing.deckDescription = record.description }
                existing.markdownDescription = record.markdownDescription
                existing.collapsed = record.collapsed
                existing.modified = record.modified
                existing.ankiOptions = record.options
                if let preset = record.preset, existing.cards.isEmpty {
                    existing.preset = try context.model(for: PersistentIdentifier(storeIdentifier: "Deck", entityName: DeckSchemaV2.Preset.entityName, primaryKey: preset)) as? DeckSchemaV2.Preset
                }
                try document.saveIndexingNotes()
            }
            return try savedKey(of: existing)
        }
        let levels = name.components(separatedBy: "::")
        if levels.count > 1 { _ = try document.deck(named: levels.dropLast().joined(separator: "::")) }
        let deck = try document.deck(named: name)
        deck.kind = record.kind
        deck.deckDescription = record.description
        deck.markdownDescription = record.markdownDescription
        deck.collapsed = record.collapsed
        deck.filterTerms = record.filterTerms
        deck.reschedules = record.reschedules
        deck.modified = record.modified
        deck.ankiID = record.ankiID
        deck.ankiOptions = record.options
        if record.kind == .filtered {
            deck.preset = nil
        } else if let preset = record.preset {
            deck.preset = try context.model(for: PersistentIdentifier(storeIdentifier: "Deck", entityName: DeckSchemaV2.Preset.entityName, primaryKey: preset)) as? DeckSchemaV2.Preset
        }
        try document.saveIndexingNotes()
        return deck.persistentModelID.primaryKey
    }

    // MARK: Notes with their cards (many rows: SQL)

    /// Writes a note with exactly the cards given (each with its full scheduling state and
    /// its own reviews), its tags (by name, reused ignoring case or created) and media links.
    /// - Throws: ``NoteInputError`` for more values than the type has fields, or an unknown
    ///   note type key; ``DeckError`` when the store fails.
    public func add(_ note: ImportNote) throws {
        do {
            try write(note)
        } catch let error as DatabaseError {
            throw DeckError(path: document.url.path, reason: "can't write the imported notes: \(error.message)", kind: DeckError.kind(of: error))
        }
    }

    private func write(_ note: ImportNote) throws {
        guard let (sortField, fieldCount) = recordSortFields[note.noteType] else {
            throw NoteInputError("note \(note.guid) names a note type that was not added")
        }
        guard note.fields.count <= fieldCount else {
            throw NoteInputError("note \(note.guid) has \(note.fields.count) fields, its note type \(fieldCount)")
        }
        let values = note.fields.count == fieldCount ? note.fields : note.fields + Array(repeating: "", count: fieldCount - note.fields.count)
        let statements = try recordStatements()
        let noteKey = nextNote
        nextNote += 1
        let sortText = FieldText.plainText(fromHTML: values.indices.contains(sortField) ? values[sortField] : "")
        let rows = statements.note
        rows.append(.integer(noteKey))
        rows.append(.text(note.guid))
        rows.appendText { JSONStringArray.encode(values, into: &$0) }
        rows.append(.text(sortText))
        rows.append(.real(note.created.timeIntervalSince1970))
        rows.append(.real(note.modified.timeIntervalSince1970))
        rows.append(note.ankiID.map(SQLValue.integer) ?? .null)
        rows.append(.integer(note.noteType))
        try rows.endRow()
        referNoteType(note.noteType)
        for card in note.cards { try insertRecordCard(card, note: noteKey) }
        var tagKeys: [Int64] = []
        tagKeys.reserveCapacity(note.tags.count)
        for tag in note.tags {
            if let key = try tagKey(tag), !tagKeys.contains(key) { tagKeys.append(key) }
        }
        for key in tagKeys { try linkTag(noteKey, key) }
        for name in note.media {
            if let key = try mediaKey(name) { try linkMedia(noteKey, key) }
        }
        notesAdded += 1
    }

    /// Writes one card of a record note, with its reviews.
    func insertRecordCard(_ card: ImportCard, note noteKey: Int64) throws {
        let statements = try recordStatements()
        let cardKey = nextCard
        nextCard += 1
        func optional(_ value: Double?) -> SQLValue { value.map(SQLValue.real) ?? .null }
        func optional(_ value: Int64?) -> SQLValue { value.map(SQLValue.integer) ?? .null }
        let rows = statements.card
        rows.append(.integer(cardKey))
        rows.append(.integer(Int64(card.ordinal)))
        rows.append(.integer(Int64(card.type.rawValue)))
        rows.append(.integer(Int64(card.queue.rawValue)))
        rows.append(.integer(card.due))
        rows.append(.integer(Int64(card.interval)))
        rows.append(.integer(Int64(card.easeFactor)))
        rows.append(.integer(Int64(card.repetitions)))
        rows.append(.integer(Int64(card.lapses)))
        rows.append(.integer(Int64(card.remainingSteps)))
        rows.append(.integer(card.originalDue))
        rows.append(.integer(Int64(card.flag)))
        rows.append(optional(card.stability))
        rows.append(optional(card.difficulty))
        rows.append(optional(card.desiredRetention))
        rows.append(optional(card.decay))
        rows.append(optional(card.lastReview))
        rows.append(optional(card.originalPosition))
        rows.append(.text(card.customData))
        rows.append(.real(card.created.timeIntervalSince1970))
        rows.append(.real(card.modified.timeIntervalSince1970))
        rows.append(optional(card.ankiID))
        rows.append(.text(card.options))
        rows.append(.integer(noteKey))
        rows.append(.integer(card.deck))
        rows.append(optional(card.originalDeck))
        try rows.endRow()
        referNote(noteKey)
        referDeck(card.deck)
        if let deck = card.originalDeck { referDeck(deck) }
        cardsAdded += 1
        let reviewRows = statements.review
        for review in card.reviews {
            reviewRows.append(.integer(nextReview))
            reviewRows.append(.integer(review.time))
            reviewRows.append(.integer(Int64(review.rating)))
            reviewRows.append(.integer(Int64(review.interval)))
            reviewRows.append(.integer(Int64(review.lastInterval)))
            reviewRows.append(.integer(Int64(review.easeFactor)))
            reviewRows.append(.integer(Int64(review.duration)))
            reviewRows.append(.integer(Int64(review.kind.rawValue)))
            reviewRows.append(optional(review.ankiID))
            reviewRows.append(.integer(cardKey))
            try reviewRows.endRow()
            nextReview += 1
            reviewsAdded += 1
        }
    }

    func recordStatements() throws -> RecordStatements {
        if let records { return records }
        let made = try document.container.withDatabase(for: Note.self) { db in
            RecordStatements(
                note: try RowBatch(db, table: "Note", columns: ["pk", "guid", "fields", "sortText", "created", "modified", "ankiID", "noteType"],
                                   rowValues: "(?, ?, ?, ?, ?, ?, ?, ?)", rowsPerStatement: rowsPerStatement, keyed: true),
                card: try RowBatch(db, table: "Card", columns: [
                    "pk", "ordinal", "type", "queue", "due", "interval", "easeFactor", "repetitions", "lapses", "remainingSteps",
                    "originalDue", "flag", "stability", "difficulty", "desiredRetention", "decay", "lastReview", "originalPosition",
                    "customData", "created", "modified", "ankiID", "ankiOptions", "note", "deck", "originalDeck",
                ], rowValues: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rowsPerStatement: rowsPerStatement, keyed: true),
                review: try RowBatch(db, table: "Review", columns: ["pk", "time", "rating", "interval", "lastInterval", "easeFactor",
                                                                    "duration", "kind", "ankiID", "card"],
                                     rowValues: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rowsPerStatement: rowsPerStatement, keyed: true))
        }
        records = made
        return made
    }
}
