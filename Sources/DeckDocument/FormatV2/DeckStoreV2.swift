import CardTemplates
import Foundation
import Persistence
import SQLite

/// The format version 2 store beyond what ``DeckSchemaV2``'s models declare: the full-text
/// index over every field, its pending marker, and the partial indexes of Anki's ids (the
/// study queue's and the card identity's indexes are declared by the `Card` model). `Schemas/store.sql` is ``storeSQL`` written out (a test keeps them equal and
/// checks a new store's `sqlite_master` against it).
public enum DeckStoreV2 {
    /// The format version these stores carry in `PRAGMA user_version` and the manifest.
    public static let formatVersion = 2

    public static func schema() -> Schema { DeckSchemaV2.schema }

    /// The FTS5 table: one row per note, rowid = `Note.pk`; `fields` is every field's text with
    /// HTML stripped (``searchText(ofFields:)``), `tags` the note's tag names separated by spaces.
    public static let searchTable = "NoteSearch"
    /// At most one row: notes with a key above `indexedThrough` may be missing from the index
    /// (0: rebuild the whole index before searching).
    public static let pendingTable = "NoteSearchPending"

    /// Statements after the models' own tables and indexes, in order. (`Card_note_ordinal` and
    /// `Card_deck_queue_due` are the models' own: ``DeckSchemaV2/Card``.)
    static let extraDDL: [String] = [
        #"CREATE VIRTUAL TABLE IF NOT EXISTS "NoteSearch" USING fts5(fields, tags, tokenize = 'unicode61 remove_diacritics 2')"#,
        #"CREATE TABLE IF NOT EXISTS "NoteSearchPending" ("indexedThrough" INTEGER NOT NULL)"#,
        """
        CREATE TRIGGER IF NOT EXISTS "Note_search_delete" AFTER DELETE ON "Note" BEGIN
          DELETE FROM "NoteSearch" WHERE rowid = old."pk";
        END
        """,
        // Import dedupe and updates find cards, notes and note types by Anki's ids.
        #"CREATE INDEX IF NOT EXISTS "Note_ankiID_set" ON "Note"("ankiID") WHERE "ankiID" IS NOT NULL"#,
        #"CREATE INDEX IF NOT EXISTS "Card_ankiID_set" ON "Card"("ankiID") WHERE "ankiID" IS NOT NULL"#,
    ]

    /// The indexes of revision 2.0 that 2.1 dropped (each served by an index starting with the
    /// same column: `Card_note_ordinal`, `Card_deck_queue_due`), as 2.0 wrote them. A reader
    /// accepts them in a store whose `schemaVersion` is 2.0.0; the 2.0 → 2.1 stage drops them.
    public static let version2_0Indexes: [String] = [
        #"CREATE INDEX IF NOT EXISTS "Card_note" ON "Card"("note")"#,
        #"CREATE INDEX IF NOT EXISTS "Card_deck" ON "Card"("deck")"#,
    ]

    /// The revision of the layout: the store's `schemaVersion` in `persistence_metadata`.
    public static var revision: Schema.Version { DeckSchemaV2.versionIdentifier }

    /// Every statement of a store of revision 2.0.0 (what the program wrote before 2.1).
    static var version2_0Statements: [String] { statements + version2_0Indexes }

    /// The revision a store records (`schemaVersion` of `persistence_metadata`), nil when it
    /// records none or none that parses. Read only when `persistence_metadata` is a table (the
    /// store is untrusted: a view of that name would run its SQL); `objects` is the store's
    /// `sqlite_schema`, read before.
    static func storedRevision(_ db: Database, objects: [SchemaObject]) throws -> Schema.Version? {
        guard objects.contains(where: { $0.type == "table" && $0.name == Schema.metadataTable && $0.sql?.hasPrefix("CREATE TABLE") == true }) else {
            return nil
        }
        return try db.scalar("SELECT \"value\" FROM main.\(quoteIdentifier(Schema.metadataTable)) WHERE \"key\" = 'schemaVersion'", as: String.self)
            .flatMap(Schema.Version.init(string:))
    }

    /// The metadata table of the persistence layer, as it creates it.
    static let metadataDDL = #"CREATE TABLE IF NOT EXISTS "persistence_metadata" ("key" TEXT PRIMARY KEY, "value" TEXT NOT NULL)"#

    /// Every statement that creates the store's schema, in the order a writer runs them.
    public static var statements: [String] {
        schema().makeDDL() + [metadataDDL] + extraDDL
    }

    /// The text of `Schemas/store.sql`: every statement as SQLite keeps it in `sqlite_master`
    /// (without `IF NOT EXISTS`), each ending with `;`, after the pragmas a new store sets.
    public static var storeSQL: String {
        var text = """
            -- The format version 2 store of a .sampledeck package (docs/FORMAT.md).
            -- Generated from the models (DeckSchemaV2) and DeckStoreV2; a test checks that this file
            -- and a new deck's sqlite_master agree. Regenerate: SAMPLEDECK_WRITE_STORE_SQL=1 swift test --filter StoreSQLTests
            PRAGMA page_size = 16384;
            PRAGMA user_version = 2;
            PRAGMA foreign_keys = ON;

            """
        for statement in statements { text += normalized(statement) + ";\n" }
        text += """
            INSERT INTO "persistence_metadata" ("key", "value") VALUES ('schemaVersion', '\(revision)');
            INSERT INTO "DeckInfo" ("pk", "title", "deckDescription", "dayZero", "dayStartsAt", "ankiConfig") VALUES (1, 'Untitled', '', 0, 4, '{}');

            """
        return text
    }

    /// A statement as `sqlite_master.sql` holds it: SQLite drops `IF NOT EXISTS`.
    static func normalized(_ statement: String) -> String {
        statement.replacingOccurrences(of: " IF NOT EXISTS ", with: " ")
    }

    /// The shadow tables FTS5 creates for ``searchTable`` (in `sqlite_master`, not in store.sql).
    public static let searchShadowTables: Set<String> = ["NoteSearch_data", "NoteSearch_idx", "NoteSearch_content", "NoteSearch_docsize", "NoteSearch_config"]

    /// Creates a new format version 2 store at `url` (which must not exist): its `DeckInfo`
    /// row, the stock note types Basic, Basic (and reversed card) and Cloze with Anki's
    /// templates and CSS, the deck `Default` and the preset `Default` (FSRS with the
    /// scheduler's default parameters, desired retention 0.9, learning steps 1m 10m,
    /// relearning 10m, maximum interval 36,500 days). Day 0 starts at 04:00 UTC of the day
    /// the store is made, unless `dayZero` is given.
    public static func createStore(at url: URL, title: String, dayZero: Int64? = nil) throws {
        try DeckStore.createEmptyStore(at: url)
        let container = try ModelContainer(for: schema(), configurations: [ModelConfiguration("Deck", url: url)])
        try container.withDatabase(for: DeckSchemaV2.Note.self) { db in
            try db.trustSchema()  // the store was built just now, by us
            try install(db)
        }
        let context = ModelContext(container)
        let now = Date()
        let info = DeckSchemaV2.DeckInfo(title: title)
        info.dayZero = dayZero ?? defaultDayZero(now)
        context.insert(info)
        let preset = DeckSchemaV2.Preset(name: "Default")
        preset.modified = now
        context.insert(preset)
        let deck = DeckSchemaV2.Deck(name: defaultDeckName)
        deck.modified = now
        deck.preset = preset
        context.insert(deck)
        for kind in CardKind.allCases { _ = StockNoteTypes.make(kind, in: context, modified: now) }
        try context.save()
        try container.close()
    }

    /// The deck every store has, where cards without another deck go.
    public static let defaultDeckName = "Default"

    /// 04:00 UTC of the day of `date` (Anki's default day boundary), as Unix seconds.
    static func defaultDayZero(_ date: Date) -> Int64 {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down)) - 4 * 3600
        return (seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400) * 86_400 + 4 * 3600
    }

    /// Creates the index, marker table, trigger and extra indexes if missing, and stamps `user_version`.
    static func install(_ db: Database) throws {
        try db.transaction(.immediate) {
            for statement in extraDDL { try db.execute(statement) }
            if try db.userVersion() != formatVersion { try db.setUserVersion(formatVersion) }
        }
    }

    /// The text the index holds for a note's fields: each field as plain text
    /// (`FieldText.plainText(fromHTML:)` of CardTemplates), joined by line feeds.
    public static func searchText(ofFields fields: [String]) -> String {
        fields.map(FieldText.plainText(fromHTML:)).joined(separator: "\n")
    }

    /// The tag names of a note as the index holds them: separated by one space.
    static let tagsOfNoteSQL = """
        coalesce((SELECT group_concat(t."name", ' ') FROM "Note_tags" j JOIN "Tag" t ON t."pk" = j."target" WHERE j."source" = n."pk"), '')
        """

    /// Rebuilds the whole index from the notes and their tags, and clears the pending marker.
    static func rebuildSearch(_ db: Database) throws {
        try db.execute("DELETE FROM \"NoteSearch\"")
        try db.execute("DELETE FROM \"NoteSearchPending\"")
        try indexNotes(after: 0, into: "\"NoteSearch\"", db)
    }

    /// Writes the index rows of the notes whose key is above `key` into `table`.
    @discardableResult
    static func indexNotes(after key: Int64, through last: Int64 = .max, into table: String, _ db: Database) throws -> Int {
        let insert = try db.prepare("INSERT INTO \(table)(rowid, fields, tags) VALUES (?, ?, ?)")
        let notes = try db.prepare("SELECT n.\"pk\", n.\"fields\", \(tagsOfNoteSQL) FROM main.\"Note\" n WHERE n.\"pk\" > ? AND n.\"pk\" <= ? ORDER BY n.\"pk\"")
        try notes.bind([.integer(key), .integer(last)])
        var indexed = 0
        while try notes.step() {
            let pk = notes.int64(at: 0)
            // JSONStringArray, not JSONDecoder: decoding costs more than the rest of a note's indexing.
            guard notes.isText(at: 1), let fields = JSONStringArray.parse(notes.string(at: 1)) else {
                throw MigrationFault("note \(pk): fields is not a JSON array of strings")
            }
            try insert.execute([.integer(pk), .text(searchText(ofFields: fields)), .text(notes.isText(at: 2) ? notes.string(at: 2) : "")])
            indexed += 1
        }
        return indexed
    }

    /// The key through which every note is in the index when some notes above it may not be
    /// (a bulk import deferred them), or nil when the index is complete.
    static func indexedThrough(_ db: Database) throws -> Int64? {
        try db.scalar("SELECT min(\"indexedThrough\") FROM main.\"NoteSearchPending\"", as: Int64.self)
    }

    /// Records that the notes with a key above `key` are not indexed yet (kept at the lowest
    /// such key when a marker is already there). Call inside the import's transaction.
    static func deferIndexing(after key: Int64, _ db: Database) throws {
        let through = min(key, try indexedThrough(db) ?? key)
        try db.execute("DELETE FROM \"NoteSearchPending\"")
        try db.execute("INSERT INTO \"NoteSearchPending\"(\"indexedThrough\") VALUES (?)", [.integer(through)])
    }

    /// Brings the index up to date when a bulk import deferred it: in one transaction, drops
    /// the index rows above the marker, indexes every note above it, and removes the marker.
    ///
    /// With `limit`, at most that many notes (the lowest keys above the marker) are indexed and
    /// the marker moves past them; call again until it returns 0.
    @discardableResult
    static func catchUp(_ db: Database, limit: Int? = nil) throws -> Int {
        guard try indexedThrough(db) != nil else { return 0 }
        return try db.transaction(.immediate) {
            guard let through = try indexedThrough(db) else { return 0 }
            // The key of the limit-th note above the marker; nil: fewer are left, index them all.
            let last = try limit.flatMap { limit in
                try db.scalar(#"SELECT "pk" FROM main."Note" WHERE "pk" > ? ORDER BY "pk" LIMIT 1 OFFSET ?"#,
                              [.integer(through), .integer(Int64(max(limit, 1) - 1))], as: Int64.self)
            }
            try db.execute("DELETE FROM \"NoteSearch\" WHERE rowid > ? AND rowid <= ?", [.integer(through), .integer(last ?? .max)])
            // Counted as written: count(*) of an FTS5 table reads every row of its content.
            let indexed = try indexNotes(after: through, through: last ?? .max, into: "\"NoteSearch\"", db)
            try db.execute("DELETE FROM \"NoteSearchPending\"")
            if let last, try db.scalar(#"SELECT 1 FROM main."Note" WHERE "pk" > ? LIMIT 1"#, [.integer(last)], as: Int64.self) != nil {
                try db.execute("INSERT INTO \"NoteSearchPending\"(\"indexedThrough\") VALUES (?)", [.integer(last)])
            }
            return indexed
        }
    }

    /// Upgrades a format version 1 store, in place, to version 2: drops version 1's search
    /// index and its triggers, runs ``DeckMigrationPlan`` (one transaction), creates version 2's
    /// index and extra indexes, and indexes every note. Call it on a private copy of the store
    /// (``DeckDocument/migrate(at:to:)`` does): the steps around the migration's transaction
    /// are not atomic with it.
    public static func upgradeVersion1Store(at url: URL) throws {
        do {
            let db = try Database(path: url.path, mode: .readWrite)
            defer { db.close() }
            guard try db.userVersion() == 1, try db.tableExists("Card"), try db.tableExists("MediaReference") else {
                throw MigrationFault("\(url.lastPathComponent) is not a format version 1 store")
            }
            try db.transaction(.immediate) {
                for statement in DeckStore.searchDDL {
                    if let trigger = DeckStore.triggerName(of: statement) { try db.execute("DROP TRIGGER IF EXISTS \(quoteIdentifier(trigger))") }
                }
                try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(DeckStore.searchTable))")
                try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(DeckStore.pendingTable))")
            }
        }
        let container = try ModelContainer(for: schema(), migrationPlan: DeckMigrationPlan.self,
                                           configurations: [ModelConfiguration("Deck", url: url)])
        try container.withDatabase(for: DeckSchemaV2.Note.self) { db in
            try install(db)
            try db.transaction(.immediate) { try rebuildSearch(db) }
        }
        try container.close()
    }
}
