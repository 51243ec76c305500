import DeckFilter
import Foundation
import Persistence
import SQLite

extension DeckDocument {
    /// The listing rows of the notes matching a filter, sorted, paged (``forEachCardRow(where:sortedBy:limit:offset:_:)`` collected).
    /// - Throws: as ``forEachCardRow(where:sortedBy:limit:offset:_:)``.
    public func cards(where filter: FilterExpression?, sortedBy: [(field: String, descending: Bool)] = [],
                      limit: Int? = nil, offset: Int? = nil) throws -> [CardRow] {
        var rows: [CardRow] = []
        try forEachCardRow(where: filter, sortedBy: sortedBy, limit: limit, offset: offset) { rows.append($0); return true }
        return rows
    }

    /// Notes matching a filter, sorted, paged (as ``forEachCardRow(where:sortedBy:limit:offset:_:)``
    /// lists them); the filter and sort run in SQL.
    ///
    /// `sortedBy` keys are filter field names except `tag` and `text`; ties are broken by id.
    /// Unsaved changes are not seen by the filter: save first.
    /// - Throws: ``DeckQueryError`` for an unknown field, an unsupported operator or a value
    ///   of the wrong type; ``DeckError`` when the deck is closed.
    public func notes(where filter: FilterExpression?, sortedBy: [(field: String, descending: Bool)] = [],
                      limit: Int? = nil, offset: Int? = nil) throws -> [Note] {
        try requireOpen()
        let (sql, arguments) = try Self.noteQuery(where: filter, sortedBy: sortedBy, limit: limit, offset: offset)
        let keys: [Int64] = try container.withDatabase(for: Note.self) { db in
            try db.registerTextFunctions()
            return try db.rows(sql, arguments).compactMap { if case .integer(let key)? = $0.first { key } else { nil } }
        }
        return try keys.compactMap { try note(id: $0) }
    }

    /// The number of notes matching a filter, counted in SQL.
    public func noteCount(where filter: FilterExpression?) throws -> Int {
        try requireOpen()
        var translator = CardFilterTranslator()
        let condition = try filter.map { try translator.translate($0) }
        let sql = "SELECT count(*) FROM \(CardFilterTranslator.source)" + (condition.map { " WHERE \($0)" } ?? "")
        return try container.withDatabase(for: Note.self) { db in
            try db.registerTextFunctions()
            return try db.scalar(sql, translator.arguments, as: Int.self) ?? 0
        }
    }

    /// The SQL selecting note keys for a filter (exposed for tests and `--explain`).
    static func noteQuery(where filter: FilterExpression?, sortedBy: [(field: String, descending: Bool)],
                          limit: Int?, offset: Int?) throws -> (sql: String, arguments: [SQLValue]) {
        var translator = CardFilterTranslator()
        var sql = "SELECT n.\"pk\" FROM \(CardFilterTranslator.source)"
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
