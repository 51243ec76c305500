import Foundation
import SQLite

/// Reads raw rows of a collection for tests that check stored columns.
struct SQLiteProbe {
    let database: Database

    init(_ url: URL) throws { database = try Database(path: url.path, mode: .readOnly) }

    /// The first row of `sql`, each column as text.
    func row(_ sql: String) throws -> [String] {
        let statement = try database.prepare(sql)
        guard try statement.step() else { return [] }
        return (0..<statement.columnCount).map { statement.string(at: $0) }
    }
}
