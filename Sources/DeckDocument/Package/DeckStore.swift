import Foundation
import Persistence
import SQLite

/// The format version 1 store beyond what its models declare: the full-text index and its
/// triggers, and the partial indexes of sparse columns. Only `deck migrate` reads version 1
/// stores (and a migration from version 0 builds one on the way); what is here is what it needs.
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
