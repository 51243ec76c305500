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

    public init(id: Int64, kind: String, front: String, back: String, tags: [String], created: Date, modified: Date) {
        self.id = id
        self.kind = kind
        self.front = front
        self.back = back
        self.tags = tags
        self.created = created
        self.modified = modified
    }
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
    public func forEachCardRow(where filter: FilterExpression?, sortedBy: [(field: String, descending: Bool)] = [],
                               limit: Int? = nil, offset: Int? = nil, _ body: (CardRow) throws -> Bool) throws {
        try requireOpen()
        var translator = CardFilterTranslator()
        var sql = "SELECT \(Self.rowColumns) FROM \(CardFilterTranslator.source)"
        if let filter { sql += " WHERE " + (try translator.translate(filter)) }
        let order = try sortedBy.map { try CardFilterTranslator.orderTerm($0.field, descending: $0.descending) }
        sql += " ORDER BY " + (order + ["c.\"pk\""]).joined(separator: ", ")
        var arguments = translator.arguments
        if limit != nil || offset != nil {
            sql += " LIMIT ? OFFSET ?"
            arguments += [.integer(Int64(limit ?? -1)), .integer(Int64(offset ?? 0))]
        }
        try container.withDatabase(for: Note.self) { db in
            let statement = try db.prepare(sql)
            try statement.bind(arguments)
            while try statement.step() {
                if try !body(try Self.row(statement)) { break }
            }
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
                let statement = try db.prepare("SELECT \(Self.rowColumns) FROM \(CardFilterTranslator.source) WHERE c.\"pk\" IN (\(placeholders))")
                try statement.bind(slice.map { SQLValue.integer($0) })
                while try statement.step() {
                    let row = try Self.row(statement)
                    found[row.id] = row
                }
            }
            for key in slice {
                guard let row = found[key] else { continue }
                if try !body(row) { return }
            }
        }
    }

    /// The columns of a ``CardRow``; tag names joined by U+001F (a tag never holds it).
    static let rowColumns = """
        c."pk", \(CardFilterTranslator.kindExpression), \(CardFilterTranslator.frontExpression), \(CardFilterTranslator.backExpression), \
        (SELECT group_concat(x, char(31)) FROM (SELECT t."name" AS x FROM "Note_tags" j JOIN "Tag" t ON t."pk" = j."target" \
        WHERE j."source" = n."pk" ORDER BY t."name")), n."created", n."modified"
        """

    /// The columns a row must hold in their storage class, dates within ``CardValueLimits/dates``:
    /// a store edited outside SampleDeck is refused as a model fetch would refuse it, never
    /// printed as if it were valid (nor formatted from an infinite date).
    private static func checkStorage(_ statement: Statement) throws {
        let id = statement.int64(at: 0)
        func invalid(_ attribute: String, _ index: Int32) -> PersistenceError {
            .invalidStoredValue(entity: "Note of card \(id)", attribute: attribute, value: "\(statement.value(at: index))")
        }
        for (index, name) in [(Int32(1), "kind"), (2, "fields"), (3, "fields")] where !statement.isText(at: index) {
            throw invalid(name, index)
        }
        for (index, name) in [(Int32(5), "created"), (6, "modified")]
        where !statement.isNumber(at: index) || !CardValueLimits.dates.contains(statement.double(at: index)) {
            throw invalid(name, index)
        }
        if CardKind(rawValue: statement.string(at: 1)) == nil { throw invalid("kind", 1) }
    }

    private static func row(_ statement: Statement) throws -> CardRow {
        try checkStorage(statement)
        let tags: [String] = statement.withUTF8(at: 4) { bytes in
            bytes.isEmpty ? [] : bytes.split(separator: 0x1F).map { String(decoding: $0, as: UTF8.self) }
        }
        return CardRow(id: statement.int64(at: 0), kind: statement.string(at: 1), front: statement.string(at: 2),
                       back: statement.string(at: 3), tags: tags,
                       created: Date(timeIntervalSince1970: statement.double(at: 5)),
                       modified: Date(timeIntervalSince1970: statement.double(at: 6)))
    }
}
