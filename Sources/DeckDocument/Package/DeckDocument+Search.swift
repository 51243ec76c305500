import Foundation
import Persistence
import SQLite

extension DeckDocument {
    /// Full-text search over every field of a note (HTML stripped) and its tags, best matches
    /// first (``Database/registerSearchRankFunction()``: FTS5's `bm25` without its
    /// document-length normalisation), then by key, as listing rows (one per note, named by its
    /// first card).
    ///
    /// Case and diacritics are ignored (`cafe` finds `Café`); every word must occur, and a
    /// word matches as a prefix (`conj` finds `conjugaison`); `"a phrase"` matches its words
    /// in a row, `or` joins alternatives, `-word` leaves out what matches, parentheses group,
    /// and a word of Chinese, Japanese, Korean, Thai and other scripts written without spaces
    /// matches inside words (see ``SearchQuery``). FTS5 syntax in `text` is never passed
    /// through. Unsaved changes are not searched: save first.
    ///
    /// Cost: after a bulk import, the first search indexes the imported notes
    /// (``updateSearchIndex()``). A read-only document can't write that down: it indexes them
    /// into a temporary index of its own connection (once per change of the store) and searches
    /// both, ranking each match within its own index. When many notes are unindexed (more than
    /// 50,000 and an eighth of the deck), any search reads every note instead (``SearchScan``:
    /// the matches and order of the complete index, about 0.8 µs a note) and indexes nothing:
    /// ``searchReadsNotesInstead()`` says so, and a writer then calls
    /// ``updateSearchIndex(notesPerTransaction:)`` (`deck search` starts `deck search --index`
    /// in the background). A search with a word that matches inside words always reads the notes.
    /// - Throws: ``SearchQueryError`` for a text that only leaves notes out (`-dog`);
    ///   ``DeckError`` `closed`; the store's error.
    public func search(_ text: String, limit: Int?) throws -> [CardRow] {
        var rows: [CardRow] = []
        try forEachSearchRow(matching: text, limit: limit) { rows.append($0); return true }
        return rows
    }

    /// The keys of the first cards of the notes ``search(_:limit:)`` finds, best first.
    ///
    /// `method` decides how: by default the index when it is complete or nearly (the notes it
    /// lacks indexed first, for good when the document can write), else by reading every note
    /// (``SearchScan``: same matches, same order).
    func searchKeys(_ text: String, limit: Int?, method: SearchMethod? = nil) throws -> [Int64] {
        try requireOpen()
        guard let parsed = try SearchQuery.parse(text) else { return [] }
        // A word of a script written without spaces matches inside words, which only reading
        // the notes can answer.
        let chosen = parsed.matchesInsideWords ? .readingNotes : try method ?? (try searchReadsNotes() ? .readingNotes : .index)
        if chosen == .readingNotes {
            let path = storeURL.path
            return try container.withDatabase(for: Note.self) { db in
                try db.transaction(.deferred) {
                    let notes = try SearchScan(query: parsed, db: db).noteKeys(limit: limit, db: db, path: path)
                    guard !notes.isEmpty else { return [] }
                    let list = SQLValue.text("[" + notes.map(String.init).joined(separator: ",") + "]")
                    return try db.rows(#"SELECT (SELECT min(c."pk") FROM "Card" c WHERE c."note" = k."value") FROM json_each(?) k ORDER BY k."key""#, [list])
                        .compactMap { if case .integer(let key)? = $0.first { key } else { nil } }
                }
            }
        }
        let query = parsed.ftsQuery
        if mode == .readWrite { try updateSearchIndex() }
        let rank = Database.searchRankFunctionName
        let firstCard = #"(SELECT min(c."pk") FROM "Card" c WHERE c."note" = s.rowid)"#
        let keys: [Int64] = try container.withDatabase(for: Note.self) { db in
            try db.registerSearchRankFunction()
            let rows: [[SQLValue]]
            if mode == .readOnly, let through = try DeckStoreV2.indexedThrough(db) {
                rows = try db.transaction(.deferred) {
                    try Self.indexPendingTemporarily(after: through, db)
                    return try db.rows("""
                        SELECT \(firstCard) FROM (
                          SELECT rowid, \(rank)("NoteSearch") AS score FROM main."NoteSearch" WHERE "NoteSearch" MATCH ?1 AND rowid <= ?2
                          UNION ALL
                          SELECT rowid, \(rank)("NoteSearchPendingIndex") FROM temp."NoteSearchPendingIndex" WHERE "NoteSearchPendingIndex" MATCH ?1
                        ) s ORDER BY score, rowid LIMIT ?3
                        """, [.text(query), .integer(through), .integer(Int64(limit ?? -1))])
                }
            } else {
                rows = try db.rows("""
                    SELECT \(firstCard) FROM (SELECT rowid, \(rank)("NoteSearch") AS score FROM "NoteSearch" WHERE "NoteSearch" MATCH ?) s \
                    ORDER BY score, rowid LIMIT ?
                    """, [.text(query), .integer(Int64(limit ?? -1))])
            }
            return rows.compactMap { if case .integer(let key)? = $0.first { key } else { nil } }
        }
        return keys
    }

    /// Whether some notes are not in the full-text index yet (a bulk import deferred them to
    /// the next search, see ``bulkImport(_:)``).
    /// - Throws: ``DeckError`` `closed`; the store's error.
    public func hasPendingSearchIndex() throws -> Bool {
        try requireOpen()
        return try container.withDatabase(for: Note.self) { db in try DeckStoreV2.indexedThrough(db) != nil }
    }

    /// Indexes the notes a bulk import left out of the full-text index, in one transaction,
    /// and records that the index is complete; does nothing when it is (one small query).
    /// ``search(_:limit:)`` calls it; call it yourself to pay the cost at a better moment.
    ///
    /// Cost: proportional to the notes imported since the index was last complete.
    /// - Throws: ``DeckError`` `readOnly` when notes are pending in a read-only document;
    ///   the store's error.
    public func updateSearchIndex() throws {
        _ = try updateSearchIndex(notesPerTransaction: nil)
    }

    /// ``updateSearchIndex()`` a part at a time: indexes at most `notesPerTransaction` of the
    /// notes left out (the lowest keys) in one transaction, and returns whether some are still
    /// left (call again: between calls other writers can get the deck). Nil: all at once.
    /// - Throws: as ``updateSearchIndex()``.
    public func updateSearchIndex(notesPerTransaction: Int?) throws -> Bool {
        try requireOpen()
        return try container.withDatabase(for: Note.self) { db in
            guard try DeckStoreV2.indexedThrough(db) != nil else { return false }
            guard mode == .readWrite else {
                throw DeckError(path: url.path, reason: "deck is open read-only", kind: .readOnly)
            }
            try DeckStoreV2.catchUp(db, limit: notesPerTransaction)
            return try DeckStoreV2.indexedThrough(db) != nil
        }
    }

    /// A read-only document's stand-in for the catch-up: the notes above `through` indexed in a
    /// TEMP FTS5 table of this connection, rebuilt when another connection changed the store
    /// (`PRAGMA data_version`) or the marker moved. Call inside a read transaction.
    static func indexPendingTemporarily(after through: Int64, _ db: Database) throws {
        try db.execute("""
            CREATE VIRTUAL TABLE IF NOT EXISTS temp."NoteSearchPendingIndex" USING fts5(fields, tags, \
            tokenize = 'unicode61 remove_diacritics 2')
            """)
        try db.execute("CREATE TABLE IF NOT EXISTS temp.\"NoteSearchPendingState\" (\"through\" INTEGER, \"version\" INTEGER)")
        let version = try db.scalar("PRAGMA main.data_version", as: Int64.self) ?? 0
        let state = try db.rows("SELECT \"through\", \"version\" FROM temp.\"NoteSearchPendingState\"")
        if state.count == 1, state[0] == [.integer(through), .integer(version)] { return }
        try db.execute("DELETE FROM temp.\"NoteSearchPendingIndex\"")
        try DeckStoreV2.indexNotes(after: through, into: "temp.\"NoteSearchPendingIndex\"", db)
        try db.execute("DELETE FROM temp.\"NoteSearchPendingState\"")
        try db.execute("INSERT INTO temp.\"NoteSearchPendingState\" VALUES (?, ?)", [.integer(through), .integer(version)])
    }

    /// How a search finds its notes.
    enum SearchMethod: Sendable {
        /// The FTS5 index (the notes it lacks indexed first).
        case index
        /// Every note read and matched as the index would (``SearchScan``).
        case readingNotes
    }

    /// Notes a search reads instead of indexing them first: at least this many unindexed…
    static let readingNotesThreshold: Int64 = 50_000

    /// Whether a search reads the notes rather than the index: when more than
    /// ``readingNotesThreshold`` notes and an eighth of the deck's keys are not indexed (after a
    /// large import), reading every note (about 0.8 µs a note) costs less than indexing them
    /// (FTS5: several µs a note), and the answer comes before the index is complete.
    func searchReadsNotes() throws -> Bool {
        try container.withDatabase(for: Note.self) { db in
            guard let through = try DeckStoreV2.indexedThrough(db) else { return false }
            let top = try db.scalar(#"SELECT max("pk") FROM main."Note""#, as: Int64.self) ?? 0
            let pending = top - through
            return pending >= Self.readingNotesThreshold && pending >= top / 8
        }
    }

    /// Roughly how many notes are not in the search index yet (keys above the index's
    /// marker), 0 when it is complete.
    /// - Throws: ``DeckError`` `closed`; the store's error.
    public func unindexedNoteEstimate() throws -> Int64 {
        try requireOpen()
        return try container.withDatabase(for: Note.self) { db in
            guard let through = try DeckStoreV2.indexedThrough(db) else { return 0 }
            let top = try db.scalar(#"SELECT max("pk") FROM main."Note""#, as: Int64.self) ?? 0
            return max(top - through, 0)
        }
    }

    /// Whether a search of this deck now reads its notes instead of the index (many notes
    /// unindexed: see ``search(_:limit:)``); a writer then does well to index them
    /// (``updateSearchIndex(notesPerTransaction:)``) in the background.
    /// - Throws: ``DeckError`` `closed`; the store's error.
    public func searchReadsNotesInstead() throws -> Bool {
        try requireOpen()
        return try searchReadsNotes()
    }
}
