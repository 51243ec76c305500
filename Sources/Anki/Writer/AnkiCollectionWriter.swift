import Foundation
import SQLite

/// Builds an Anki collection in one SQLite transaction with prepared statements: schema 11 (what
/// `collection.anki2`/`collection.anki21` hold; note types, decks, presets and configuration go
/// into `col` as JSON at ``finish()``) or schema 18 (what current Anki's `collection.anki21b`
/// holds; the same objects converted into the `notetypes`, `fields`, `templates`, `decks`,
/// `deck_config`, `config` and `tags` rows as Anki converts them, ``Schema18Rows``). Indexes,
/// when wanted (always for schema 18, whose unique name indexes Anki relies on), are built once
/// at the end.
///
/// The file is scratch space (it is zipped, then deleted), so journaling and syncing are off.
package final class AnkiCollectionWriter {
    private let database: Database
    private let url: URL
    private let creationTime: Int64
    private let buildsIndexes: Bool
    /// 11 or 18.
    private let schemaVersion: Int
    private let modifiedMillis: Int64
    /// Whether a modification time of 0 is written as the time of writing (``init``'s `stampsZeroTimes`).
    private let stampsZeroTimes: Bool
    private var noteTypes: [Int64: AnkiNoteType] = [:]
    private var cardRules: [Int64: CardRules] = [:]
    private var noteTypeOrder: [Int64] = []
    private var decks: [Int64: AnkiDeck] = [:]
    private var presets: [Int64: AnkiPreset] = [:]
    private var configurationJSON: String?
    private var configurationReplacesDefaults = false
    /// The tags notes use, for `col.tags`.
    private var tags: Set<String> = []
    /// The tags marked collapsed (schema 18's `tags.collapsed`).
    private var collapsedTags: Set<String> = []
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
    ///   - schemaVersion: 11 (legacy) or 18 (current).
    ///   - stampsZeroTimes: whether a modification time of 0 means the time of writing (values
    ///     built for a new package) or is written as 0 (values exported as stored).
    package init(url: URL, creationTime: Int64, buildsIndexes: Bool = false, schemaVersion: Int = 11,
                 stampsZeroTimes: Bool = true, now: Date = Date()) throws {
        self.stampsZeroTimes = stampsZeroTimes
        self.url = url
        self.creationTime = creationTime
        self.schemaVersion = schemaVersion == 18 ? 18 : 11
        self.buildsIndexes = buildsIndexes || schemaVersion == 18
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
            if self.schemaVersion == 18 {
                // Anki declares its names `COLLATE unicase`: no table or index of them exists without it.
                try database.registerCaseFoldingCollation(named: "unicase")
                try database.execute(Self.schema + Self.schema18)
            } else {
                try database.execute(Self.schema + Self.graves11)
            }
            try database.execute("BEGIN IMMEDIATE")
            let insertNote = try database.prepare(
                "INSERT INTO notes (id, guid, mid, mod, usn, tags, flds, sfld, csum, flags, data) VALUES (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, '')")
            let insertCard = try database.prepare("""
                INSERT INTO cards (id, nid, did, ord, mod, usn, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags, data)
                VALUES (?, ?, ?, ?, ?, -1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let insertReview = try database.prepare(
                "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
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
    package func setConfiguration(legacyJSON: String, replacingDefaults: Bool = false) throws {
        try checkOpen()
        configurationJSON = legacyJSON
        configurationReplacesDefaults = replacingDefaults
    }

    /// Marks tags collapsed (schema 18 keeps it in `tags.collapsed`; schema 11 has no such state),
    /// registering those no note carries.
    package func collapseTags(_ names: [String]) throws {
        try checkOpen()
        for name in names where !name.isEmpty {
            tags.insert(name)
            collapsedTags.insert(name)
        }
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
        if note.modified == 0 && stampsZeroTimes { note.modified = modifiedMillis / 1000 }
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
        if card.modified == 0 && stampsZeroTimes { card.modified = modifiedMillis / 1000 }
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
        s.bind(int64: Int64(review.usn), at: 3)
        s.bind(int64: Int64(review.ease), at: 4)
        s.bind(int64: review.interval, at: 5)
        s.bind(int64: review.lastInterval, at: 6)
        s.bind(int64: review.factor, at: 7)
        s.bind(int64: review.timeTaken, at: 8)
        s.bind(int64: Int64(review.kind.rawValue), at: 9)
        try run(s, "revlog")
    }

    /// Writes `col` (note types, decks and configuration as JSON), builds the indexes, commits
    /// and closes the file.
    package func finish() throws {
        try checkOpen()
        finished = true
        addMissingParentDecks()
        makeNoteTypeNamesUnique()
        var json = LegacyCollectionJSON(creationTime: creationTime, modifiedMillis: modifiedMillis,
                                        nextNewPosition: nextNewPosition)
        json.stampsZeroTimes = stampsZeroTimes
        do {
            if schemaVersion == 18 {
                try writeSchema18Tables(json)
            } else {
                try database.execute("INSERT INTO col VALUES (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, ?)", [
                    .integer(creationTime), .integer(modifiedMillis), .integer(modifiedMillis),
                    .text(json.configuration(currentNoteType: noteTypeOrder.first ?? 0, over: configurationJSON,
                                             replacingDefaults: configurationReplacesDefaults)),
                    .text(json.noteTypes(noteTypeOrder.compactMap { noteTypes[$0] })),
                    .text(json.decks(decks.values.sorted { $0.id < $1.id })),
                    .text(json.deckConfigurations(presets.values.sorted { $0.id < $1.id })),
                    .text(json.tags(tags)),
                ])
            }
            if buildsIndexes { try database.execute(schemaVersion == 18 ? Self.indexes + Self.indexes18 : Self.indexes) }
            try database.execute("COMMIT")
            try database.execute("PRAGMA journal_mode = DELETE")
        } catch let error as UnencodableJSON {
            closeDatabase()
            throw AnkiError(.invalidInput, path: url.path,
                            reason: "cannot write the options \(error.keys.joined(separator: ", ")) as JSON (a number that is not finite?)")
        } catch {
            closeDatabase()
            let message = (error as? DatabaseError)?.message ?? String(describing: error)
            throw AnkiError(.io, path: url.path, reason: "cannot write the collection: \(message)")
        }
        closeDatabase()
    }

    /// Abandons the collection (the caller deletes the file).
    package func cancel() {
        finished = true
        closeDatabase()
    }

    /// Schema 18's `col` row and tables: the schema-11 objects converted row by row.
    private func writeSchema18Tables(_ json: LegacyCollectionJSON) throws {
        let seconds = modifiedMillis / 1000
        try database.execute("INSERT INTO col VALUES (1, ?, ?, ?, 18, 0, 0, 0, '', '', '', '', '')", [
            .integer(creationTime), .integer(modifiedMillis), .integer(modifiedMillis),
        ])
        let insertType = try database.prepare("INSERT INTO notetypes (id, name, mtime_secs, usn, config) VALUES (?, ?, ?, ?, ?)")
        let insertField = try database.prepare("INSERT INTO fields (ntid, ord, name, config) VALUES (?, ?, ?, ?)")
        let insertTemplate = try database.prepare(
            "INSERT INTO templates (ntid, ord, name, mtime_secs, usn, config) VALUES (?, ?, ?, ?, ?, ?)")
        for type in noteTypeOrder.compactMap({ noteTypes[$0] }) {
            let times = type.templates.map { template in
                (mtime: template.modified != 0 || !stampsZeroTimes ? template.modified : seconds,
                 usn: Schema18Rows.optionalInt((LegacyCollectionJSON.parse(template.options) as? [String: Any])?["usn"]) ?? -1)
            }
            let row = try Schema18Rows.noteType(json.noteTypeObject(type), templateTimes: times)
            try insertType.bind([.integer(row.id), .text(row.name), .integer(row.mtime), .integer(row.usn), .blob(Data(row.config))])
            try insertType.step()
            insertType.reset()
            for field in row.fields {
                try insertField.bind([.integer(row.id), .integer(Int64(field.ordinal)), .text(field.name), .blob(Data(field.config))])
                try insertField.step()
                insertField.reset()
            }
            for template in row.templates {
                try insertTemplate.bind([.integer(row.id), .integer(Int64(template.ordinal)), .text(template.name),
                                         .integer(template.mtime), .integer(template.usn), .blob(Data(template.config))])
                try insertTemplate.step()
                insertTemplate.reset()
            }
        }
        let insertDeck = try database.prepare("INSERT INTO decks (id, name, mtime_secs, usn, common, kind) VALUES (?, ?, ?, ?, ?, ?)")
        for deck in decks.values.sorted(by: { $0.id < $1.id }) {
            let row = try Schema18Rows.deck(json.deckObject(deck))
            try insertDeck.bind([.integer(row.id), .text(row.name), .integer(row.mtime), .integer(row.usn),
                                 .blob(Data(row.common)), .blob(Data(row.kind))])
            try insertDeck.step()
            insertDeck.reset()
        }
        let insertPreset = try database.prepare("INSERT INTO deck_config (id, name, mtime_secs, usn, config) VALUES (?, ?, ?, ?, ?)")
        for (_, object) in json.deckConfigurationObjects(presets.values.sorted { $0.id < $1.id }).sorted(by: { $0.key < $1.key }) {
            let row = try Schema18Rows.preset(object)
            try insertPreset.bind([.integer(row.id), .text(row.name), .integer(row.mtime), .integer(row.usn), .blob(Data(row.config))])
            try insertPreset.step()
            insertPreset.reset()
        }
        let insertConfig = try database.prepare("INSERT INTO config (KEY, usn, mtime_secs, val) VALUES (?, 0, ?, ?)")
        let configuration = json.configurationObject(currentNoteType: noteTypeOrder.first ?? 0, over: configurationJSON,
                                                     replacingDefaults: configurationReplacesDefaults)
        for (key, value) in configuration.sorted(by: { $0.key < $1.key }) {
            guard JSONSerialization.isValidJSONObject([value]),
                  let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes])
            else { throw UnencodableJSON(keys: [key]) }
            try insertConfig.bind([.text(key), .integer(seconds), .blob(data)])
            try insertConfig.step()
            insertConfig.reset()
        }
        // Tags not yet synced, as Anki registers them (usn -1).
        let insertTag = try database.prepare("INSERT OR IGNORE INTO tags (tag, usn, collapsed, config) VALUES (?, -1, ?, NULL)")
        for tag in tags.sorted() {
            try insertTag.bind([.text(tag), .integer(collapsedTags.contains(tag) ? 1 : 0)])
            try insertTag.step()
            insertTag.reset()
        }
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

    /// Schema 18 holds one note type per name (ignoring case, `idx_notetypes_name`); a name taken
    /// by a type added before gets `_` appended until it is free, as Anki does when it upgrades a
    /// schema 11 collection (doing it here makes both layouts name them alike).
    private func makeNoteTypeNamesUnique() {
        var taken: [String] = []
        for id in noteTypeOrder {
            guard var type = noteTypes[id] else { continue }
            var renamed = false
            while taken.contains(where: { Database.caseFoldingOrder($0, type.name) == 0 }) {
                type.name += "_"
                renamed = true
            }
            taken.append(type.name)
            if renamed { noteTypes[id] = type }
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
        """

    /// Schema 11's `graves`.
    static let graves11 = """
        CREATE TABLE graves (usn integer NOT NULL, oid integer NOT NULL, type integer NOT NULL);
        """

    /// Schema 18's tables beside notes, cards and revlog (as current Anki creates them).
    static let schema18 = """
        CREATE TABLE graves (oid integer NOT NULL, type integer NOT NULL, usn integer NOT NULL, PRIMARY KEY (oid, type)) WITHOUT ROWID;
        CREATE TABLE deck_config (
            id integer PRIMARY KEY NOT NULL, name text NOT NULL COLLATE unicase, mtime_secs integer NOT NULL,
            usn integer NOT NULL, config blob NOT NULL);
        CREATE TABLE config (KEY text NOT NULL PRIMARY KEY, usn integer NOT NULL, mtime_secs integer NOT NULL, val blob NOT NULL) WITHOUT ROWID;
        CREATE TABLE tags (tag text NOT NULL PRIMARY KEY COLLATE unicase, usn integer NOT NULL, collapsed boolean NOT NULL, config blob NULL) WITHOUT ROWID;
        CREATE TABLE fields (
            ntid integer NOT NULL, ord integer NOT NULL, name text NOT NULL COLLATE unicase, config blob NOT NULL,
            PRIMARY KEY (ntid, ord)) WITHOUT ROWID;
        CREATE TABLE templates (
            ntid integer NOT NULL, ord integer NOT NULL, name text NOT NULL COLLATE unicase, mtime_secs integer NOT NULL,
            usn integer NOT NULL, config blob NOT NULL, PRIMARY KEY (ntid, ord)) WITHOUT ROWID;
        CREATE TABLE notetypes (
            id integer NOT NULL PRIMARY KEY, name text NOT NULL COLLATE unicase, mtime_secs integer NOT NULL,
            usn integer NOT NULL, config blob NOT NULL);
        CREATE TABLE decks (
            id integer PRIMARY KEY NOT NULL, name text NOT NULL COLLATE unicase, mtime_secs integer NOT NULL,
            usn integer NOT NULL, common blob NOT NULL, kind blob NOT NULL);
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

    /// Schema 18's further indexes.
    static let indexes18 = """
        CREATE UNIQUE INDEX idx_fields_name_ntid ON fields (name, ntid);
        CREATE UNIQUE INDEX idx_templates_name_ntid ON templates (name, ntid);
        CREATE INDEX idx_templates_usn ON templates (usn);
        CREATE UNIQUE INDEX idx_notetypes_name ON notetypes (name);
        CREATE INDEX idx_notetypes_usn ON notetypes (usn);
        CREATE UNIQUE INDEX idx_decks_name ON decks (name);
        CREATE INDEX idx_notes_mid ON notes (mid);
        CREATE INDEX idx_cards_odid ON cards (odid) WHERE odid != 0;
        CREATE INDEX idx_graves_pending ON graves (usn);
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
