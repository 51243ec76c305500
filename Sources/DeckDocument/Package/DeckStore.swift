import Foundation
import Persistence
import SQLite

/// The store's schema beyond what the models declare: the full-text index and its triggers.
enum DeckStore {
    /// Every model of a deck store.
    static let modelTypes: [any PersistentModel.Type] = [
        Card.self, BasicCard.self, ReversibleCard.self, ClozeCard.self, Tag.self, MediaReference.self, Review.self, DeckInfo.self,
    ]

    static func schema() -> Schema { Schema(modelTypes) }

    /// The FTS5 table: one row per card, rowid = `Card.pk`, columns front, back, tags
    /// (tag names separated by spaces).
    static let searchTable = "CardSearch"

    /// Statements that create the index and the triggers keeping it in step with `Card`,
    /// `Card_tags` and `Tag`; idempotent.
    static let searchDDL: [String] = [
        """
        CREATE VIRTUAL TABLE IF NOT EXISTS "CardSearch" USING fts5(front, back, tags, \
        tokenize = 'unicode61 remove_diacritics 2')
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

    /// Creates the index and triggers if missing and stamps `user_version`.
    static func install(_ db: Database, formatVersion: Int) throws {
        try db.transaction(.immediate) {
            for statement in searchDDL { try db.execute(statement) }
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

    /// Rebuilds the whole index from the tables (after a migration or a repair).
    static func rebuildSearch(_ db: Database) throws {
        try db.execute("DELETE FROM \"CardSearch\"")
        try db.execute("""
            INSERT INTO "CardSearch"(rowid, front, back, tags)
            SELECT c."pk", c."front", c."back",
              coalesce((SELECT group_concat(t."name", ' ') FROM "Card_tags" j JOIN "Tag" t ON t."pk" = j."target" WHERE j."source" = c."pk"), '')
            FROM "Card" c
            """)
    }
}
