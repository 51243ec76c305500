import Foundation
import SQLite

extension Schema {
    /// The table of recorded transactions (see ``ModelContainer/isHistoryEnabled``).
    public static let historyTable = "persistence_history"
}

extension ModelContainer {
    /// Fetches the transactions recorded after `token`, oldest first, from every store.
    ///
    /// Another container (or another process) on the same store file sees them as soon as
    /// they are committed, so it can catch up on what changed without re-reading everything.
    /// - Throws: ``PersistenceError/database(_:)`` from SQLite.
    public func fetchHistory(after token: HistoryToken = HistoryToken()) throws -> [HistoryTransaction] {
        var rows: [(store: String, sequence: Int64, author: String?, timestamp: Double, changes: [String])] = []
        for store in stores {
            try store.withDatabase { db in
                do {
                    guard try db.tableExists(Schema.historyTable) else { return }
                    let after = token.positions[store.identifier] ?? 0
                    for row in try db.rows("SELECT \"token\", \"author\", \"timestamp\", \"inserted\", \"updated\", \"deleted\" FROM \(quoteIdentifier(Schema.historyTable)) WHERE \"token\" > ? ORDER BY \"token\"", [.integer(after)]) {
                        guard row.count == 6, case .integer(let sequence) = row[0] else { continue }
                        let author: String? = if case .text(let text) = row[1] { text } else { nil }
                        let timestamp: Double = switch row[2] { case .real(let v): v; case .integer(let v): Double(v); default: 0 }
                        let changes = row[3...5].map { value -> String in if case .text(let text) = value { text } else { "" } }
                        rows.append((store.identifier, sequence, author, timestamp, changes))
                    }
                } catch { throw PersistenceError.wrap(error) }
            }
        }
        rows.sort { ($0.timestamp, $0.store, $0.sequence) < ($1.timestamp, $1.store, $1.sequence) }
        var running = token
        return rows.map { row in
            running.positions[row.store] = row.sequence
            return HistoryTransaction(storeIdentifier: row.store, sequence: row.sequence, token: running, author: row.author,
                                      timestamp: Date(timeIntervalSince1970: row.timestamp),
                                      inserted: Self.decodeIdentifiers(row.changes[0], store: row.store),
                                      updated: Self.decodeIdentifiers(row.changes[1], store: row.store),
                                      deleted: Self.decodeIdentifiers(row.changes[2], store: row.store))
        }
    }

    /// The token after the newest recorded transaction (to start following from now).
    public func currentHistoryToken() throws -> HistoryToken {
        var token = HistoryToken()
        for store in stores {
            try store.withDatabase { db in
                do {
                    guard try db.tableExists(Schema.historyTable) else { return }
                    if let last = try db.scalar("SELECT max(\"token\") FROM \(quoteIdentifier(Schema.historyTable))", as: Int64.self) {
                        token.positions[store.identifier] = last
                    }
                } catch { throw PersistenceError.wrap(error) }
            }
        }
        return token
    }

    /// Deletes the transactions up to and including `token` (every reader has seen them).
    /// - Throws: ``PersistenceError/readOnlyStore(path:)``; ``PersistenceError/database(_:)``.
    public func deleteHistory(through token: HistoryToken) throws {
        for store in stores {
            guard let position = token.positions[store.identifier] else { continue }
            guard store.configuration.allowsSave else { throw PersistenceError.readOnlyStore(path: store.path) }
            try store.withDatabase { db in
                do {
                    guard try db.tableExists(Schema.historyTable) else { return }
                    try db.execute("DELETE FROM \(quoteIdentifier(Schema.historyTable)) WHERE \"token\" <= ?", [.integer(position)])
                } catch { throw PersistenceError.wrap(error) }
            }
        }
    }

    /// "Entity:1,2;Other:3" → identifiers.
    static func decodeIdentifiers(_ text: String, store: String) -> [PersistentIdentifier] {
        guard !text.isEmpty else { return [] }
        var identifiers: [PersistentIdentifier] = []
        for group in text.split(separator: ";") {
            guard let colon = group.lastIndex(of: ":") else { continue }
            let entity = String(group[..<colon])
            for key in group[group.index(after: colon)...].split(separator: ",") {
                if let pk = Int64(key) { identifiers.append(PersistentIdentifier(storeIdentifier: store, entityName: entity, primaryKey: pk)) }
            }
        }
        return identifiers
    }

    static func encodeIdentifiers(_ keys: [(entity: String, key: Int64)]) -> String {
        var order: [String] = []
        var byEntity: [String: [Int64]] = [:]
        for (entity, key) in keys {
            if byEntity[entity] == nil { order.append(entity) }
            byEntity[entity, default: []].append(key)
        }
        return order.map { entity in entity + ":" + (byEntity[entity] ?? []).map(String.init).joined(separator: ",") }.joined(separator: ";")
    }
}

extension ModelContext {
    /// Records one transaction of a save in `store`'s history table, inside the save's
    /// transaction (so history and data commit together). Does nothing unless the
    /// container records history.
    func recordHistory(storeIndex: Int, db: Database,
                       inserted: [(any PersistentModel, Schema.Entity)], updated: [(any PersistentModel, Schema.Entity)],
                       deleted: [(any PersistentModel, Schema.Entity)], linked: [(any PersistentModel, Schema.Entity)] = []) throws {
        guard container.isHistoryEnabled else { return }
        func keys(_ list: [(any PersistentModel, Schema.Entity)]) -> [(entity: String, key: Int64)] {
            list.filter { $0.1.storeIndex == storeIndex }.map { ($0.1.name, $0.0.persistentBackingData.primaryKey) }
        }
        var updatedKeys = keys(updated)
        let seen = Set(updatedKeys.map(\.key))
        updatedKeys += keys(linked).filter { !seen.contains($0.key) }
        try recordHistory(db: db, inserted: keys(inserted), updated: updatedKeys, deleted: keys(deleted))
    }

    func recordHistory(db: Database, inserted: [(entity: String, key: Int64)], updated: [(entity: String, key: Int64)], deleted: [(entity: String, key: Int64)]) throws {
        guard container.isHistoryEnabled, !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty) else { return }
        let table = quoteIdentifier(Schema.historyTable)
        try db.execute("CREATE TABLE IF NOT EXISTS \(table) (\"token\" INTEGER PRIMARY KEY AUTOINCREMENT, \"author\" TEXT, \"timestamp\" REAL NOT NULL, \"inserted\" TEXT NOT NULL, \"updated\" TEXT NOT NULL, \"deleted\" TEXT NOT NULL)")
        try db.execute("INSERT INTO \(table) (\"author\", \"timestamp\", \"inserted\", \"updated\", \"deleted\") VALUES (?, ?, ?, ?, ?)", [
            author.map { .text($0) } ?? .null, .real(Date().timeIntervalSince1970),
            .text(ModelContainer.encodeIdentifiers(inserted)), .text(ModelContainer.encodeIdentifiers(updated)),
            .text(ModelContainer.encodeIdentifiers(deleted)),
        ])
    }
}
