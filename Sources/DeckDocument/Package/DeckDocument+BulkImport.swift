import CardTemplates
import Foundation
import Persistence
import SQLite

/// A note for ``BulkImport/add(_:tags:media:reviews:)``: its kind (the stock note type it is
/// written as) or a note type of the deck, its field values, and the scheduling of its cards,
/// in the terms of a flash-card file (dates, an ease of 2.5).
public final class ImportedNote {
    // Its stored properties, and BulkImport's, are read and written for every note of an
    // import without overlapping accesses: `@exclusivity(unchecked)` spares each access the
    // runtime's check (164 M instructions of a 100,000-row CSV import, 5 %).
    @exclusivity(unchecked) public var kind: CardKind
    /// The note type to write it as (a saved type of the deck); nil for the stock type of ``kind``.
    @exclusivity(unchecked) public var noteType: NoteType?
    /// The first field (for a cloze note, the text with `{{c1::…}}` gaps).
    @exclusivity(unchecked) public var front: String
    /// The second field.
    @exclusivity(unchecked) public var back: String
    /// The cloze text, when it differs from ``front`` (files of version 1 kept both).
    @exclusivity(unchecked) public var text: String?
    /// Every field value in the note type's order; overrides ``front``/``back``/``text`` when set.
    @exclusivity(unchecked) public var fields: [String]?
    @exclusivity(unchecked) public var created: Date
    @exclusivity(unchecked) public var modified: Date
    /// When the cards are due for review; nil for new cards.
    @exclusivity(unchecked) public var due: Date?
    /// Days.
    @exclusivity(unchecked) public var interval: Int = 0
    /// The ease factor (2.5 = 250 %).
    @exclusivity(unchecked) public var ease: Double = 2.5
    @exclusivity(unchecked) public var repetitions: Int = 0
    @exclusivity(unchecked) public var lapses: Int = 0
    /// The note's GUID (kept: the same note imported again is recognised); nil for a new one.
    @exclusivity(unchecked) public var ankiGUID: String?
    /// The deck path (`Languages::French`) of its cards; nil for `Default`.
    @exclusivity(unchecked) public var deckPath: String?

    public init(kind: CardKind, front: String, back: String, created: Date = Date()) {
        self.kind = kind
        self.front = front
        self.back = back
        self.created = created
        self.modified = created
    }

    /// The field values written.
    var values: [String] { fields ?? [kind == .cloze ? (text ?? front) : front, back] }
}

extension DeckDocument {
    /// The GUIDs of the notes already saved in the deck (importers skip notes whose GUID is in
    /// it, so importing the same package twice adds nothing).
    ///
    /// One SQL query over the unique `guid` column; unsaved notes are not included.
    /// - Throws: the store's error when the query fails.
    public func savedAnkiGUIDs() throws -> Set<String> {
        try requireOpen()
        return try container.withDatabase(for: Note.self) { db in
            let statement = try db.prepare("SELECT \"guid\" FROM \"Note\"")
            var result: Set<String> = []
            while try statement.step() { result.insert(statement.string(at: 0)) }
            return result
        }
    }

    /// Where an import's temporary files go (`PRAGMA temp_store`): memory. Each multi-row
    /// statement of the import keeps a statement journal of the pages it changes, so that it
    /// can be undone alone; on disk that was one write system call per page, more than the
    /// rows themselves cost.
    static let importTempStore = "MEMORY"

    /// The page cache of an import, in KiB (`PRAGMA cache_size`; SQLite's default is 2,000 KiB).
    ///
    /// An import's pages are all dirty until its commit, so a cache smaller than the import
    /// spills pages to the file and reads them back when they are written again. Rows that
    /// arrive in key order touch only the last page of each b-tree; the notes' GUIDs of an Anki
    /// package do not (their `UNIQUE` index takes every insert at a random leaf), and with the
    /// default cache the 100,000 notes of a package current Anki built wrote and re-read 1.2 GB
    /// of pages for a store of 45 MB. 8 MiB holds the GUID index of 100,000 notes and the last
    /// pages of the others; the cache grows only as pages are used and shrinks back after the
    /// import, and the bar of 64 MiB peak memory for a whole import leaves no room for more.
    static let importCacheKiB: Int64 = 8_192

    /// Switches the store from WAL to a rollback journal for an import when no other
    /// connection has it open (returns whether it did; the caller switches back).
    ///
    /// In WAL mode every page an import writes is written twice: into the log at the commit,
    /// then into the database by the checkpoint. With a rollback journal the new pages go
    /// straight into the file (the journal keeps only the few existing pages the import
    /// changes). Leaving WAL needs the only connection to the store; with readers open, the
    /// import stays in WAL (without waiting for them: the busy timeout is off for the attempt).
    static func leaveWAL(_ db: Database) -> Bool {
        guard (try? db.scalar("PRAGMA journal_mode", as: String.self))?.lowercased() == "wal",
              let timeout = try? db.scalar("PRAGMA busy_timeout", as: Int64.self) else { return false }
        defer { try? db.execute("PRAGMA busy_timeout = \(timeout)") }
        guard (try? db.execute("PRAGMA busy_timeout = 0")) != nil else { return false }
        return (try? db.setJournalMode(.delete))?.lowercased() == "delete"
    }

    /// Runs a large import: `body` adds notes through a ``BulkImport`` session, which writes
    /// each note with its cards, tags, media links and reviews at once in SQL (nothing of it is
    /// kept in memory, and no context machinery runs per note). Everything happens in one
    /// transaction: when `body` or a write throws, nothing of the import stays in the deck (media
    /// files already written stay in `Media/`, unreferenced). Pending changes of
    /// ``mainContext`` (media, the title) are saved with it.
    ///
    /// Cost: the full-text index is not updated during the import; the store records that the
    /// new notes are not indexed yet (`NoteSearchPending`), and the next ``search(_:limit:)``
    /// indexes them (see ``updateSearchIndex()``). When no other connection has the store open,
    /// the import runs with a rollback journal instead of the write-ahead log, so its pages are
    /// written once (see `leaveWAL`); readers that open the deck meanwhile wait for its commit.
    /// Into a deck without notes, the import runs with foreign keys off and checks at its end
    /// what it wrote (``BulkImport/checkForeignKeys(_:)``: a look-up per distinct parent instead
    /// of SQLite's per row and key, about a tenth of a CSV import's CPU); a broken key is refused
    /// with SQLite's own error (`SQLITE_CONSTRAINT_FOREIGNKEY`) and nothing of the import stays.
    /// A parent row that `body` deletes is then refused too, where SQLite would have cascaded.
    /// Foreign keys go back on after the commit; when that fails, the import stays (it is
    /// committed) but the call throws, since the deck's connection would go on without them.
    /// - Throws: ``DeckError`` `readOnly`; what `body` throws; the store's error; ``DeckError``
    ///   `io` when foreign keys did not go back on.
    public func bulkImport<T>(_ body: (BulkImport) throws -> T) throws -> T {
        try bulkImport(rowsPerStatement: nil, body)
    }

    /// How a bulk import checks its foreign keys (``bulkImport(rowsPerStatement:foreignKeys:_:)``).
    enum ForeignKeyChecking {
        /// SQLite checks every row as it is written (deferred to the commit).
        case everyRow
        /// Foreign keys are off for the import, and ``BulkImport/checkForeignKeys(_:)`` checks
        /// at the end what the import wrote; only for a deck without notes (see ``bulkImport(_:)``).
        case atEnd
    }

    /// ``bulkImport(_:)`` writing `rowsPerStatement` rows per statement (``RowBatch``; nil: its
    /// default): 1 writes each row on its own, as imports did before rows went in groups.
    /// `foreignKeys` nil: ``ForeignKeyChecking/atEnd`` when the deck has no notes and no
    /// transaction is open, else ``ForeignKeyChecking/everyRow``.
    func bulkImport<T>(rowsPerStatement: Int?, foreignKeys: ForeignKeyChecking? = nil, _ body: (BulkImport) throws -> T) throws -> T {
        try requireWritable()
        let (lastKey, tempStore, cacheSize, leftWAL, checking) = try container.withDatabase(for: Note.self) { db in
            let tempStore = try db.scalar("PRAGMA temp_store", as: Int64.self) ?? 0
            try db.execute("PRAGMA temp_store = \(Self.importTempStore)")
            let cacheSize = try db.scalar("PRAGMA cache_size", as: Int64.self) ?? -2_000
            // A positive setting counts pages, a negative one KiB; a cache already as large stays.
            let cacheKiB = cacheSize < 0 ? -cacheSize : cacheSize * (try db.scalar("PRAGMA page_size", as: Int64.self) ?? 4_096) / 1_024
            if cacheKiB < Self.importCacheKiB { try db.execute("PRAGMA cache_size = -\(Self.importCacheKiB)") }
            let leftWAL = Self.leaveWAL(db)
            let lastKey = try db.scalar("SELECT max(\"pk\") FROM \"Note\"", as: Int64.self)
            // Foreign keys can only be switched outside a transaction.
            var checking = foreignKeys ?? (lastKey == nil ? .atEnd : .everyRow)
            if db.isInTransaction { checking = .everyRow }
            if checking == .atEnd { try db.execute("PRAGMA foreign_keys = OFF") }
            do {
                try db.execute("SAVEPOINT bulk_import")
                // Checked at the commit (which fails, rolling back, if one is broken), so that no
                // statement of the import has to be undone alone: no statement journal.
                try db.execute("PRAGMA defer_foreign_keys = ON")
            } catch {
                // Best effort: the import has failed already, with this error.
                if db.isInTransaction { try? db.execute("ROLLBACK TO bulk_import"); try? db.execute("RELEASE bulk_import") }
                if checking == .atEnd { try? db.execute("PRAGMA foreign_keys = ON") }
                throw error
            }
            return (lastKey ?? 0, tempStore, cacheSize, leftWAL, checking)
        }
        // After the transaction: nothing else runs without foreign keys. SQLite ignores the
        // pragma inside a transaction without a word, so what it reads afterwards decides.
        var foreignKeysOff = checking == .atEnd
        func restoreForeignKeys() throws {
            guard foreignKeysOff else { return }
            try container.withDatabase(for: Note.self) { db in
                try db.execute("PRAGMA foreign_keys = ON")
                guard try db.scalar("PRAGMA foreign_keys", as: Int64.self) == 1 else {
                    throw DeckError(path: storeURL.path, reason: "foreign keys could not be switched back on after an import", kind: .io)
                }
            }
            foreignKeysOff = false
        }
        defer {
            try? container.withDatabase(for: Note.self) { db in
                try db.execute("PRAGMA temp_store = \(tempStore)")
                try db.execute("PRAGMA cache_size = \(cacheSize)")
                if leftWAL { _ = try db.setJournalMode(.wal) }
            }
        }
        let result: T
        var session: BulkImport?
        do {
            // Media, note types and the like, added before: saved first so that links find them.
            if mainContext.hasChanges { try saveIndexingNotes() }
            let made = try BulkImport(document: self, rowsPerStatement: rowsPerStatement)
            if checking == .atEnd { try container.withDatabase(for: Note.self) { db in try made.startCheckingForeignKeys(db) } }
            session = made
            result = try body(made)
            try made.flushRows()
            if mainContext.hasChanges { try saveIndexingNotes() }
            try container.withDatabase(for: Note.self) { db in
                if checking == .atEnd { try made.checkForeignKeys(db) }
                let newest = try db.scalar("SELECT max(\"pk\") FROM \"Note\"", as: Int64.self) ?? 0
                if newest > lastKey { try DeckStoreV2.deferIndexing(after: lastKey, db) }
                try db.execute("RELEASE bulk_import")
            }
        } catch {
            try? container.withDatabase(for: Note.self) { db in
                try db.execute("ROLLBACK TO bulk_import")
                try db.execute("RELEASE bulk_import")
            }
            // Best effort: the import has failed, and its error is the one to report.
            try? restoreForeignKeys()
            discardChanges()
            nextNewPosition = nil
            throw error
        }
        nextNewPosition = nil
        // The import is committed; a connection left without foreign keys is its error all the same.
        try restoreForeignKeys()
        try save()
        // Notes updated in place (and given new cards) by SQL: the context's copies follow.
        if session?.updates != nil { try refreshAfterImportUpdates() }
        return result
    }

    /// Re-reads the main context's registered notes, cards and tags after an import changed
    /// notes already in the deck.
    func refreshAfterImportUpdates() throws {
        try mainContext.refreshRegisteredModels(of: [Note.entityName, DeckSchemaV2.Card.entityName, DeckSchemaV2.Tag.entityName,
                                                     DeckSchemaV2.NoteType.entityName])
    }
}

/// A bulk import in progress (see ``DeckDocument/bulkImport(_:)``): each note is written when
/// it is added, with its cards, tag and media links and reviews; nothing of it is kept.
public final class BulkImport {
    /// The deck imported into.
    public let document: DeckDocument
    /// Notes added so far.
    @exclusivity(unchecked) public internal(set) var notesAdded = 0
    /// Cards added so far.
    @exclusivity(unchecked) public internal(set) var cardsAdded = 0
    /// Reviews added so far with cards written at full fidelity (``add(_:)-(ImportNote)``).
    @exclusivity(unchecked) public internal(set) var reviewsAdded = 0

    @exclusivity(unchecked) var nextNote: Int64
    @exclusivity(unchecked) var nextCard: Int64
    @exclusivity(unchecked) var nextReview: Int64
    @exclusivity(unchecked) private var nextTag: Int64
    @exclusivity(unchecked) private var nextPosition: Int64
    private let dayZero: Int64
    @exclusivity(unchecked) private var tagKeys: [String: Int64] = [:]
    @exclusivity(unchecked) private var deckKeys: [String: Int64] = [:]
    @exclusivity(unchecked) private var mediaKeys: [String: Int64?] = [:]
    /// A note type notes are written as: its key, its sort field, and its layout with the cards
    /// its notes make (``CardOrdinalCache``: a CSV's notes differ in text, rarely in which fields
    /// are empty). A class, so that a note's look-up copies one reference, not the layout.
    private final class WrittenType {
        let key: Int64
        let sortField: Int
        /// The layout's number of fields: a note that gives them all needs no layout (a copy of
        /// it, its names and templates retained and released, for every note of a CSV).
        let fieldCount: Int
        let cards: CardOrdinalCache
        init(key: Int64, layout: NoteLayout, sortField: Int) {
            self.key = key
            self.sortField = sortField
            fieldCount = layout.fieldNames.count
            cards = CardOrdinalCache(layout: layout)
        }
    }
    @exclusivity(unchecked) private var types: [CardKind: WrittenType] = [:]
    @exclusivity(unchecked) private var otherTypes: [Int64: WrittenType] = [:]
    /// The deck path last looked up by ``deckKey(_:)`` and its key (most notes go to the deck of the one before).
    @exclusivity(unchecked) private var lastDeckLookup: (path: String?, key: Int64)?
    private let insertTag: Statement
    /// The rows of notes, cards, reviews and links waiting to be written in groups (``RowBatch``).
    private let noteRows, cardRows, reviewRows, tagLinkRows, mediaLinkRows: RowBatch
    /// Where the GUIDs of new notes come from: in ascending order (``AnkiGUID/Ascending``).
    @exclusivity(unchecked) private var guids = AnkiGUID.Ascending()
    /// Tag keys by the name as given (``tagKey(_:)``), before trimming and folding.
    @exclusivity(unchecked) private var tagKeysAsGiven: [String: Int64] = [:]
    /// The row batches of records added at full fidelity (``add(_:)-(ImportNote)``), made on first use.
    @exclusivity(unchecked) var records: RecordStatements?
    /// Sort fields of the note types added as records, by key.
    @exclusivity(unchecked) var recordSortFields: [Int64: (sortField: Int, fieldCount: Int)] = [:]
    /// The statements of updates to notes already in the deck, made on first use.
    @exclusivity(unchecked) var updates: NoteUpdateSQL?
    /// The key of the first note this import adds (notes below it were in the deck before).
    let firstNewNote: Int64
    /// The keys of the first card and review this import adds.
    let firstNewCard, firstNewReview: Int64

    /// The parent rows the rows of this import refer to, for ``checkForeignKeys(_:)``: note
    /// types, decks, tags and media names, and notes that were in the deck before.
    @exclusivity(unchecked) private var referencedNoteTypes: Set<Int64> = [], referencedDecks: Set<Int64> = []
    @exclusivity(unchecked) private var referencedTags: Set<Int64> = [], referencedMedia: Set<Int64> = [], referencedOldNotes: Set<Int64> = []
    /// The last note type and deck put in ``referencedNoteTypes`` and ``referencedDecks``
    /// (most rows have the one before's: no hashing for them).
    @exclusivity(unchecked) private var lastNoteType: Int64?, lastDeck: Int64?
    /// Foreign key violations in the tables the import does not write in groups, before it
    /// (``startCheckingForeignKeys(_:)``).
    @exclusivity(unchecked) private var violationsBefore = 0
    /// The same in ``groupedTables``.
    @exclusivity(unchecked) private var groupedViolationsBefore = 0

    /// Rows per statement of the row batches (nil: ``RowBatch``'s default).
    let rowsPerStatement: Int?

    init(document: DeckDocument, rowsPerStatement: Int? = nil) throws {
        self.document = document
        self.rowsPerStatement = rowsPerStatement
        let keys = try document.container.withDatabase(for: Note.self) { db in
            func next(_ table: String) throws -> Int64 {
                let largest = try db.scalar("SELECT max(\"pk\") FROM \"\(table)\"", as: Int64.self) ?? 0
                // A table whose largest key is the largest there is has no key left for a new row.
                guard largest < Int64.max - 1 else {
                    throw DeckError(path: document.storeURL.path, reason: "\(table) has no key left for a new row (its largest is \(largest))", kind: .corrupt)
                }
                return max(largest, 0) + 1
            }
            let position = try db.scalar("SELECT max(\"due\") FROM \"Card\" WHERE \"type\" = 0", as: Int64.self) ?? 0
            return (try next("Note"), try next("Card"), try next("Review"), try next("Tag"),
                    position < Int64.max - 1_000_000_000 ? max(position, 0) + 1 : 1,
                    try db.scalar("SELECT \"dayZero\" FROM \"DeckInfo\" ORDER BY \"pk\" LIMIT 1", as: Int64.self) ?? 0)
        }
        (nextNote, nextCard, nextReview, nextTag, nextPosition, dayZero) = keys
        (firstNewNote, firstNewCard, firstNewReview) = (keys.0, keys.1, keys.2)
        (insertTag, noteRows, cardRows, reviewRows, tagLinkRows, mediaLinkRows) = try document.container.withDatabase(for: Note.self) { db in
            (try db.prepare("INSERT INTO \"Tag\" (\"pk\", \"name\", \"collapsed\") VALUES (?, ?, 0)"),
             try RowBatch(db, table: "Note", columns: ["pk", "guid", "fields", "sortText", "created", "modified", "ankiID", "noteType"],
                          rowValues: "(?, ?, ?, ?, ?, ?, NULL, ?)", rowsPerStatement: rowsPerStatement, keyed: true),
             try RowBatch(db, table: "Card", columns: ["pk", "ordinal", "type", "queue", "due", "interval", "easeFactor", "repetitions",
                                                       "lapses", "remainingSteps", "originalDue", "flag", "customData", "created",
                                                       "modified", "ankiOptions", "note", "deck"],
                          rowValues: "(?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, '', ?, ?, '{}', ?, ?)", rowsPerStatement: rowsPerStatement, keyed: true),
             try RowBatch(db, table: "Review", columns: ["pk", "time", "rating", "interval", "lastInterval", "easeFactor", "duration",
                                                         "kind", "card"],
                          rowValues: "(?, ?, ?, ?, ?, 0, ?, 1, ?)", rowsPerStatement: rowsPerStatement, keyed: true),
             try RowBatch(db, verb: "INSERT OR IGNORE", table: "Note_tags", columns: ["source", "target"], rowValues: "(?, ?)",
                          rowsPerStatement: rowsPerStatement),
             try RowBatch(db, verb: "INSERT OR IGNORE", table: "Note_media", columns: ["source", "target"], rowValues: "(?, ?)",
                          rowsPerStatement: rowsPerStatement))
        }
        try document.container.withDatabase(for: Note.self) { db in
            let tags = try db.prepare("SELECT \"pk\", \"name\" FROM \"Tag\"")
            while try tags.step() { tagKeys[tags.string(at: 1).lowercased()] = tags.int64(at: 0) }
        }
    }

    /// Writes a note with the cards its type generates, its tags (by name, reused ignoring case
    /// or created), its media (by the names ``DeckDocument/addMedia(_:originalName:mime:sha1:)``
    /// returned, or by file name; unknown names are skipped) and the review history of its
    /// first card. Every card gets the note's scheduling.
    /// - Throws: ``NoteInputError`` for more values than the note type has fields; the store's error.
    public func add(_ note: ImportedNote, tags: [String] = [], media: [String] = [], reviews: [ReviewSnapshot] = []) throws {
        do {
            try write(note, tags: tags, media: media, reviews: reviews)
        } catch let error as DatabaseError {
            // The deck's store failed (a full disk, a constraint): name the deck, not the file read.
            throw DeckError(path: document.url.path, reason: "can't write the imported notes: \(error.message)", kind: DeckError.kind(of: error))
        }
    }

    private func write(_ note: ImportedNote, tags: [String], media: [String], reviews: [ReviewSnapshot]) throws {
        let writtenType = try noteType(of: note)
        let (typeKey, sortField) = (writtenType.key, writtenType.sortField)
        let given = note.values
        let values = given.count == writtenType.fieldCount ? given : try DeckDocument.fieldValues(given, for: writtenType.cards.layout)
        let deckKey = try deckKey(note.deckPath)
        // A tag has a key when it is not empty once trimmed: the tags the cards see.
        var tagKeys: [Int64] = []
        var tagNames: [String] = []
        for tag in tags {
            guard let key = try tagKey(tag) else { continue }
            tagKeys.append(key)
            tagNames.append(tag)
        }
        let ordinals = writtenType.cards.cardOrdinals(fieldValues: values, tags: tagNames)
        let noteKey = nextNote
        nextNote += 1
        let guid = note.ankiGUID ?? guids.next()
        let sortText = FieldText.plainText(fromHTML: values.indices.contains(sortField) ? values[sortField] : "")
        try noteRows.gatherRow { row in
            row.append(integer: noteKey)
            row.append(text: guid)
            row.appendText { JSONStringArray.encode(values, into: &$0) }
            row.append(text: sortText)
            row.append(real: note.created.timeIntervalSince1970)
            row.append(real: note.modified.timeIntervalSince1970)
            row.append(integer: typeKey)
        }
        referNoteType(typeKey)
        let (type, queue, due, factor) = try scheduling(of: note)
        var firstCard: Int64?
        for ordinal in ordinals {
            let cardKey = nextCard
            nextCard += 1
            if firstCard == nil { firstCard = cardKey }
            try addCardRow(cardKey, ordinal: Int64(ordinal), type: type, queue: queue, due: due, interval: Int64(max(0, note.interval)),
                           easeFactor: factor, repetitions: Int64(max(0, note.repetitions)), lapses: Int64(max(0, note.lapses)),
                           created: note.created, modified: note.modified, note: noteKey, deck: deckKey)
            cardsAdded += 1
        }
        if tagKeys.count <= 16 {
            // A few tags: repeats found by a scan, without a set per note.
            for index in tagKeys.indices where !tagKeys[..<index].contains(tagKeys[index]) { try linkTag(noteKey, tagKeys[index]) }
        } else {
            for key in Set(tagKeys) { try linkTag(noteKey, key) }
        }
        for name in media {
            if let key = try mediaKey(name) { try linkMedia(noteKey, key) }
        }
        if let firstCard {
            var previous = 0
            for review in reviews.sorted(by: { $0.date < $1.date }) {
                guard let time = Self.checkedInt64(review.date.timeIntervalSince1970 * 1000),
                      let duration = Self.checkedInt64(review.duration * 1000) else {
                    throw NoteInputError("a review has a date or duration out of range")
                }
                for value: SQLValue in [.integer(nextReview), .integer(time), .integer(Int64(min(4, max(0, review.ease)))),
                                        .integer(Int64(review.interval)), .integer(Int64(previous)),
                                        .integer(min(86_400_000, max(0, duration))), .integer(firstCard)] {
                    reviewRows.append(value)
                }
                try reviewRows.endRow()
                nextReview += 1
                previous = review.interval
            }
        }
        if type == 0 { nextPosition += 1 }
        notesAdded += 1
    }

    /// Notes that a note type, deck or note is referred to (``checkForeignKeys(_:)``).
    @inline(__always) func referNoteType(_ key: Int64) {
        if key != lastNoteType {
            referencedNoteTypes.insert(key)
            lastNoteType = key
        }
    }
    @inline(__always) func referDeck(_ key: Int64) {
        if key != lastDeck {
            referencedDecks.insert(key)
            lastDeck = key
        }
    }
    @inline(__always) func referNote(_ key: Int64) {
        if key < firstNewNote { referencedOldNotes.insert(key) }
    }

    /// Adds a card row (the columns a note of ``add(_:tags:media:reviews:)`` sets; the others
    /// take their defaults) to the pending rows.
    private func addCardRow(_ key: Int64, ordinal: Int64, type: Int64, queue: Int64, due: Int64, interval: Int64, easeFactor: Int64,
                            repetitions: Int64, lapses: Int64, created: Date, modified: Date, note: Int64, deck: Int64) throws {
        try cardRows.gatherRow { row in
            row.append(integer: key)
            row.append(integer: ordinal)
            row.append(integer: type)
            row.append(integer: queue)
            row.append(integer: due)
            row.append(integer: interval)
            row.append(integer: easeFactor)
            row.append(integer: repetitions)
            row.append(integer: lapses)
            row.append(real: created.timeIntervalSince1970)
            row.append(real: modified.timeIntervalSince1970)
            row.append(integer: note)
            row.append(integer: deck)
        }
        referNote(note)
        referDeck(deck)
    }

    /// Writes a new card (new, at the next position) of ordinal `ordinal` for a saved note.
    func insertNewCard(ordinal: Int, note noteKey: Int64, deck deckKey: Int64, at date: Date) throws {
        let cardKey = nextCard
        nextCard += 1
        try addCardRow(cardKey, ordinal: Int64(ordinal), type: 0, queue: 0, due: nextPosition, interval: 0, easeFactor: 0,
                       repetitions: 0, lapses: 0, created: date, modified: date, note: noteKey, deck: deckKey)
        nextPosition += 1
        cardsAdded += 1
    }

    /// Links a note to a tag (both keys).
    func linkTag(_ note: Int64, _ tag: Int64) throws {
        try tagLinkRows.gatherRow { row in
            row.append(integer: note)
            row.append(integer: tag)
        }
        referNote(note)
    }
    /// Links a note to a media name (both keys).
    func linkMedia(_ note: Int64, _ name: Int64) throws {
        mediaLinkRows.append(integer: note)
        mediaLinkRows.append(integer: name)
        try mediaLinkRows.endRow()
        referNote(note)
    }

    /// Writes every pending row (``RowBatch``): before anything reads the tables they go to, and
    /// at the end of the import.
    /// - Throws: ``DeckError`` when the store fails (a full disk, a constraint).
    func flushRows() throws {
        do {
            try noteRows.flush()
            try cardRows.flush()
            try reviewRows.flush()
            try tagLinkRows.flush()
            try mediaLinkRows.flush()
            if let records {
                try records.note.flush()
                try records.card.flush()
                try records.review.flush()
            }
        } catch {
            throw DeckError(path: document.url.path, reason: "can't write the imported notes: \(error.message)", kind: DeckError.kind(of: error))
        }
    }

    /// Whether a note added by this import and not written yet has `guid`.
    func hasPendingNote(guid: String) -> Bool {
        let value = SQLValue.text(guid)
        return noteRows.pendingRowHas(value, at: 1) || (records?.note.pendingRowHas(value, at: 1) ?? false)
    }

    /// Sets the deck's day zero (the Unix time day-numbered `due` values count from), when the
    /// deck has no cards yet; returns the day zero in force. An importer whose day numbers
    /// count from another day shifts them by the difference.
    /// - Throws: the store's error.
    public func adoptDayZero(_ value: Int64) throws -> Int64 {
        try flushRows()
        return try document.container.withDatabase(for: Note.self) { db in
            let cards = try db.scalar("SELECT count(*) FROM \"Card\"", as: Int64.self) ?? 0
            if cards == 0 {
                try db.execute("UPDATE \"DeckInfo\" SET \"dayZero\" = ?", [.integer(value)])
                return value
            }
            return try db.scalar("SELECT \"dayZero\" FROM \"DeckInfo\" ORDER BY \"pk\" LIMIT 1", as: Int64.self) ?? 0
        }
    }

    /// Stores another program's collection configuration (a JSON object) in the deck, when
    /// the deck has none yet (`DeckInfo.ankiConfig`), and the day's start hour from it.
    /// - Throws: the store's error.
    public func adoptCollectionConfig(_ json: String, dayStartsAt: Int?) throws {
        try document.container.withDatabase(for: Note.self) { db in
            try db.execute("UPDATE \"DeckInfo\" SET \"ankiConfig\" = ? WHERE \"ankiConfig\" = '{}'", [.text(json)])
            if let dayStartsAt, (0...23).contains(dayStartsAt) {
                try db.execute("UPDATE \"DeckInfo\" SET \"dayStartsAt\" = ?", [.integer(Int64(dayStartsAt))])
            }
        }
    }

    /// Creates tags no note needs to carry.
    /// - Throws: the store's error.
    public func ensureTags(_ names: [String]) throws {
        for name in names { _ = try tagKey(name) }
    }

    /// Marks tags as collapsed (in a browser's tag tree, as Anki keeps them), creating those
    /// no note carries.
    /// - Throws: the store's error.
    public func collapseTags(_ names: [String]) throws {
        for name in names {
            guard let key = try tagKey(name) else { continue }
            try document.container.withDatabase(for: Note.self) { db in
                try db.execute("UPDATE \"Tag\" SET \"collapsed\" = 1 WHERE \"pk\" = ?", [.integer(key)])
            }
        }
    }

    /// Writes the notes added so far (they are written in groups, see ``RowBatch``): for
    /// importers that read the deck's notes through other means before the import ends. The
    /// session's own methods write them when they need to.
    /// - Throws: ``DeckError`` when the store fails.
    public func flush() throws { try flushRows() }

    // MARK: Foreign keys checked at the end

    /// The tables the import writes in groups (``RowBatch``), whose foreign keys
    /// ``checkForeignKeys(_:)`` checks by the keys the rows refer to.
    static let groupedTables: Set<String> = ["Note", "Card", "Review", "Note_tags", "Note_media"]

    /// Foreign key violations (`PRAGMA foreign_key_check`) in the tables with foreign keys
    /// other than ``groupedTables``: the few rows of note types' fields and templates, decks and
    /// media names, which the main context writes.
    static func otherTablesViolations(_ db: Database, grouped: Bool = false) throws -> Int {
        let tables = try db.rows("""
            SELECT DISTINCT m."name" FROM sqlite_schema m, pragma_foreign_key_list(m."name") f WHERE m."type" = 'table' ORDER BY 1
            """).compactMap { row -> String? in
            guard case .text(let name) = row.first, groupedTables.contains(name) == grouped else { return nil }
            return name
        }
        return try tables.reduce(0) { $0 + (try db.rows("PRAGMA foreign_key_check(\(quoteIdentifier($1)))").count) }
    }

    /// Called at the start of an import that runs with foreign keys off
    /// (``DeckDocument/ForeignKeyChecking/atEnd``).
    func startCheckingForeignKeys(_ db: Database) throws {
        violationsBefore = try Self.otherTablesViolations(db)
        groupedViolationsBefore = try Self.otherTablesViolations(db, grouped: true)
    }

    /// Checks, at the end of an import that ran with foreign keys off, every foreign key the
    /// import may have broken, and throws what SQLite's check at the commit throws
    /// (`SQLITE_CONSTRAINT_FOREIGNKEY`, "FOREIGN KEY constraint failed") if one is.
    ///
    /// The rows written in groups refer to new notes and cards (their keys run from the first
    /// new key up, one per row written: all of them there when the count of rows from that key
    /// is the count written), or to the parent rows noted as they were written (note types,
    /// decks, tags, media names, notes that were in the deck before), each looked up once. The
    /// other tables (few rows) are checked whole, and may not have more violations than before.
    ///
    /// Cost: three counts over the new keys' range (about 10 ms for 100,000 notes) and a look-up
    /// per distinct parent; SQLite's own checks cost a parent look-up per row and key
    /// (~0.35 s per 100,000 notes with their cards).
    func checkForeignKeys(_ db: Database) throws {
        let broken = DatabaseError(extendedCode: DatabaseError.constraintForeignKey, message: "FOREIGN KEY constraint failed",
                                   sql: "RELEASE bulk_import")
        for (table, first, next) in [("Note", firstNewNote, nextNote), ("Card", firstNewCard, nextCard), ("Review", firstNewReview, nextReview)] {
            let count = try db.scalar("SELECT count(*) FROM \(quoteIdentifier(table)) WHERE \"pk\" >= ?", [.integer(first)], as: Int64.self)
            guard count == next - first else {
                // Rows written by other means (a restore's own SQL): SQLite's check of every row decides.
                guard try Self.otherTablesViolations(db, grouped: true) <= groupedViolationsBefore,
                      try Self.otherTablesViolations(db) <= violationsBefore else { throw broken }
                return
            }
        }
        for (table, keys) in [("NoteType", referencedNoteTypes), ("Deck", referencedDecks), ("Tag", referencedTags),
                              ("MediaName", referencedMedia), ("Note", referencedOldNotes)] where !keys.isEmpty {
            let find = try db.prepare("SELECT 1 FROM \(quoteIdentifier(table)) WHERE \"pk\" = ?")
            for key in keys {
                try find.bind([.integer(key)])
                defer { find.reset() }
                guard try find.step() else { throw broken }
            }
        }
        guard try Self.otherTablesViolations(db) <= violationsBefore else { throw broken }
    }

    // MARK: Resolving keys

    private func noteType(of note: ImportedNote) throws -> WrittenType {
        if let type = note.noteType {
            let key = try savedKey(of: type)
            if let known = otherTypes[key] { return known }
            let written = WrittenType(key: key, layout: document.layout(of: type), sortField: type.sortField)
            otherTypes[key] = written
            return written
        }
        if let known = types[note.kind] { return known }
        let type = try document.stockNoteType(note.kind)
        let written = WrittenType(key: try savedKey(of: type), layout: document.layout(of: type), sortField: type.sortField)
        types[note.kind] = written
        return written
    }

    /// The key of a model of the main context, saving the context first when it is new.
    func savedKey(of model: some PersistentModel) throws -> Int64 {
        if model.persistentModelID.isTemporary {
            try flushRows()
            try document.saveIndexingNotes()
        }
        return model.persistentModelID.primaryKey
    }

    func deckKey(_ path: String?) throws -> Int64 {
        if let last = lastDeckLookup, last.path == path { return last.key }
        let key = try deckKey(named: path.flatMap { $0.isEmpty ? nil : $0 } ?? DeckStoreV2.defaultDeckName)
        lastDeckLookup = (path, key)
        return key
    }

    private func deckKey(named name: String) throws -> Int64 {
        if let key = deckKeys[name] { return key }
        let deck: DeckSchemaV2.Deck
        do {
            deck = try document.deck(named: name)
        } catch is NoteInputError {
            deck = try document.deck(named: DeckStoreV2.defaultDeckName)
        }
        let key = try savedKey(of: deck)
        deckKeys[name] = key
        return key
    }

    func tagKey(_ raw: String) throws -> Int64? {
        // Most tags come again and again as the same text: trimming and folding it once is enough.
        if let key = tagKeysAsGiven[raw] { return key }
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { return nil }
        let folded = name.lowercased()
        if let key = tagKeys[folded] {
            tagKeysAsGiven[raw] = key
            referencedTags.insert(key)
            return key
        }
        let key = nextTag
        nextTag += 1
        try insertTag.execute([.integer(key), .text(name)])
        tagKeys[folded] = key
        tagKeysAsGiven[raw] = key
        referencedTags.insert(key)
        return key
    }

    func mediaKey(_ name: String) throws -> Int64? {
        if let known = mediaKeys[name] { return known }
        let key = try document.container.withDatabase(for: Note.self) { db in
            try db.scalar("SELECT \"pk\" FROM \"MediaName\" WHERE \"name\" = ?", [.text(name)], as: Int64.self)
                ?? db.scalar("""
                    SELECT m."pk" FROM "MediaName" m JOIN "MediaFile" f ON f."pk" = m."file" WHERE f."fileName" = ? ORDER BY m."pk" LIMIT 1
                    """, [.text(name)], as: Int64.self)
        }
        mediaKeys[name] = key
        if let key { referencedMedia.insert(key) }
        return key
    }

    /// The card type, queue, due value and ease factor of a note's cards (docs/FORMAT.md): new
    /// cards at the next position, cards with a due date review cards due on the nearest day.
    private func scheduling(of note: ImportedNote) throws -> (Int64, Int64, Int64, Int64) {
        guard let due = note.due else { return (0, 0, nextPosition, 0) }
        guard let seconds = Self.checkedInt64(due.timeIntervalSince1970.rounded(.down)),
              (-1_000_000_000_000...1_000_000_000_000).contains(seconds),
              let factor = Self.checkedInt64(note.ease * 1000), (0...100_000).contains(factor) else {
            throw NoteInputError("a card has a due date or ease out of range")
        }
        // The nearest day (an import's dates are day-accurate already; rounding down would move
        // a date that starts a day in another program's calendar a day earlier at each round trip).
        guard let day = Self.checkedInt64((Double(seconds) - Double(dayZero)) / 86_400) else {
            throw NoteInputError("a card's due date is out of range")
        }
        return (2, 2, day, factor)
    }

    static func checkedInt64(_ value: Double) -> Int64? {
        guard value.isFinite else { return nil }
        return Int64(exactly: value.rounded())
    }
}
