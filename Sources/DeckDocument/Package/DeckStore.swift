import Foundation
import Persistence
import SQLite

/// The store's schema beyond what the models declare: the full-text index and its triggers,
/// and the partial indexes of sparse columns.
enum DeckStore {
    /// Every model of a deck store.
    static let modelTypes: [any PersistentModel.Type] = [
        Card.self, BasicCard.self, ReversibleCard.self, ClozeCard.self, Tag.self, MediaReference.self, Review.self, DeckInfo.self,
    ]

    static func schema() -> Schema { Schema(modelTypes) }

    /// The FTS5 table: one row per card, rowid = `Card.pk`, columns front, back, tags
    /// (tag names separated by spaces).
    static let searchTable = "CardSearch"

    /// The table whose single row, when present, says that cards with a key above its
    /// `indexedThrough` may be missing from the index (a bulk import left them for the next
    /// search to index; see ``deferIndexing(after:_:)`` and ``catchUp(_:)``). Named with the
    /// index's prefix so the session undo journal leaves it alone, like the index.
    static let pendingTable = "CardSearchPending"

    /// Statements that create the index, the pending marker table and the triggers keeping
    /// the index in step with `Card`, `Card_tags` and `Tag`; idempotent.
    static let searchDDL: [String] = [
        """
        CREATE VIRTUAL TABLE IF NOT EXISTS "CardSearch" USING fts5(front, back, tags, \
        tokenize = 'unicode61 remove_diacritics 2')
        """,
        """
        CREATE TABLE IF NOT EXISTS "CardSearchPending" ("indexedThrough" INTEGER NOT NULL)
        """,
        """
        CREATE TRIGGER IF NOT EXISTS "Card_search_insert" AFTER INSERT ON "Card" BEGIN
          INSERT INTO "CardSearch"(rowid, front, back, tags) VALUES (new."pk", new."front", new."back",
            coalesce((SELECT group_concat(t."name", ' ') FROM "Card_tags" j JOIN "Tag" t ON t."pk" = j."target" WHERE j."source" = new."pk"), ''));
        END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS "Card_search_update" AFTER UPDATE OF "front", "back" ON "Card" BEGIN
          UPDATE "CardSearch" SET front = new."front", back = new."back" WHERE rowid = new."pk";
        END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS "Card_search_delete" AFTER DELETE ON "Card" BEGIN
          DELETE FROM "CardSearch" WHERE rowid = old."pk";
        END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS "Card_tags_search_insert" AFTER INSERT ON "Card_tags" BEGIN
          UPDATE "CardSearch" SET tags = coalesce((SELECT group_concat(t."name", ' ') FROM "Card_tags" j JOIN "Tag" t ON t."pk" = j."target" WHERE j."source" = new."source"), '')
          WHERE rowid = new."source";
        END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS "Card_tags_search_delete" AFTER DELETE ON "Card_tags" BEGIN
          UPDATE "CardSearch" SET tags = coalesce((SELECT group_concat(t."name", ' ') FROM "Card_tags" j JOIN "Tag" t ON t."pk" = j."target" WHERE j."source" = old."source"), '')
          WHERE rowid = old."source";
        END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS "Tag_search_rename" AFTER UPDATE OF "name" ON "Tag" BEGIN
          UPDATE "CardSearch" SET tags = coalesce((SELECT group_concat(t."name", ' ') FROM "Card_tags" j JOIN "Tag" t ON t."pk" = j."target" WHERE j."source" = "CardSearch".rowid), '')
          WHERE rowid IN (SELECT "source" FROM "Card_tags" WHERE "target" = new."pk");
        END
        """,
    ]

    /// The triggers that keep the index's `tags` column in step with `Card_tags`: each link row
    /// inserted or deleted rewrites its card's whole index row (all its tag names), so a save
    /// that links one card to n tags through them costs n² (20,000 tags took minutes).
    /// ``indexingTagLinksOncePerCard(_:_:)`` suspends them for a save.
    static let tagLinkTriggers = ["Card_tags_search_insert", "Card_tags_search_delete"]

    /// The TEMP table (of the writer's connection only; nothing of it reaches the file) that
    /// collects the cards whose tag links a save changes while ``tagLinkTriggers`` are suspended.
    static let retaggedTable = "CardSearchRetagged"

    /// Suspends ``tagLinkTriggers`` inside the caller's savepoint: drops them and records, through
    /// TEMP triggers of this connection, which cards gain or lose tag links. Call
    /// ``finishTagLinkIndexing(_:)`` before releasing the savepoint (or roll it back, which
    /// restores the triggers; the TEMP objects are removed by the next call either way).
    static func suspendTagLinkIndexing(_ db: Database) throws {
        try dropTagLinkRecorders(db)
        try db.execute("CREATE TEMP TABLE \(quoteIdentifier(retaggedTable)) (\"pk\" INTEGER PRIMARY KEY)")
        for (event, row) in [("INSERT", "new"), ("DELETE", "old")] {
            try db.execute("""
                CREATE TEMP TRIGGER "\(retaggedTable)_\(event.lowercased())" AFTER \(event) ON main."Card_tags" BEGIN
                  INSERT OR IGNORE INTO \(quoteIdentifier(retaggedTable)) ("pk") VALUES (\(row)."source");
                END
                """)
        }
        for name in tagLinkTriggers { try db.execute("DROP TRIGGER IF EXISTS main.\(quoteIdentifier(name))") }
    }

    /// Ends ``suspendTagLinkIndexing(_:)``: rewrites the `tags` of each recorded card's index row
    /// once (cards without a row, deleted or not indexed yet, are left alone as the triggers
    /// would have left them), restores ``tagLinkTriggers`` from ``searchDDL`` and removes the
    /// TEMP objects. Cost: one index row per changed card plus its tag count.
    static func finishTagLinkIndexing(_ db: Database) throws {
        try db.execute("""
            UPDATE "CardSearch" SET tags = coalesce((SELECT group_concat(t."name", ' ') FROM "Card_tags" j JOIN "Tag" t ON t."pk" = j."target" \
            WHERE j."source" = "CardSearch".rowid), '')
            WHERE rowid IN (SELECT "pk" FROM temp.\(quoteIdentifier(retaggedTable)))
            """)
        for statement in searchDDL where triggerName(of: statement).map(tagLinkTriggers.contains) == true {
            try db.execute(statement)
        }
        try dropTagLinkRecorders(db)
    }

    /// Removes the TEMP table and triggers of ``suspendTagLinkIndexing(_:)`` if present.
    static func dropTagLinkRecorders(_ db: Database) throws {
        for event in ["insert", "delete"] { try db.execute("DROP TRIGGER IF EXISTS temp.\"\(retaggedTable)_\(event)\"") }
        try db.execute("DROP TABLE IF EXISTS temp.\(quoteIdentifier(retaggedTable))")
    }

    /// The trigger a statement of ``searchDDL`` creates, or nil for the table itself.
    static func triggerName(of statement: String) -> String? {
        guard let start = statement.range(of: "CREATE TRIGGER IF NOT EXISTS \"") else { return nil }
        let rest = statement[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// Indexes of optional columns that most cards leave NULL, over the rows that have a value
    /// only (SQLite partial indexes): a comparison such as `due <= ?` or `ankiGUID = ?` implies
    /// `IS NOT NULL`, so queries use them as they would a full index, while inserting a card
    /// without a value costs nothing. (Persistence declares full indexes only, like SwiftData.)
    static let sparseIndexDDL: [String] = [
        #"CREATE INDEX IF NOT EXISTS "Card_due_set" ON "Card"("due") WHERE "due" IS NOT NULL"#,
        #"CREATE INDEX IF NOT EXISTS "Card_ankiGUID_set" ON "Card"("ankiGUID") WHERE "ankiGUID" IS NOT NULL"#,
    ]

    /// Indexes that decks written by earlier builds of the tool have and the store no longer
    /// keeps: `Card_kind` (the `entity` index covers the same split), and the full indexes of
    /// `due` and `ankiGUID` that ``sparseIndexDDL`` replaces. Dropped when such a deck is
    /// opened for writing; each cost an index update per inserted card.
    static let retiredIndexes = ["Card_kind", "Card_due", "Card_ankiGUID"]

    /// The page size of a new store: 16 KiB rather than SQLite's 4 KiB. A deck's tables are
    /// written in bulk (imports) and read in scans (lists, exports, counts), both cheaper with
    /// fewer, larger pages (a 100,000-row CSV import: ~8 % less CPU); an edit writes a few
    /// pages to the WAL either way.
    static let pageSize = 16_384

    /// Creates an empty SQLite file with ``pageSize`` pages at `url`, for a new store (the
    /// page size of a database is fixed by its first write).
    static func createEmptyStore(at url: URL) throws {
        let db = try Database(path: url.path, mode: .create)
        defer { db.close() }
        try db.execute("PRAGMA page_size = \(pageSize)")
        try db.execute("VACUUM")
    }

    /// Creates the index, triggers and sparse indexes if missing, drops retired indexes, and
    /// stamps `user_version`.
    static func install(_ db: Database, formatVersion: Int) throws {
        try db.transaction(.immediate) {
            for statement in searchDDL { try db.execute(statement) }
            for name in retiredIndexes { try db.execute("DROP INDEX IF EXISTS \(quoteIdentifier(name))") }
            for statement in sparseIndexDDL { try db.execute(statement) }
            if try db.userVersion() != formatVersion { try db.setUserVersion(formatVersion) }
        }
    }

    /// Indexes the cards whose key is above `key` (cards added by a bulk import, which leaves the
    /// rows before it untouched); the whole index when `key` is 0.
    static func indexCards(after key: Int64, _ db: Database) throws {
        guard key > 0 else { return try rebuildSearch(db) }
        try db.execute("DELETE FROM \"CardSearch\" WHERE rowid > ?", [.integer(key)])
        try db.execute("""
            INSERT INTO "CardSearch"(rowid, front, back, tags)
            SELECT c."pk", c."front", c."back",
              coalesce((SELECT group_concat(t."name", ' ') FROM "Card_tags" j JOIN "Tag" t ON t."pk" = j."target" WHERE j."source" = c."pk"), '')
            FROM "Card" c WHERE c."pk" > ?
            """, [.integer(key)])
    }

    /// The key through which every card is in the index when some cards above it may not
    /// be (a bulk import deferred their indexing), or nil when the index is complete.
    /// Reads nothing but the marker table (absent in decks never opened for writing by this version).
    static func indexedThrough(_ db: Database) throws -> Int64? {
        guard try db.tableExists(pendingTable) else { return nil }
        return try db.scalar("SELECT min(\"indexedThrough\") FROM \"CardSearchPending\"", as: Int64.self)
    }

    /// Records that the cards with a key above `key` are not indexed yet (kept at the lowest
    /// such key when a marker is already there). Call inside the import's transaction.
    static func deferIndexing(after key: Int64, _ db: Database) throws {
        let through = min(key, try indexedThrough(db) ?? key)
        try db.execute("DELETE FROM \"CardSearchPending\"")
        try db.execute("INSERT INTO \"CardSearchPending\"(\"indexedThrough\") VALUES (?)", [.integer(through)])
    }

    /// Brings the index up to date when a bulk import deferred it: in one transaction, drops
    /// the index rows above the marker, indexes every card above it from the tables, and
    /// removes the marker. Edits, deletes and tag changes made to those cards in the meantime
    /// (which the triggers could not apply to rows that weren't there) are read from the
    /// tables, so the result is what indexing every change would have given. Returns the
    /// number of cards indexed; 0 and no write when nothing is pending.
    @discardableResult
    static func catchUp(_ db: Database) throws -> Int {
        guard try indexedThrough(db) != nil else { return 0 }
        return try db.transaction(.immediate) {
            guard let through = try indexedThrough(db) else { return 0 }
            try indexCards(after: through, db)
            let indexed = db.changes
            try db.execute("DELETE FROM \"CardSearchPending\"")
            return indexed
        }
    }

    /// Rebuilds the whole index from the tables (after a migration or a repair).
    static func rebuildSearch(_ db: Database) throws {
        try db.execute("DELETE FROM \"CardSearch\"")
        if try db.tableExists(pendingTable) { try db.execute("DELETE FROM \"CardSearchPending\"") }
        try db.execute("""
            INSERT INTO "CardSearch"(rowid, front, back, tags)
            SELECT c."pk", c."front", c."back",
              coalesce((SELECT group_concat(t."name", ' ') FROM "Card_tags" j JOIN "Tag" t ON t."pk" = j."target" WHERE j."source" = c."pk"), '')
            FROM "Card" c
            """)
    }
}
