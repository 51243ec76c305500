import Foundation
import Persistence
import SQLite

extension DeckDocument {
    /// Full-text search over front, back and tags, best matches first (FTS5 `bm25`).
    ///
    /// Case and diacritics are ignored (`cafe` finds `Café`); every word must occur, and a
    /// word matches as a prefix (`conj` finds `conjugaison`). FTS syntax characters in
    /// `text` are taken literally. Unsaved changes are not searched: save first.
    ///
    /// Cost: after a bulk import, the first search indexes the imported cards
    /// (``updateSearchIndex()``; about 1.5 µs per card). A read-only document can't write that
    /// down: it indexes them into a temporary index of its own connection (once per change of
    /// the store) and searches both, ranking each match within its own index.
    /// - Throws: ``DeckError`` `closed`; the store's error.
    public func search(_ text: String, limit: Int?) throws -> [Card] {
        try cards(primaryKeys: try searchKeys(text, limit: limit))
    }

    /// The keys of the cards ``search(_:limit:)`` finds, best first.
    func searchKeys(_ text: String, limit: Int?) throws -> [Int64] {
        try requireOpen()
        guard let query = Self.ftsQuery(text) else { return [] }
        if mode == .readWrite { try updateSearchIndex() }
        let keys: [Int64] = try container.withDatabase(for: Card.self) { db in
            let rows: [[SQLValue]]
            if mode == .readOnly, let through = try DeckStore.indexedThrough(db) {
                rows = try db.transaction(.deferred) {
                    try Self.indexPendingTemporarily(after: through, db)
                    return try db.rows("""
                        SELECT rowid FROM (
                          SELECT rowid, bm25("CardSearch") AS score FROM main."CardSearch" WHERE "CardSearch" MATCH ?1 AND rowid <= ?2
                          UNION ALL
                          SELECT rowid, bm25("CardSearchPendingIndex") FROM temp."CardSearchPendingIndex" WHERE "CardSearchPendingIndex" MATCH ?1
                        ) ORDER BY score, rowid LIMIT ?3
                        """, [.text(query), .integer(through), .integer(Int64(limit ?? -1))])
                }
            } else {
                rows = try db.rows("SELECT rowid FROM \"CardSearch\" WHERE \"CardSearch\" MATCH ? ORDER BY bm25(\"CardSearch\"), rowid LIMIT ?",
                                   [.text(query), .integer(Int64(limit ?? -1))])
            }
            return rows.compactMap { if case .integer(let key)? = $0.first { key } else { nil } }
        }
        return keys
    }

    /// Whether some cards are not in the full-text index yet (a bulk import deferred them to
    /// the next search, see ``bulkImport(_:)``).
    /// - Throws: ``DeckError`` `closed`; the store's error.
    public func hasPendingSearchIndex() throws -> Bool {
        try requireOpen()
        return try container.withDatabase(for: Card.self) { db in try DeckStore.indexedThrough(db) != nil }
    }

    /// Indexes the cards a bulk import left out of the full-text index, in one transaction,
    /// and records that the index is complete; does nothing when it is (one small query).
    /// ``search(_:limit:)`` calls it; call it yourself to pay the cost at a better moment.
    ///
    /// Cost: proportional to the cards imported since the index was last complete (about
    /// 0.15 s per 100,000 short cards).
    /// - Throws: ``DeckError`` `readOnly` when cards are pending in a read-only document;
    ///   the store's error.
    public func updateSearchIndex() throws {
        try requireOpen()
        try container.withDatabase(for: Card.self) { db in
            guard try DeckStore.indexedThrough(db) != nil else { return }
            guard mode == .readWrite else {
                throw DeckError(path: url.path, reason: "deck is open read-only", kind: .readOnly)
            }
            try DeckStore.catchUp(db)
        }
    }

    /// A read-only document's stand-in for the catch-up: the cards above `through` indexed in a
    /// TEMP FTS5 table of this connection, rebuilt when another connection changed the store
    /// (`PRAGMA data_version`) or the marker moved. Call inside a read transaction.
    static func indexPendingTemporarily(after through: Int64, _ db: Database) throws {
        try db.execute("""
            CREATE VIRTUAL TABLE IF NOT EXISTS temp."CardSearchPendingIndex" USING fts5(front, back, tags, \
            tokenize = 'unicode61 remove_diacritics 2')
            """)
        try db.execute("CREATE TABLE IF NOT EXISTS temp.\"CardSearchPendingState\" (\"through\" INTEGER, \"version\" INTEGER)")
        let version = try db.scalar("PRAGMA main.data_version", as: Int64.self) ?? 0
        let state = try db.rows("SELECT \"through\", \"version\" FROM temp.\"CardSearchPendingState\"")
        if state.count == 1, state[0] == [.integer(through), .integer(version)] { return }
        try db.execute("DELETE FROM temp.\"CardSearchPendingIndex\"")
        try db.execute("""
            INSERT INTO temp."CardSearchPendingIndex"(rowid, front, back, tags)
            SELECT c."pk", c."front", c."back",
              coalesce((SELECT group_concat(t."name", ' ') FROM main."Card_tags" j JOIN main."Tag" t ON t."pk" = j."target" WHERE j."source" = c."pk"), '')
            FROM main."Card" c WHERE c."pk" > ?
            """, [.integer(through)])
        try db.execute("DELETE FROM temp.\"CardSearchPendingState\"")
        try db.execute("INSERT INTO temp.\"CardSearchPendingState\" VALUES (?, ?)", [.integer(through), .integer(version)])
    }

    /// The FTS5 query for user text: each word quoted and marked as a prefix, all required.
    static func ftsQuery(_ text: String) -> String? {
        let words = text.split(whereSeparator: { $0.isWhitespace }).map(String.init).filter { word in
            word.unicodeScalars.contains { CharacterSet.alphanumerics.contains($0) }
        }
        guard !words.isEmpty else { return nil }
        return words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }.joined(separator: " ")
    }
}
