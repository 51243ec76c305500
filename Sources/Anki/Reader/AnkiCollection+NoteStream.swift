import SQLite

extension AnkiCollection {
    /// Calls `body` with each note in id order, together with its first card (the lowest
    /// ordinal; the lowest id among equal ordinals; nil for a note without cards) and, when
    /// `includingReviews`, the review history of all its cards in time order.
    ///
    /// A merge of three ordered queries (notes by id, cards by note, reviews by note), so memory
    /// holds one note, one card and one note's reviews whatever the collection's size. Cards
    /// and reviews of notes that don't exist are skipped. Cards stored in note order (as nearly
    /// always) are read in storage order; others through Anki's `ix_cards_nid` or one SQLite
    /// sort. Reviews need one sort (given 8 MiB of memory; larger ones go through temporary files).
    ///
    /// - Throws: ``AnkiError/Kind/corruptCollection`` when a query fails; what `body` throws, as it is.
    package func forEachNoteWithCards(includingReviews: Bool,
                                      _ body: (AnkiNote, AnkiCard?, [AnkiReview]) throws -> Void) throws {
        try forEachNoteWithCardList(includingReviews: includingReviews, firstOnly: true) { note, cards, reviews in
            try body(note, cards.first, reviews)
        }
    }

    /// Calls `body` with each note in id order, with every card of it (by ordinal, then id)
    /// and, when `includingReviews`, the review history of its cards in time order; the
    /// same merge as ``forEachNoteWithCards(includingReviews:_:)``, memory bounded by one note.
    ///
    /// - Throws: ``AnkiError/Kind/corruptCollection`` when a query fails or a card's `data` is
    ///   not Anki's JSON (naming the card and the key); what `body` throws, as it is.
    package func forEachNoteWithAllCards(includingReviews: Bool,
                                         _ body: (AnkiNote, [AnkiCard], [AnkiReview]) throws -> Void) throws {
        try forEachNoteWithCardList(includingReviews: includingReviews, firstOnly: false, body)
    }

    private func forEachNoteWithCardList(includingReviews: Bool, firstOnly: Bool,
                                         _ body: (AnkiNote, [AnkiCard], [AnkiReview]) throws -> Void) throws {
        let notes = try prepare("SELECT id, guid, mid, mod, tags, flds FROM notes ORDER BY id")
        // Cards are nearly always stored in note order (Anki, genanki and our writer add a note's
        // cards after it): then the table is read in storage order, twice as fast as through
        // the `nid` index or a sort.
        let order = try cardsAreInNoteOrder() ? "id" : "nid, id"
        let cards = try prepare("""
            SELECT nid, ord, id, did, mod, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags\(firstOnly ? "" : ", data")
            FROM cards ORDER BY \(order)
            """)
        // Reviews are stored in time order: read in that order (not through `ix_revlog_cid`, whose
        // row lookups are random) and sorted by note. SQLite sizes a sort's memory by the page
        // cache, 2 MiB by default, which split a million reviews into many runs written to and
        // merged from temporary files; 8 MiB (while the sort runs, then back) took a third less.
        let reviews = includingReviews ? try prepare("""
            SELECT c.nid, r.id, r.cid, r.ease, r.ivl, r.lastIvl, r.factor, r.time, r.type, r.usn
            FROM revlog AS r NOT INDEXED JOIN cards AS c ON c.id = r.cid ORDER BY c.nid, r.id
            """) : nil
        // A sort (of reviews, or of cards out of note order) runs at its statement's first step.
        var cardRow = false, reviewRow = false
        do {
            let cacheSize = try pragma("cache_size")
            try execute("PRAGMA cache_size = -8192")
            defer { try? execute("PRAGMA cache_size = \(cacheSize)") }
            cardRow = try step(cards)
            if let reviews { reviewRow = try step(reviews) }
        }
        var history: [AnkiReview] = []
        while try step(notes) {
            let id = notes.int64(at: 0)
            var first: AnkiCard?
            var firstOrdinal = Int64.max
            var all: [AnkiCard] = []
            while cardRow {
                let noteID = cards.int64(at: 0)
                if noteID > id { break }
                if noteID == id {
                    if firstOnly {
                        let ordinal = cards.int64(at: 1)
                        if ordinal < firstOrdinal {
                            firstOrdinal = ordinal
                            first = Self.card(cards)
                        }
                    } else {
                        var card = Self.card(cards)
                        if let key = card.readData(cards.string(at: 16)) {
                            throw AnkiError(.corruptCollection, path: label,
                                            reason: key == "data" ? "cards.data of card \(card.id) is not a JSON object"
                                                : "cards.data of card \(card.id): \"\(key)\" has the wrong type")
                        }
                        all.append(card)
                    }
                }
                cardRow = try step(cards)
            }
            if firstOnly {
                all = first.map { [$0] } ?? []
            } else if all.count > 1 {
                all.sort { ($0.ordinal, $0.id) < ($1.ordinal, $1.id) }
            }
            history.removeAll(keepingCapacity: true)
            if let reviews {
                while reviewRow {
                    let noteID = reviews.int64(at: 0)
                    if noteID > id { break }
                    if noteID == id { history.append(Self.review(reviews)) }
                    reviewRow = try step(reviews)
                }
            }
            let note = AnkiNote(id: id, guid: notes.string(at: 1), noteTypeID: notes.int64(at: 2),
                                modified: notes.int64(at: 3), tags: notes.withUTF8(at: 4, AnkiText.splitTags),
                                fields: notes.withUTF8(at: 5, AnkiText.splitFields))
            try body(note, all, history)
        }
    }

    /// The GUIDs that more than one note has (usually none): one SQLite sort over the notes,
    /// whose memory SQLite bounds (it spills to a temporary file), instead of a set of every GUID.
    package func repeatedGUIDs() throws(AnkiError) -> Set<String> {
        let statement = try prepare("SELECT guid FROM notes GROUP BY guid HAVING count(*) > 1")
        var result: Set<String> = []
        while try step(statement) { result.insert(statement.string(at: 0)) }
        return result
    }

    /// Whether the cards, in id order, have non-decreasing note ids (one pass over one column,
    /// stopping at the first card out of order).
    func cardsAreInNoteOrder() throws(AnkiError) -> Bool {
        let cards = try prepare("SELECT nid FROM cards ORDER BY id")
        var previous = Int64.min
        while try step(cards) {
            let noteID = cards.int64(at: 0)
            if noteID < previous { return false }
            previous = noteID
        }
        return true
    }

    /// The card in the current row of the cards query above.
    private static func card(_ row: Statement) -> AnkiCard {
        AnkiCard(id: row.int64(at: 2), noteID: row.int64(at: 0), deckID: row.int64(at: 3),
                 ordinal: Int(truncatingIfNeeded: row.int64(at: 1)), modified: row.int64(at: 4),
                 type: .init(rawValue: Int(truncatingIfNeeded: row.int64(at: 5))),
                 queue: .init(rawValue: Int(truncatingIfNeeded: row.int64(at: 6))),
                 due: row.int64(at: 7), interval: row.int64(at: 8), factor: row.int64(at: 9),
                 reps: row.int64(at: 10), lapses: row.int64(at: 11), left: row.int64(at: 12),
                 originalDue: row.int64(at: 13), originalDeckID: row.int64(at: 14),
                 flags: Int(truncatingIfNeeded: row.int64(at: 15)))
    }

    /// The review in the current row of the reviews query above.
    private static func review(_ row: Statement) -> AnkiReview {
        AnkiReview(id: row.int64(at: 1), cardID: row.int64(at: 2), ease: Int(truncatingIfNeeded: row.int64(at: 3)),
                   interval: row.int64(at: 4), lastInterval: row.int64(at: 5), factor: row.int64(at: 6),
                   timeTaken: row.int64(at: 7), kind: .init(rawValue: Int(truncatingIfNeeded: row.int64(at: 8))),
                   usn: Int(truncatingIfNeeded: row.int64(at: 9)))
    }

    /// The integer value of `PRAGMA name`.
    private func pragma(_ name: String) throws(AnkiError) -> Int64 {
        let statement = try prepare("PRAGMA \(name)")
        return try step(statement) ? statement.int64(at: 0) : 0
    }

    /// Runs SQL that returns nothing; SQLite's errors become ``AnkiError``s.
    private func execute(_ sql: String) throws(AnkiError) {
        let statement = try prepare(sql)
        while try step(statement) {}
    }

    /// A prepared statement; SQLite's errors become ``AnkiError``s.
    private func prepare(_ sql: String) throws(AnkiError) -> Statement {
        do {
            return try database.prepare(sql)
        } catch {
            throw AnkiError(.corruptCollection, path: label, reason: "cannot read the collection: \(error.message)")
        }
    }

    /// One step; SQLite's errors become ``AnkiError``s (the caller's own errors pass through untouched).
    private func step(_ statement: Statement) throws(AnkiError) -> Bool {
        do {
            return try statement.step()
        } catch {
            throw AnkiError(.corruptCollection, path: label, reason: "cannot read the collection: \(error.message)")
        }
    }
}
