import Foundation
import SQLite

/// Builds a schema 11 Anki collection (what `collection.anki2`/`collection.anki21` hold) in one
/// SQLite transaction with prepared statements; note types and decks go into `col` as JSON at
/// ``finish()``; indexes, when wanted, are built once at the end.
///
/// The file is scratch space (it is zipped, then deleted), so journaling and syncing are off.
package final class AnkiCollectionWriter {
    private let database: Database
    private let url: URL
    private let creationTime: Int64
    private let buildsIndexes: Bool
    private let modifiedMillis: Int64
    private var noteTypes: [Int64: AnkiNoteType] = [:]
    private var cardRules: [Int64: CardRules] = [:]
    private var noteTypeOrder: [Int64] = []
    private var decks: [Int64: AnkiDeck] = [:]
    private var presets: [Int64: AnkiPreset] = [:]
    private var configurationJSON: String?
    /// The tags notes use, for `col.tags`.
    private var tags: Set<String> = []
    /// The last note and card added: a note's cards and a card's reviews usually follow it,
    /// so checking that their note or card exists rarely needs a query. (Ids are checked for
    /// duplicates by the tables' primary keys, not by sets in memory: hashing 200,000 ids was
    /// 5 % of an export.)
    private var lastNoteID: Int64?
    private var lastCardID: Int64?
    private var lookups: [String: Statement] = [:]
    private var nextGeneratedID: Int64
    private var nextNewPosition: Int64 = 1
    /// Draws GUIDs; seeded once from the system's generator (one getrandom call, not one per note).
    private var random: FastRandom
    private var finished = false
    /// The insert statements; released (nil) once the collection is finished or cancelled.
    private var statements: (note: Statement, card: Statement, review: Statement)?

    /// Creates the collection file at `url` (which must not exist) and opens its transaction.
    ///
    /// - Parameters:
    ///   - creationTime: `col.crt`, seconds since 1970; review cards' `due` counts days from it.
    ///   - buildsIndexes: whether to build schema 11's indexes at the end. Anki builds its own
    ///     when it opens (upgrades) an imported collection, so they only cost time here.
    package init(url: URL, creationTime: Int64, buildsIndexes: Bool = false, now: Date = Date()) throws {
        self.url = url
        self.creationTime = creationTime
        self.buildsIndexes = buildsIndexes
        modifiedMillis = Int64(now.timeIntervalSince1970 * 1000)
        nextGeneratedID = modifiedMillis
        var system = SystemRandomNumberGenerator()
        random = FastRandom(seed: system.next())
        do {
            database = try Database(path: url.path, mode: .create)
            // A new file of ours, built in one go and thrown away on failure: no journal.
            try database.allowUnsafeJournalModes()
            try database.execute("""
                PRAGMA journal_mode = OFF;
                PRAGMA synchronous = OFF;
                PRAGMA foreign_keys = OFF;
                PRAGMA locking_mode = EXCLUSIVE;
                PRAGMA cache_size = -8192;
                """)
            try database.execute(Self.schema)
            try database.execute("BEGIN IMMEDIATE")
            let insertNote = try database.prepare(
                "INSERT INTO notes (id, guid, mid, mod, usn, tags, flds, sfld, csum, flags, data) VALUES (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, '')")
            let insertCard = try database.prepare("""
                INSERT INTO cards (id, nid, did, ord, mod, usn, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags, data)
                VALUES (?, ?, ?, ?, ?, -1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let insertReview = try database.prepare(
                "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) VALUES (?, ?, -1, ?, ?, ?, ?, ?, ?)")
            statements = (insertNote, insertCard, insertReview)
        } catch {
            throw AnkiError(.io, path: url.path, reason: "cannot create the collection: \(error.message)")
        }
        decks[1] = AnkiDeck(id: 1, name: "Default")
    }

    deinit { closeDatabase() }

    /// Finalizes the prepared statements and closes the connection (SQLite keeps a connection,
    /// and its exclusive lock, alive while statements remain).
    private func closeDatabase() {
        statements = nil
        lookups.removeAll()
        database.close()
    }

    /// The card ordinals Anki would generate for `note` (whose note type was added), at least `[0]`.
    package func cardOrdinals(for note: AnkiNote) -> [Int] {
        cardRules[note.noteTypeID]?.ordinals(for: note.fields) ?? [0]
    }

    /// Whether a deck with `id` was added (deck 1, "Default", always exists).
    package func hasDeck(_ id: Int64) -> Bool { decks[id] != nil }

    /// A fresh id, above every id handed out or seen so far (millisecond-timestamp style).
    package func generateID() -> Int64 {
        nextGeneratedID += 1
        return nextGeneratedID
    }

    /// Adds or replaces a preset (deck config); id 1 replaces Anki's default one.
    package func add(_ preset: AnkiPreset) throws {
        try checkOpen()
        presets[preset.id] = preset
        seen(preset.id)
    }

    /// Sets the collection configuration (`col.conf`), a JSON object laid over the writer's
    /// (whose `nextPos` wins when higher).
    package func setConfiguration(legacyJSON: String) throws {
        try checkOpen()
        configurationJSON = legacyJSON
    }

    /// Adds or replaces a note type.
    package func add(_ noteType: AnkiNoteType) throws {
        try checkOpen()
        guard !noteType.fields.isEmpty else { throw invalid("note type \"\(noteType.name)\" has no fields") }
        guard !noteType.templates.isEmpty else { throw invalid("note type \"\(noteType.name)\" has no templates") }
        guard noteType.sortFieldIndex >= 0, noteType.sortFieldIndex < noteType.fields.count else {
            throw invalid("note type \"\(noteType.name)\" sorts by field \(noteType.sortFieldIndex), which it lacks")
        }
        guard !noteType.name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw invalid("note type \(noteType.id) has an empty name")
        }
        if noteTypes.updateValue(noteType, forKey: noteType.id) == nil { noteTypeOrder.append(noteType.id) }
        cardRules[noteType.id] = CardRules(noteType)
        seen(noteType.id)
    }

    /// Adds or replaces a deck; its parents (`A` of `A::B`) are created at ``finish()`` if missing.
    package func add(_ deck: AnkiDeck) throws {
        try checkOpen()
        guard !deck.path.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            throw invalid("deck name \"\(deck.name)\" has an empty part")
        }
        decks[deck.id] = deck
        seen(deck.id)
    }

    /// Inserts a note; computes `sfld` and `csum`, gives it a GUID when it has none and an id when its id is 0.
    @discardableResult
    package func add(_ note: AnkiNote) throws -> AnkiNote {
        try checkOpen()
        guard let noteType = noteTypes[note.noteTypeID] else {
            throw invalid("note \(note.id) uses note type \(note.noteTypeID), which was not added")
        }
        guard note.fields.count == noteType.fields.count else {
            throw invalid("note \(note.id) has \(note.fields.count) fields; note type \"\(noteType.name)\" has \(noteType.fields.count)")
        }
        var note = note
        if note.id == 0 { note.id = generateID() } else { seen(note.id) }
        if note.guid.isEmpty { note.guid = AnkiText.newGUID(using: &random) }
        if note.modified == 0 { note.modified = modifiedMillis / 1000 }
        let sortField = AnkiText.stripHTMLPreservingMediaFilenames(note.fields[noteType.sortFieldIndex])
        for tag in note.tags { tags.insert(tag) }
        guard let statement = statements?.note else { throw closedError() }
        statement.bind(int64: note.id, at: 1)
        statement.bind(text: note.guid, at: 2)
        statement.bind(int64: note.noteTypeID, at: 3)
        statement.bind(int64: note.modified, at: 4)
        statement.bind(text: AnkiText.joinTags(note.tags), at: 5)
        statement.bind(text: AnkiText.joinFields(note.fields), at: 6)
        if let number = Int64(sortField), String(number) == sortField {
            statement.bind(int64: number, at: 7)   // Anki stores numeric sort fields as integers
        } else {
            statement.bind(text: sortField, at: 7)
        }
        statement.bind(int64: Int64(AnkiText.checksum(ofFirstField: note.fields[0])), at: 8)
        try run(statement, "notes", duplicate: "note id \(note.id) was added twice")
        lastNoteID = note.id
        return note
    }

    /// Inserts a card; gives it an id when its id is 0, and a new-card position when it is new with `due` 0.
    @discardableResult
    package func add(_ card: AnkiCard) throws -> AnkiCard {
        try add(card, keepsDue: false)
    }

    /// Inserts a card with its `data` (FSRS memory state, custom data, other keys: ``AnkiCard/encodedData``);
    /// with `keepsDue`, a new card's `due` is written as given even when 0.
    @discardableResult
    package func add(_ card: AnkiCard, keepsDue: Bool) throws -> AnkiCard {
        try checkOpen()
        guard try card.noteID == lastNoteID || has("notes", card.noteID) else { throw invalid("card \(card.id) belongs to note \(card.noteID), which was not added") }
        guard decks[card.deckID] != nil else { throw invalid("card \(card.id) is in deck \(card.deckID), which was not added") }
        var card = card
        if card.id == 0 { card.id = generateID() } else { seen(card.id) }
        if card.modified == 0 { card.modified = modifiedMillis / 1000 }
        if !keepsDue && card.queue == .new && card.type == .new && card.due == 0 {
            card.due = nextNewPosition
        }
        if card.type == .new { nextNewPosition = max(nextNewPosition, card.due + 1) }
        guard let s = statements?.card else { throw closedError() }
        s.bind(int64: card.id, at: 1)
        s.bind(int64: card.noteID, at: 2)
        s.bind(int64: card.deckID, at: 3)
        s.bind(int64: Int64(card.ordinal), at: 4)
        s.bind(int64: card.modified, at: 5)
        s.bind(int64: Int64(card.type.rawValue), at: 6)
        s.bind(int64: Int64(card.queue.rawValue), at: 7)
        s.bind(int64: card.due, at: 8)
        s.bind(int64: card.interval, at: 9)
        s.bind(int64: card.factor, at: 10)
        s.bind(int64: card.reps, at: 11)
        s.bind(int64: card.lapses, at: 12)
        s.bind(int64: card.left, at: 13)
        s.bind(int64: card.originalDue, at: 14)
        s.bind(int64: card.originalDeckID, at: 15)
        s.bind(int64: Int64(card.flags), at: 16)
        // Most cards have nothing in `data`: no JSON work for them.
        let empty = card.stability == nil && card.difficulty == nil && card.desiredRetention == nil && card.decay == nil
            && card.lastReview == nil && card.originalPosition == nil && card.customData.isEmpty
            && (card.otherData.isEmpty || card.otherData == "{}")
        s.bind(text: empty ? "" : card.encodedData, at: 17)
        try run(s, "cards", duplicate: "card id \(card.id) was added twice")
        lastCardID = card.id
        return card
    }

    /// Inserts a review-history entry.
    package func add(_ review: AnkiReview) throws {
        try checkOpen()
        guard try review.cardID == lastCardID || has("cards", review.cardID) else {
            throw invalid("review \(review.id) is of card \(review.cardID), which was not added")
        }
        guard let s = statements?.review else { throw closedError() }
        s.bind(int64: review.id, at: 1)
        s.bind(int64: review.cardID, at: 2)
        s.bind(int64: Int64(review.ease), at: 3)
        s.bind(int64: review.interval, at: 4)
        s.bind(int64: review.lastInterval, at: 5)
        s.bind(int64: review.factor, at: 6)
        s.bind(int64: review.timeTaken, at: 7)
        s.bind(int64: Int64(review.kind.rawValue), at: 8)
        try run(s, "revlog")
    }

    /// Writes `col` (note types, decks and configuration as JSON), builds the indexes, commits
    /// and closes the file.
    package func finish() throws {
        try checkOpen()
        finished = true
        addMissingParentDecks()
        let json = LegacyCollectionJSON(creationTime: creationTime, modifiedMillis: modifiedMillis,
                                        nextNewPosition: nextNewPosition)
        do {
            try database.execute("INSERT INTO col VALUES (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, ?)", [
                .integer(creationTime), .integer(modifiedMillis), .integer(modifiedMillis),
                .text(json.configuration(currentNoteType: noteTypeOrder.first ?? 0, over: configurationJSON)),
                .text(json.noteTypes(noteTypeOrder.compactMap { noteTypes[$0] })),
                .text(json.decks(decks.values.sorted { $0.id < $1.id })),
                .text(json.deckConfigurations(presets.values.sorted { $0.id < $1.id })),
                .text(json.tags(tags)),
            ])
            if buildsIndexes { try database.execute(Self.indexes) }
            try database.execute("COMMIT")
            try database.execute("PRAGMA journal_mode = DELETE")
        } catch {
            closeDatabase()
            throw AnkiError(.io, path: url.path, reason: "cannot write the collection: \(error.message)")
        }
        closeDatabase()
    }

    /// Abandons the collection (the caller deletes the file).
    package func cancel() {
        finished = true
        closeDatabase()
    }

    // MARK: - Helpers

    private func seen(_ id: Int64) {
        if id > nextGeneratedID && id < Int64.max - 1_000_000 { nextGeneratedID = id }
    }

    private func checkOpen() throws {
        if finished { throw closedError() }
    }

    private func closedError() -> AnkiError {
        AnkiError(.closed, path: url.path, reason: "the collection was already finished")
    }

    private func invalid(_ reason: String) -> AnkiError {
        AnkiError(.invalidInput, path: url.path, reason: reason)
    }

    /// Runs an insert; `duplicate` is the error when its primary key is taken.
    private func run(_ statement: Statement, _ table: String, duplicate: @autoclosure () -> String? = nil) throws {
        do {
            try statement.step()
            statement.reset()
        } catch {
            statement.reset()
            if error.extendedCode == DatabaseError.constraintPrimaryKey, let duplicate = duplicate() { throw invalid(duplicate) }
            throw AnkiError(.io, path: url.path, reason: "cannot insert into \(table): \(error.message)")
        }
    }

    /// Whether `table` (notes or cards) has a row with `id`.
    private func has(_ table: String, _ id: Int64) throws -> Bool {
        do {
            let query: Statement
            if let prepared = lookups[table] {
                query = prepared
            } else {
                query = try database.prepare("SELECT 1 FROM \(table) WHERE id = ?")
                lookups[table] = query
            }
            defer { query.reset() }
            query.bind(int64: id, at: 1)
            return try query.step()
        } catch {
            throw AnkiError(.io, path: url.path, reason: "cannot read the \(table): \(error.message)")
        }
    }

    /// Anki requires every parent of `A::B::C` to exist; adds the missing ones with fresh ids.
    private func addMissingParentDecks() {
        var names = Set(decks.values.map { $0.name.lowercased() })
        for deck in decks.values.sorted(by: { $0.id < $1.id }) {
            let parts = deck.path
            guard parts.count > 1 else { continue }
            for depth in 1..<parts.count {
                let parent = parts[0..<depth].joined(separator: "::")
                if names.insert(parent.lowercased()).inserted {
                    let id = generateID()
                    decks[id] = AnkiDeck(id: id, name: parent)
                }
            }
        }
    }

    /// Schema 11, as Anki 2.1 created it (`ver` 11).
    static let schema = """
        CREATE TABLE col (
            id integer PRIMARY KEY, crt integer NOT NULL, mod integer NOT NULL, scm integer NOT NULL,
            ver integer NOT NULL, dty integer NOT NULL, usn integer NOT NULL, ls integer NOT NULL,
            conf text NOT NULL, models text NOT NULL, decks text NOT NULL, dconf text NOT NULL, tags text NOT NULL);
        CREATE TABLE notes (
            id integer PRIMARY KEY, guid text NOT NULL, mid integer NOT NULL, mod integer NOT NULL,
            usn integer NOT NULL, tags text NOT NULL, flds text NOT NULL, sfld integer NOT NULL,
            csum integer NOT NULL, flags integer NOT NULL, data text NOT NULL);
        CREATE TABLE cards (
            id integer PRIMARY KEY, nid integer NOT NULL, did integer NOT NULL, ord integer NOT NULL,
            mod integer NOT NULL, usn integer NOT NULL, type integer NOT NULL, queue integer NOT NULL,
            due integer NOT NULL, ivl integer NOT NULL, factor integer NOT NULL, reps integer NOT NULL,
            lapses integer NOT NULL, left integer NOT NULL, odue integer NOT NULL, odid integer NOT NULL,
            flags integer NOT NULL, data text NOT NULL);
        CREATE TABLE revlog (
            id integer PRIMARY KEY, cid integer NOT NULL, usn integer NOT NULL, ease integer NOT NULL,
            ivl integer NOT NULL, lastIvl integer NOT NULL, factor integer NOT NULL, time integer NOT NULL,
            type integer NOT NULL);
        CREATE TABLE graves (usn integer NOT NULL, oid integer NOT NULL, type integer NOT NULL);
        """

    /// Schema 11's indexes, built after the bulk insert.
    static let indexes = """
        CREATE INDEX ix_notes_usn ON notes (usn);
        CREATE INDEX ix_cards_usn ON cards (usn);
        CREATE INDEX ix_revlog_usn ON revlog (usn);
        CREATE INDEX ix_cards_nid ON cards (nid);
        CREATE INDEX ix_cards_sched ON cards (did, queue, due);
        CREATE INDEX ix_revlog_cid ON revlog (cid);
        CREATE INDEX ix_notes_csum ON notes (csum);
        """
}

/// xoshiro256** seeded by SplitMix64: fast, statistically strong, not for secrets (GUIDs need
/// only to be unique).
struct FastRandom: RandomNumberGenerator {
    private var s0, s1, s2, s3: UInt64

    init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix(); s1 = splitMix(); s2 = splitMix(); s3 = splitMix()
    }

    mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }
}
