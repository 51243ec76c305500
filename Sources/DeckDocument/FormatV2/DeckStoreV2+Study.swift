import Foundation
import Persistence
import SQLite

/// One card as the study queries read it: the columns a study queue is built from, straight
/// from the store (no model).
public struct StudyCardRow: Sendable, Hashable {
    /// The card's key (its id).
    public var id: Int64
    /// Its note's key; 0 when it has none.
    public var note: Int64
    /// Its deck's key.
    public var deck: Int64
    /// Its queue, as ``DeckSchemaV2/CardQueue`` numbers it.
    public var queue: DeckSchemaV2.CardQueue
    /// Its due value, read by its queue.
    public var due: Int64
    public var repetitions: Int
    public var ordinal: Int

    public init(id: Int64, note: Int64, deck: Int64, queue: DeckSchemaV2.CardQueue, due: Int64, repetitions: Int, ordinal: Int) {
        self.id = id
        self.note = note
        self.deck = deck
        self.queue = queue
        self.due = due
        self.repetitions = repetitions
        self.ordinal = ordinal
    }
}

/// What a study scan does after a row: go on, leave the row's deck (its limit is reached), or stop.
public enum StudyScanStep: Sendable, Hashable {
    case next, skipDeck, stop
}

/// The order a study scan gives cards in.
public enum StudyScanOrder: Sendable, Hashable {
    /// By due, then template ordinal, then key, across all the decks and queues asked for
    /// (learning and reviews as Anki gathers them).
    case dueAcrossDecks
    /// Deck by deck in the order given, each by due (a new card's position), ordinal and key
    /// (new cards as Anki gathers them).
    case deckByDeck
}

/// Review-log counts of one deck since a time.
public struct StudyReviewCounts: Sendable, Hashable {
    /// New cards introduced (first answers: a learning row with no previous interval).
    public var new: Int
    /// Review answers.
    public var reviews: Int

    public init(new: Int, reviews: Int) {
        self.new = new
        self.reviews = reviews
    }
}

extension DeckStoreV2 {
    /// The columns of a ``StudyCardRow``, of the card `c`.
    static let studyColumns = #"c."pk", c."note", c."deck", c."queue", c."due", c."repetitions", c."ordinal""#

    /// Calls `body` with the cards of `decks` whose queue is one of `queues` (and, when
    /// `dueAtMost` is given, whose due value is at most that), in `order`, as one query per
    /// deck and queue steps them on the `Card_deck_queue_due` index: nothing is read beyond
    /// the rows `body` takes, so the first card comes in the time of one index lookup per
    /// deck and queue, whatever the size of the deck. Return ``StudyScanStep/skipDeck`` to
    /// take no more cards of the row's deck, ``StudyScanStep/stop`` to end the scan.
    ///
    /// Unsaved changes of a context are not seen: save first. `body` must not use the
    /// container's store (the scan holds its connection).
    /// - Throws: the store's error (a value of the wrong storage class included); what `body` throws.
    public static func forEachStudyCard(in container: ModelContainer, decks: [Int64], queues: [DeckSchemaV2.CardQueue],
                                        dueAtMost: Int64? = nil, order: StudyScanOrder,
                                        _ body: (StudyCardRow) throws -> StudyScanStep) throws {
        try container.withDatabase(for: DeckSchemaV2.Card.self) { db in
            try scanStudyCards(db, decks: decks, queues: queues, dueAtMost: dueAtMost, order: order) { row, _ in try body(row) }
        }
    }

    /// The scan of ``forEachStudyCard(in:decks:queues:dueAtMost:order:_:)`` on `db`, reading
    /// `extraColumns` (from index 7) after the ``studyColumns`` of the card `c`, from `c` and
    /// `joins`. `screen` sees each row as it is read, before its study columns are converted
    /// (a value check); `body` gets the row with its statement, still on that row.
    static func scanStudyCards(_ db: Database, extraColumns: String = "", joins: String = "", decks: [Int64],
                               queues: [DeckSchemaV2.CardQueue], dueAtMost: Int64?, order: StudyScanOrder,
                               screen: (Statement) throws -> Void = { _ in },
                               _ body: (StudyCardRow, Statement) throws -> StudyScanStep) throws {
        guard !decks.isEmpty, !queues.isEmpty else { return }
        var sql = #"SELECT \#(studyColumns)\#(extraColumns.isEmpty ? "" : ", " + extraColumns) FROM "Card" c \#(joins) WHERE c."deck" = ? AND c."queue" = ?"#
        if dueAtMost != nil { sql += #" AND c."due" <= ?"# }
        sql += #" ORDER BY c."due", c."ordinal", c."pk""#
        func bind(_ statement: Statement, deck: Int64, queue: DeckSchemaV2.CardQueue) {
            statement.reset()
            statement.bind(int64: deck, at: 1)
            statement.bind(int64: Int64(queue.rawValue), at: 2)
            if let dueAtMost { statement.bind(int64: dueAtMost, at: 3) }
        }
        func read(_ statement: Statement) throws -> StudyCardRow {
            try screen(statement)
            return try studyRow(statement)
        }
        switch order {
        case .deckByDeck:
            let statement = try db.prepare(sql)
            decks: for deck in decks {
                for queue in queues {
                    bind(statement, deck: deck, queue: queue)
                    while try statement.step() {
                        switch try body(try read(statement), statement) {
                        case .next: continue
                        case .skipDeck: continue decks
                        case .stop: return
                        }
                    }
                }
            }
        case .dueAcrossDecks:
            // One statement per deck and queue, merged on (due, ordinal, key) through a heap;
            // a stream's statement stays on the row it has in the heap until that row is taken.
            var streams: [(statement: Statement, row: StudyCardRow)] = []
            for deck in decks {
                for queue in queues {
                    let statement = try db.prepare(sql)
                    bind(statement, deck: deck, queue: queue)
                    if try statement.step() { streams.append((statement, try read(statement))) }
                }
            }
            var heap = StudyMergeHeap(streams.map(\.row).enumerated().map { ($0.element, $0.offset) })
            while let (row, stream) = heap.popMin() {
                switch try body(row, streams[stream].statement) {
                case .next:
                    if try streams[stream].statement.step() { heap.push(try read(streams[stream].statement), stream) }
                case .skipDeck:
                    // Drop every stream of the deck; only its current rows are in the heap.
                    heap.removeAll { streams[$0].row.deck == row.deck }
                case .stop: return
                }
            }
        }
    }

    /// The row the statement is on, its columns checked as a model fetch checks them.
    static func studyRow(_ statement: Statement) throws -> StudyCardRow {
        for index in Int32(0)..<7 where !statement.isInteger(at: index) && !(index == 1 && statement.isNull(at: index)) {
            throw PersistenceError.invalidStoredValue(entity: "Card \(statement.int64(at: 0))", attribute: statement.columnName(at: index),
                                                      value: "\(statement.value(at: index))")
        }
        let queueNumber = statement.int64(at: 3)
        guard let queue = Int(exactly: queueNumber).flatMap(DeckSchemaV2.CardQueue.init(rawValue:)) else {
            throw PersistenceError.invalidStoredValue(entity: "Card \(statement.int64(at: 0))", attribute: "queue", value: "\(queueNumber)")
        }
        return StudyCardRow(id: statement.int64(at: 0), note: statement.int64(at: 1), deck: statement.int64(at: 2), queue: queue,
                            due: statement.int64(at: 4), repetitions: Int(truncatingIfNeeded: statement.int64(at: 5)),
                            ordinal: Int(truncatingIfNeeded: statement.int64(at: 6)))
    }

    /// New cards introduced and reviews answered since `start` (milliseconds since 1970), by the
    /// key of the deck the answered card is in now: one query on the `Review_time` index.
    /// - Throws: the store's error.
    public static func reviewCounts(in container: ModelContainer, since start: Int64) throws -> [Int64: StudyReviewCounts] {
        try container.withDatabase(for: DeckSchemaV2.Review.self) { db in
            let statement = try db.prepare("""
                SELECT c."deck", sum(r."kind" = 0 AND r."lastInterval" = 0), sum(r."kind" = 1) FROM "Review" r \
                JOIN "Card" c ON c."pk" = r."card" WHERE r."time" >= ? AND c."deck" IS NOT NULL GROUP BY c."deck"
                """)
            try statement.bind([.integer(start)])
            var counts: [Int64: StudyReviewCounts] = [:]
            while try statement.step() {
                counts[statement.int64(at: 0)] = StudyReviewCounts(new: Int(truncatingIfNeeded: statement.int64(at: 1)),
                                                                    reviews: Int(truncatingIfNeeded: statement.int64(at: 2)))
            }
            return counts
        }
    }
}

/// A binary min-heap of the current rows of the merged streams, keyed on (due, ordinal, key).
struct StudyMergeHeap {
    private var items: [(row: StudyCardRow, stream: Int)] = []

    init(_ items: [(StudyCardRow, Int)]) {
        for (row, stream) in items { push(row, stream) }
    }

    private static func less(_ a: StudyCardRow, _ b: StudyCardRow) -> Bool {
        (a.due, a.ordinal, a.id) < (b.due, b.ordinal, b.id)
    }

    mutating func push(_ row: StudyCardRow, _ stream: Int) {
        items.append((row, stream))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.less(items[child].row, items[parent].row) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMin() -> (StudyCardRow, Int)? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            siftDown(from: 0)
        }
        return (first.row, first.stream)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count && Self.less(items[left].row, items[smallest].row) { smallest = left }
            if right < items.count && Self.less(items[right].row, items[smallest].row) { smallest = right }
            guard smallest != parent else { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }

    /// Removes the entries whose stream matches `predicate` and restores the heap.
    mutating func removeAll(where predicate: (Int) -> Bool) {
        let kept = items.filter { !predicate($0.stream) }
        guard kept.count != items.count else { return }
        items = []
        for item in kept { push(item.row, item.stream) }
    }
}

extension DeckStoreV2 {
    /// Saves `context` and, in the same transaction, rewrites the search index rows of `notes`
    /// (their tags or fields changed outside ``DeckDocument/save()``, which indexes what it saves):
    /// an answer that tags its note `leech` left the index without the tag, and `check` then
    /// reported the deck damaged.
    public static func save(_ context: ModelContext, reindexing notes: [DeckSchemaV2.Note]) throws {
        guard !notes.isEmpty else { return try context.save() }
        let container = context.container
        try container.withDatabase(for: DeckSchemaV2.Note.self) { db in try db.execute("SAVEPOINT deck_study_save") }
        do {
            try context.save()
            try container.withDatabase(for: DeckSchemaV2.Note.self) { db in
                let remove = try db.cachedStatement("DELETE FROM \"NoteSearch\" WHERE rowid = ?")
                let insert = try db.cachedStatement("INSERT INTO \"NoteSearch\"(rowid, fields, tags) VALUES (?, ?, ?)")
                for note in notes where !note.isDeleted && !note.persistentModelID.isTemporary {
                    try remove.execute([.integer(note.id)])
                    try insert.execute([.integer(note.id), .text(searchText(ofFields: note.fields)),
                                        .text(note.tags.map(\.name).joined(separator: " "))])
                }
                try db.execute("RELEASE deck_study_save")
            }
        } catch {
            // The save's own error is the one to report; the rollback only undoes the savepoint.
            do {
                try container.withDatabase(for: DeckSchemaV2.Note.self) { db in
                    try db.execute("ROLLBACK TO deck_study_save")
                    try db.execute("RELEASE deck_study_save")
                }
            } catch {}
            throw error
        }
    }
}

/// One card as `deck due` lists it: its study columns, the rest of its scheduling state and
/// what rendering its question takes (its note's type, fields and tags), from one row of the
/// scan (no model).
public struct DueCardRow: Sendable, Hashable {
    public var study: StudyCardRow
    public var type: DeckSchemaV2.CardType
    public var interval: Int
    public var lapses: Int
    public var flag: Int
    public var stability: Double?
    public var difficulty: Double?
    /// Its note's note type key; nil when the card has no note.
    public var noteType: Int64?
    /// Its note's field values in field order (empty without a note).
    public var fields: [String]
    /// Its note's tag names, sorted.
    public var tags: [String]

    public var id: Int64 { study.id }

    public init(study: StudyCardRow, type: DeckSchemaV2.CardType, interval: Int, lapses: Int, flag: Int, stability: Double?,
                difficulty: Double?, noteType: Int64?, fields: [String], tags: [String]) {
        self.study = study
        self.type = type
        self.interval = interval
        self.lapses = lapses
        self.flag = flag
        self.stability = stability
        self.difficulty = difficulty
        self.noteType = noteType
        self.fields = fields
        self.tags = tags
    }
}

extension DeckStoreV2 {
    /// The columns a ``DueCardRow`` adds to ``studyColumns`` (indexes 7 to 15), then the value
    /// checks of the card and its note (from 16): the note's key and the columns of
    /// ``dueNoteCheck`` (the note's rules, its `fields` apart, parsed in Swift as a listing does)
    /// and ``dueCardCheck``.
    static let dueColumns = """
        c."type", c."interval", c."lapses", c."flag", c."stability", c."difficulty", n."noteType", n."fields", \
        (SELECT group_concat(x, char(31)) FROM (SELECT t."name" AS x FROM "Note_tags" j JOIN "Tag" t ON t."pk" = j."target" \
        WHERE j."source" = n."pk" ORDER BY t."name")), \
        n."pk", \(dueNoteCheck.columns), \(dueCardCheck.columns)
        """

    /// The rules of the note (its `fields` apart) and of the card in ``dueColumns``, from index 17.
    static let dueNoteCheck = RowValueCheck(table: "Note", alias: "n", except: ["fields"])
    static let dueCardCheck = RowValueCheck(table: "Card", alias: "c")

    /// ``forEachStudyCard(in:decks:queues:dueAtMost:order:_:)`` reading each card's whole
    /// scheduling state and its note (one join by key, one tag lookup) as ``DueCardRow``s, in the
    /// same order and on the same index, in bounded memory.
    ///
    /// Each row read is checked against `check`'s value rules for the card and its note, in the
    /// statement that reads it, so only what is listed is checked (a listing's rule): a row
    /// breaking one is refused with ``DeckError`` `corrupt` naming `deck`, the row and the column.
    /// The deck's settings are not checked here (``DeckDocument/verifyValues(_:)`` `.settings`).
    /// - Throws: that refusal; the store's error; what `body` throws.
    public static func forEachDueCard(in container: ModelContainer, deck: URL, decks: [Int64], queues: [DeckSchemaV2.CardQueue],
                                      dueAtMost: Int64? = nil, order: StudyScanOrder,
                                      _ body: (DueCardRow) throws -> StudyScanStep) throws {
        try container.withDatabase(for: DeckSchemaV2.Card.self) { db in
            try scanStudyCards(db, extraColumns: dueColumns, joins: #"LEFT JOIN "Note" n ON n."pk" = c."note""#, decks: decks,
                               queues: queues, dueAtMost: dueAtMost, order: order,
                               screen: { statement in
                                   // (A card without its note has no note to check.)
                                   if !statement.isNull(at: 16), let column = dueNoteCheck.firstInvalidColumn(statement, at: 17) {
                                       throw valueError(db, deck: deck, table: "Note", key: statement.int64(at: 16), column: column)
                                   }
                                   if let column = dueCardCheck.firstInvalidColumn(statement, at: 17 + dueNoteCheck.columnCount) {
                                       throw valueError(db, deck: deck, table: "Card", key: statement.int64(at: 0), column: column)
                                   }
                               }) { row, statement in
                try body(try dueRow(row, statement, db, deck: deck))
            }
        }
    }

    /// The ``DueCardRow`` of a row of ``dueColumns`` whose values were checked.
    static func dueRow(_ row: StudyCardRow, _ statement: Statement, _ db: Database, deck: URL) throws -> DueCardRow {
        let hasNote = !statement.isNull(at: 16)
        var fields: [String] = []
        if hasNote {
            guard statement.isText(at: 14), let parsed = JSONStringArray.parse(statement.string(at: 14)) else {
                // The rule of `fields` says what is wrong, as `check` words it, when it is broken.
                let key = statement.int64(at: 16)
                let rule = firstInvalidColumn(of: "Note", alias: "n")
                if let column = try db.scalar("SELECT \(rule) FROM \"Note\" n WHERE n.\"pk\" = ?", [.integer(key)], as: String.self) {
                    throw valueError(db, deck: deck, table: "Note", key: key, column: column)
                }
                throw DeckError(path: deck.path, reason: "Note \(key).fields: not a JSON array of strings", kind: .corrupt)
            }
            fields = parsed
        }
        let tags: [String] = statement.withUTF8(at: 15) { bytes in
            bytes.isEmpty ? [] : bytes.split(separator: 0x1F).map { String(decoding: $0, as: UTF8.self) }
        }
        func optionalDouble(_ index: Int32) -> Double? { statement.isNull(at: index) ? nil : statement.double(at: index) }
        // The rules checked hold: `type` is 0–3, the counts and flag are 32-bit.
        return DueCardRow(study: row, type: DeckSchemaV2.CardType(rawValue: Int(statement.int64(at: 7))) ?? .new,
                          interval: Int(truncatingIfNeeded: statement.int64(at: 8)), lapses: Int(truncatingIfNeeded: statement.int64(at: 9)),
                          flag: Int(truncatingIfNeeded: statement.int64(at: 10)), stability: optionalDouble(11), difficulty: optionalDouble(12),
                          noteType: statement.isNull(at: 13) ? nil : statement.int64(at: 13), fields: fields, tags: tags)
    }
}
