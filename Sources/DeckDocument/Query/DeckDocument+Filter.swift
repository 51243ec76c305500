import DeckFilter
import Foundation
import Persistence
import SQLite

extension DeckDocument {
    /// Cards matching a filter, sorted, paged; the filter and sort run in SQL.
    ///
    /// `sortedBy` keys are filter field names except `tag` and `text`; ties are broken by id.
    /// Unsaved changes are not seen by the filter: save first.
    /// - Throws: ``DeckQueryError`` for an unknown field, an unsupported operator or a value
    ///   of the wrong type; ``DeckError`` when the deck is closed.
    public func cards(where filter: FilterExpression?, sortedBy: [(field: String, descending: Bool)] = [],
                      limit: Int? = nil, offset: Int? = nil) throws -> [Card] {
        try requireOpen()
        let (sql, arguments) = try Self.cardQuery(where: filter, sortedBy: sortedBy, limit: limit, offset: offset)
        let keys: [Int64] = try container.withDatabase(for: Card.self) { db in
            try db.rows(sql, arguments).compactMap { if case .integer(let key)? = $0.first { key } else { nil } }
        }
        return try cards(primaryKeys: keys)
    }

    /// The number of cards matching a filter, counted in SQL.
    public func cardCount(where filter: FilterExpression?) throws -> Int {
        try requireOpen()
        var translator = CardFilterTranslator()
        let condition = try filter.map { try translator.translate($0) }
        let sql = "SELECT count(*) FROM \"Card\" c" + (condition.map { " WHERE \($0)" } ?? "")
        return try container.withDatabase(for: Card.self) { db in try db.scalar(sql, translator.arguments, as: Int.self) ?? 0 }
    }

    /// The SQL selecting card keys for a filter (exposed for tests and `--explain`).
    static func cardQuery(where filter: FilterExpression?, sortedBy: [(field: String, descending: Bool)],
                          limit: Int?, offset: Int?) throws -> (sql: String, arguments: [SQLValue]) {
        var translator = CardFilterTranslator()
        var sql = "SELECT c.\"pk\" FROM \"Card\" c"
        if let filter { sql += " WHERE " + (try translator.translate(filter)) }
        let order = try sortedBy.map { try CardFilterTranslator.orderTerm($0.field, descending: $0.descending) }
        sql += " ORDER BY " + (order + ["c.\"pk\""]).joined(separator: ", ")
        var arguments = translator.arguments
        if limit != nil || offset != nil {
            sql += " LIMIT ? OFFSET ?"
            arguments += [.integer(Int64(limit ?? -1)), .integer(Int64(offset ?? 0))]
        }
        return (sql, arguments)
    }

    /// The field names filters and sorts accept.
    public static var filterFieldNames: [String] { CardFilterTranslator.fieldNames }
}
