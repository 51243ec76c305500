import DeckFilter
import Foundation
import Persistence
import SQLite

/// One note as a listing shows it, read straight from the store (no model): a row per note,
/// named by the id of its first card (the card of the lowest key, which a migrated version 1
/// card keeps), with the note's first two fields as its front and back (as stored, HTML).
public struct CardRow: Sendable, Hashable {
    /// The id of the note's first card (what `deck edit` and `deck rm` take).
    public var id: Int64
    /// The kind of its note type (`basic`, `reversible`, `cloze`: see ``CardKind/init(noteType:)``).
    public var kind: String
    /// The note's first field (for a cloze note, its text).
    public var front: String
    /// The note's second field, or "".
    public var back: String
    /// Tag names, sorted.
    public var tags: [String]
    public var created: Date
    public var modified: Date
    /// The card's deck, note type, template and scheduling state, when the listing asked for them.
    public var details: CardDetails?

    public init(id: Int64, kind: String, front: String, back: String, tags: [String], created: Date, modified: Date,
                details: CardDetails? = nil) {
        self.id = id
        self.kind = kind
        self.front = front
        self.back = back
        self.tags = tags
        self.created = created
        self.modified = modified
        self.details = details
    }
}

/// What a listing of cards shows of a card beyond its note: where it is and how it is scheduled.
public struct CardDetails: Sendable, Hashable {
    /// The note's key.
    public var note: Int64
    /// The name of the note's type.
    public var noteType: String
    /// The name of the card's template ("Card 1", "Cloze").
    public var template: String
    /// The template's ordinal, or the cloze number minus one.
    public var ordinal: Int
    /// The full `::` path of the card's deck.
    public var deck: String
    /// `new`, `learning`, `review`, `relearning` (the card's type) or, when it is out of the
    /// queue, `suspended`, `buried`.
    public var state: String
    /// When it is due (learning: the time; review: the start of its day); nil for new cards.
    public var due: Date?
    /// Days (review cards).
    public var interval: Int
    /// Ease factor as a ratio (2.5), 0 for new cards and under FSRS.
    public var ease: Double
    public var repetitions: Int
    public var lapses: Int
    /// 0 (none) to 7.
    public var flag: Int
}

extension DeckDocument {
    /// Calls `body` with each card matching `filter`, sorted and paged as
    /// ``cards(where:sortedBy:limit:offset:)`` would return them, as rows come from one SQL
    /// statement (the tags of each card from a subquery of the same statement): no models,
    /// no lookup per card, memory bounded whatever the deck's size, and the first row
    /// arrives before the last is read (in key order, nothing is sorted). Return `false`
    /// from `body` to stop early.
    ///
    /// Unsaved changes are not seen: save first.
    /// - Throws: ``DeckQueryError`` for a filter or sort key that does not translate;
    ///   ``DeckError`` when the deck is closed; the store's error; what `body` throws.
    ///
    /// With `perCard`, a row per card (named by its own id) instead of a row per note; with
    /// `details`, each row's ``CardRow/details`` are read too (deck, type, template, state).
    public func forEachCardRow(where filter: FilterExpression?, sortedBy: [(field: String, descending: Bool)] = [],
                               limit: Int? = nil, offset: Int? = nil, perCard: Bool = false, details: Bool = false,
                               byteOrder: Bool = false, _ body: (CardRow) throws -> Bool) throws {
        try requireOpen()
        var translator = CardFilterTranslator()
        var sql = "SELECT \(Self.rowColumns)\(details ? ", " + Self.detailColumns : ""), \(Self.checkColumns) FROM \(CardFilterTranslator.source(perCard: perCard))"
        if let filter { sql += " WHERE " + (try translator.translate(filter)) }
        let order = try sortedBy.map { try CardFilterTranslator.orderTerm($0.field, descending: $0.descending, byteOrder: byteOrder) }
        sql += " ORDER BY " + (order + ["c.\"pk\""]).joined(separator: ", ")
        var arguments = translator.arguments
        if limit != nil || offset != nil {
            sql += " LIMIT ? OFFSET ?"
            arguments += [.integer(Int64(limit ?? -1)), .integer(Int64(offset ?? 0))]
        }
        try container.withDatabase(for: Note.self) { db in
            try db.registerTextFunctions()
            let statement = try db.prepare(sql)
            try statement.bind(arguments)
            while try statement.step() {
                if try !body(try row(statement, db, details: details)) { break }
            }
        }
    }

    /// The ids of the cards matching `filter`, in key order: with `perCard` every matching
    /// card, else every card of each matching note (a note matches through its first card, as
    /// a listing of notes shows it).
    /// - Throws: as ``forEachCardRow(where:sortedBy:limit:offset:perCard:details:_:)``.
    public func cardIDs(where filter: FilterExpression?, perCard: Bool) throws -> [Int64] {
        try requireOpen()
        var translator = CardFilterTranslator()
        let condition = try filter.map { try translator.translate($0) }
        let sql: String
        if perCard {
            sql = "SELECT c.\"pk\" FROM \(CardFilterTranslator.cardSource)" + (condition.map { " WHERE \($0)" } ?? "") + " ORDER BY c.\"pk\""
        } else {
            sql = "SELECT x.\"pk\" FROM \"Card\" x WHERE x.\"note\" IN (SELECT n.\"pk\" FROM \(CardFilterTranslator.source)"
                + (condition.map { " WHERE \($0)" } ?? "") + ") ORDER BY x.\"pk\""
        }
        return try container.withDatabase(for: Note.self) { db in
            try db.registerTextFunctions()
            return try db.rows(sql, translator.arguments).compactMap { if case .integer(let key)? = $0.first { key } else { nil } }
        }
    }

    /// The keys of the notes matching `filter` (through their first card), in key order.
    public func noteIDs(where filter: FilterExpression?) throws -> [Int64] {
        try requireOpen()
        var translator = CardFilterTranslator()
        let condition = try filter.map { try translator.translate($0) }
        let sql = "SELECT n.\"pk\" FROM \(CardFilterTranslator.source)" + (condition.map { " WHERE \($0)" } ?? "") + " ORDER BY n.\"pk\""
        return try container.withDatabase(for: Note.self) { db in
            try db.registerTextFunctions()
            return try db.rows(sql, translator.arguments).compactMap { if case .integer(let key)? = $0.first { key } else { nil } }
        }
    }

    /// Calls `body` with the cards ``search(_:limit:)`` finds, best first, as rows (read in
    /// batches of keys, without models). Return `false` from `body` to stop early.
    /// - Throws: as ``search(_:limit:)``; what `body` throws.
    public func forEachSearchRow(matching text: String, limit: Int?, _ body: (CardRow) throws -> Bool) throws {
        let keys = try searchKeys(text, limit: limit)
        let batch = 500
        var start = 0
        while start < keys.count {
            let slice = keys[start..<min(start + batch, keys.count)]
            start += batch
            var found: [Int64: CardRow] = [:]
            try container.withDatabase(for: Note.self) { db in
                let placeholders = Array(repeating: "?", count: slice.count).joined(separator: ", ")
                let statement = try db.prepare("SELECT \(Self.rowColumns), \(Self.checkColumns) FROM \(CardFilterTranslator.source) WHERE c.\"pk\" IN (\(placeholders))")
                try statement.bind(slice.map { SQLValue.integer($0) })
                while try statement.step() {
                    let row = try self.row(statement, db)
                    found[row.id] = row
                }
            }
            for key in slice {
                guard let row = found[key] else { continue }
                if try !body(row) { return }
            }
        }
    }

    /// The cards ``forEachSearchRow(matching:limit:_:)`` finds, narrowed to the notes matching
    /// `filter` (a note through its first card, as ``forEachCardRow(where:sortedBy:limit:offset:perCard:details:byteOrder:_:)``
    /// matches it) and, with `sortedBy`, in that order (equal keys best match first) rather than
    /// best first. The search's matches are joined to one listing statement in their rank order.
    /// - Throws: as both.
    public func forEachSearchRow(matching text: String, where filter: FilterExpression?,
                                 sortedBy: [(field: String, descending: Bool)] = [], limit: Int?, byteOrder: Bool = false,
                                 _ body: (CardRow) throws -> Bool) throws {
        guard filter != nil || !sortedBy.isEmpty else { return try forEachSearchRow(matching: text, limit: limit, body) }
        var translator = CardFilterTranslator()
        // Translated first, so a bad filter or sort key is an error before the search runs.
        let condition = try filter.map { try translator.translate($0) }
        let order = try sortedBy.map { try CardFilterTranslator.orderTerm($0.field, descending: $0.descending, byteOrder: byteOrder) }
        let keys = try searchKeys(text, limit: nil)
        guard !keys.isEmpty else { return }
        // CROSS JOIN keeps the matches the outer loop: each finds its card by key.
        var sql = "SELECT \(Self.rowColumns), \(Self.checkColumns) FROM json_each(?) h CROSS JOIN \(CardFilterTranslator.source) "
            + "WHERE c.\"pk\" = h.\"value\""
        if let condition { sql += " AND (\(condition))" }
        sql += " ORDER BY " + (order + ["h.\"key\""]).joined(separator: ", ")
        var arguments: [SQLValue] = [.text("[" + keys.map(String.init).joined(separator: ",") + "]")] + translator.arguments
        if let limit {
            sql += " LIMIT ?"
            arguments.append(.integer(Int64(limit)))
        }
        try container.withDatabase(for: Note.self) { db in
            try db.registerTextFunctions()
            let statement = try db.prepare(sql)
            try statement.bind(arguments)
            while try statement.step() {
                if try !body(try row(statement, db)) { break }
            }
        }
    }

    /// The columns of a ``CardRow``; tag names joined by U+001F (a tag never holds it). The
    /// note's fields come as stored (JSON), front and back taken out by ``row(_:_:details:)``:
    /// SQLite 3.40 parses the JSON again for each `json_valid`, `json_type` and `json_extract`,
    /// eight times a row, which was most of a listing's time.
    static let rowColumns = """
        c."pk", \(CardFilterTranslator.kindExpression), n."fields", NULL, \
        (SELECT group_concat(x, char(31)) FROM (SELECT t."name" AS x FROM "Note_tags" j JOIN "Tag" t ON t."pk" = j."target" \
        WHERE j."source" = n."pk" ORDER BY t."name")), n."created", n."modified"
        """

    /// The columns that check a row's values, after the others (``rowColumns``, and
    /// ``detailColumns`` when read): the note's key, the first column of the note and of the
    /// card that breaks a value rule of `check` (NULL when none does), the note type's key.
    ///
    /// The note's `fields` rule is left to ``row(_:_:details:)``, which parses them: a note whose
    /// fields it can't read as a JSON array of strings is checked by ``checkedFields(ofNote:_:)``.
    static let checkColumns = """
        n."pk", \(noteCheck.columns), \(cardCheck.columns), t0."pk"
        """

    /// The rules of the note (its `fields` apart) and of the card in ``checkColumns``.
    static let noteCheck = DeckStoreV2.RowValueCheck(table: "Note", alias: "n", except: ["fields"])
    static let cardCheck = DeckStoreV2.RowValueCheck(table: "Card", alias: "c")

    /// The columns of ``CardDetails``, after ``rowColumns`` (indexes 7 to 19).
    static let detailColumns = """
        n."pk", t0."name", coalesce(\(CardFilterTranslator.templateExpression), ''), c."ordinal", \
        coalesce(\(CardFilterTranslator.deckExpression), ''), c."type", c."queue", \(CardFilterTranslator.dueExpression), \
        c."interval", c."easeFactor", c."repetitions", c."lapses", c."flag"
        """

    private static func details(_ statement: Statement) -> CardDetails {
        let queue = statement.int64(at: 13)
        let state: String = switch queue {
        case -1: "suspended"
        case -2, -3: "buried"
        default:
            switch statement.int64(at: 12) {
            case 0: "new"
            case 1: "learning"
            case 2: "review"
            default: "relearning"
            }
        }
        let due: Date? = statement.isNumber(at: 14) ? Date(timeIntervalSince1970: statement.double(at: 14)) : nil
        let ease = statement.int64(at: 16)
        return CardDetails(note: statement.int64(at: 7), noteType: statement.isText(at: 8) ? statement.string(at: 8) : "",
                           template: statement.isText(at: 9) ? statement.string(at: 9) : "", ordinal: Int(truncatingIfNeeded: statement.int64(at: 10)),
                           deck: statement.isText(at: 11) ? statement.string(at: 11) : "", state: state,
                           due: due.flatMap { CardValueLimits.dates.contains($0.timeIntervalSince1970) ? $0 : nil },
                           interval: Int(truncatingIfNeeded: statement.int64(at: 15)), ease: Double(ease) / 1000,
                           repetitions: Int(truncatingIfNeeded: statement.int64(at: 17)), lapses: Int(truncatingIfNeeded: statement.int64(at: 18)),
                           flag: Int(truncatingIfNeeded: statement.int64(at: 19)))
    }

    /// Refuses a row whose note or card breaks a value rule of `check` (a store edited outside
    /// SampleDeck: exit 65 naming the deck, the row and the column), never printing it as if it
    /// were valid (nor formatting an infinite date); the rules are evaluated by the statement
    /// that reads the row (``checkColumns``, from index `first`), so rows still stream.
    private func checkValues(_ statement: Statement, _ db: Database, first: Int32) throws {
        let card = first + 1 + Self.noteCheck.columnCount, noteType = card + Self.cardCheck.columnCount
        if let column = Self.noteCheck.firstInvalidColumn(statement, at: first + 1) {
            throw DeckStoreV2.valueError(db, deck: url, table: "Note", key: statement.int64(at: first), column: column)
        }
        if let column = Self.cardCheck.firstInvalidColumn(statement, at: card) {
            throw DeckStoreV2.valueError(db, deck: url, table: "Card", key: statement.int64(at: 0), column: column)
        }
        if !statement.isText(at: 1) || CardKind(rawValue: statement.string(at: 1)) == nil {
            throw DeckStoreV2.valueError(db, deck: url, table: "NoteType", key: statement.int64(at: noteType), column: "kind")
        }
    }

    /// The front and back of a note whose fields the fast reader refused, by the SQL rules: the
    /// refusal of a value rule of the note (`check`'s words), nil when its first two values are
    /// not text, else the two values (a valid array of other values beyond them).
    private func checkedFields(ofNote key: Int64, _ db: Database) throws -> (String, String)? {
        let rule = DeckStoreV2.firstInvalidColumn(of: "Note", alias: "n")
        let rows = try db.rows("SELECT \(rule), \(CardFilterTranslator.frontExpression), \(CardFilterTranslator.backExpression) FROM \"Note\" n WHERE n.\"pk\" = ?",
                               [.integer(key)])
        guard let row = rows.first, row.count == 3 else { throw DeckError(path: url.path, reason: "no note \(key)", kind: .corrupt) }
        if case .text(let column) = row[0] { throw DeckStoreV2.valueError(db, deck: url, table: "Note", key: key, column: column) }
        guard case .text(let front) = row[1], case .text(let back) = row[2] else { return nil }
        return (front, back)
    }

    private func row(_ statement: Statement, _ db: Database, details: Bool = false) throws -> CardRow {
        let first: Int32 = details ? 20 : 7
        // The fields first: a note whose fields break their rule is refused as `check` words it,
        // before a later column of the note (the rules' order: guid, fields, …).
        let fields = statement.isText(at: 2) ? JSONStringArray.parse(statement.string(at: 2)) : nil
        let (front, back): (String, String)
        if let fields {
            try checkValues(statement, db, first: first)
            (front, back) = (fields.first ?? "", fields.count > 1 ? fields[1] : "")
        } else {
            let checked = try checkedFields(ofNote: statement.int64(at: first), db)
            try checkValues(statement, db, first: first)
            guard let checked else {
                throw DeckError(path: url.path, reason: "Note \(statement.int64(at: first)).fields: not a JSON array of strings", kind: .corrupt)
            }
            (front, back) = checked
        }
        let tags: [String] = statement.withUTF8(at: 4) { bytes in
            bytes.isEmpty ? [] : bytes.split(separator: 0x1F).map { String(decoding: $0, as: UTF8.self) }
        }
        return CardRow(id: statement.int64(at: 0), kind: statement.string(at: 1), front: front,
                       back: back, tags: tags,
                       created: Date(timeIntervalSince1970: statement.double(at: 5)),
                       modified: Date(timeIntervalSince1970: statement.double(at: 6)),
                       details: details ? Self.details(statement) : nil)
    }
}
