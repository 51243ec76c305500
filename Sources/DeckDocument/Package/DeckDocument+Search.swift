import Foundation
import Persistence
import SQLite

extension DeckDocument {
    /// Full-text search over front, back and tags, best matches first (FTS5 `bm25`).
    ///
    /// Case and diacritics are ignored (`cafe` finds `Café`); every word must occur, and a
    /// word matches as a prefix (`conj` finds `conjugaison`). FTS syntax characters in
    /// `text` are taken literally. Unsaved changes are not searched: save first.
    public func search(_ text: String, limit: Int?) throws -> [Card] {
        try requireOpen()
        guard let query = Self.ftsQuery(text) else { return [] }
        let keys: [Int64] = try container.withDatabase(for: Card.self) { db in
            let rows = try db.rows("SELECT rowid FROM \"CardSearch\" WHERE \"CardSearch\" MATCH ? ORDER BY bm25(\"CardSearch\"), rowid LIMIT ?",
                                   [.text(query), .integer(Int64(limit ?? -1))])
            return rows.compactMap { if case .integer(let key)? = $0.first { key } else { nil } }
        }
        return try cards(primaryKeys: keys)
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
