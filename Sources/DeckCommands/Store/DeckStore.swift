import DeckFilter
import Foundation
import SQLite

/// The deck package as the commands use it: a directory holding `manifest.json` and
/// `store.sqlite`.
///
/// Every command goes through this one type, so moving the tool onto the `DeckDocument`
/// library is a change to this file alone.
final class DeckStore {
    static let manifestName = "manifest.json"
    static let storeName = "store.sqlite"

    /// The package path as the user typed it (used in messages).
    let path: String
    private(set) var manifest: DeckManifest
    let database: Database
    let isReadOnly: Bool

    private init(path: String, manifest: DeckManifest, database: Database, isReadOnly: Bool) {
        self.path = path
        self.manifest = manifest
        self.database = database
        self.isReadOnly = isReadOnly
    }

    deinit { database.close() }

    var storePath: String { (path as NSString).appendingPathComponent(Self.storeName) }

    // MARK: - Create and open

    /// Creates a new, empty deck at `path`; refuses an existing path (exit 73).
    static func create(at path: String, title: String) throws -> DeckStore {
        let files = FileManager.default
        if files.fileExists(atPath: path) {
            throw DeckStoreError(.cannotCreate, path: path, reason: "already exists")
        }
        let parent = ((path as NSString).deletingLastPathComponent as String).isEmpty
            ? "." : (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        guard files.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DeckStoreError(.cannotCreate, path: path, reason: "the directory \(parent) does not exist")
        }
        // Build the package under a temporary name, then rename it into place.
        let temporary = (parent as NSString).appendingPathComponent(
            ".\((path as NSString).lastPathComponent).tmp-\(UUID().uuidString)")
        do {
            try files.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        } catch {
            throw DeckStoreError(.cannotCreate, path: path, reason: "cannot create the directory (\(error.localizedDescription))")
        }
        do {
            let now = Date()
            let manifest = DeckManifest(
                formatVersion: DeckManifest.currentFormatVersion, documentID: UUID().uuidString,
                title: title, created: now, modified: now)
            try manifest.encoded().write(to: URL(fileURLWithPath: (temporary as NSString).appendingPathComponent(manifestName)))
            let database = try Database(path: (temporary as NSString).appendingPathComponent(storeName), mode: .create)
            try createSchema(in: database)
            database.close()
            try files.moveItem(atPath: temporary, toPath: path)
        } catch {
            try? files.removeItem(atPath: temporary)
            if let error = error as? DeckStoreError { throw error }
            throw DeckStoreError(.cannotCreate, path: path, reason: "cannot create the deck (\(error))")
        }
        return try open(at: path, readOnly: false)
    }

    /// Opens the deck at `path`.
    /// - Throws: ``DeckStoreError``: `.missing` (66), `.corrupt` when it is not a deck (65).
    static func open(at path: String, readOnly: Bool) throws -> DeckStore {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        guard files.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DeckStoreError(.missing, path: path, reason: "no such deck")
        }
        guard isDirectory.boolValue else {
            throw DeckStoreError(.corrupt, path: path, reason: "not a deck (a deck is a directory holding \(manifestName) and \(storeName))")
        }
        let manifestPath = (path as NSString).appendingPathComponent(manifestName)
        guard let data = files.contents(atPath: manifestPath) else {
            throw DeckStoreError(.corrupt, path: path, reason: "not a deck (\(manifestName) is missing)")
        }
        let manifest = try DeckManifest.decode(data, path: path)
        if manifest.formatVersion > DeckManifest.currentFormatVersion {
            throw DeckStoreError(.corrupt, path: path, reason:
                "format version \(manifest.formatVersion) is newer than this tool reads (\(DeckManifest.currentFormatVersion)); update deck")
        }
        let storePath = (path as NSString).appendingPathComponent(storeName)
        guard files.fileExists(atPath: storePath) else {
            throw DeckStoreError(.corrupt, path: path, reason: "not a deck (\(storeName) is missing)")
        }
        do {
            let database = try Database(path: storePath, mode: readOnly ? .readOnly : .readWrite)
            guard try database.tableExists("card") else {
                database.close()
                throw DeckStoreError(.corrupt, path: path, reason: "the store has no card table")
            }
            return DeckStore(path: path, manifest: manifest, database: database, isReadOnly: readOnly)
        } catch let error as DeckStoreError {
            throw error
        } catch {
            throw DeckStoreError(.corrupt, path: path, reason: "the store cannot be read (\(error))")
        }
    }

    private static func createSchema(in database: Database) throws {
        try database.execute("""
            CREATE TABLE card (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                kind TEXT NOT NULL DEFAULT 'basic',
                front TEXT NOT NULL,
                back TEXT NOT NULL,
                created REAL NOT NULL,
                modified REAL NOT NULL,
                folded TEXT NOT NULL DEFAULT ''
            );
            CREATE TABLE card_tag (
                card INTEGER NOT NULL REFERENCES card(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                PRIMARY KEY (card, name)
            ) WITHOUT ROWID;
            CREATE INDEX card_tag_name ON card_tag(name);
            """)
        try database.setUserVersion(1)
    }

    // MARK: - Reading

    func cardCount() throws -> Int {
        try wrap { Int(try database.scalar("SELECT count(*) FROM card", as: Int64.self) ?? 0) }
    }

    func card(id: Int64) throws -> CardRecord? {
        try fetch(whereSQL: "c.id = ?", arguments: [.integer(id)], orderSQL: "c.id", limit: 1, offset: 0).first
    }

    /// Cards matching `filter`, sorted, paged; the filter runs as SQL.
    func cards(where filter: FilterExpression?, sortedBy sort: [(field: String, descending: Bool)],
               limit: Int?, offset: Int) throws -> [CardRecord] {
        var whereSQL = "1"
        var arguments: [SQLValue] = []
        if let filter {
            let translated = try FilterSQL.translate(filter)
            whereSQL = translated.sql
            arguments = translated.arguments
        }
        var order: [String] = []
        for key in sort {
            guard let column = FilterSQL.sortColumn(key.field) else {
                throw DeckStoreError(.usage, path: nil, reason: "cannot sort by '\(key.field)' (use \(FilterSQL.sortKeys.joined(separator: ", ")))")
            }
            order.append(column + (key.descending ? " DESC" : " ASC"))
        }
        order.append("c.id")
        return try fetch(whereSQL: whereSQL, arguments: arguments, orderSQL: order.joined(separator: ", "),
                         limit: limit, offset: offset)
    }

    /// Cards whose front, back or tags contain `text`, ignoring case and diacritics; cards
    /// matching on the front come first.
    func search(_ text: String, limit: Int?) throws -> [CardRecord] {
        let needle = Self.fold(text)
        let pattern = "%" + needle.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
        return try fetch(
            whereSQL: "c.folded LIKE ? ESCAPE '\\'", arguments: [.text(pattern)],
            orderSQL: "instr(c.folded, ?) = 1 DESC, instr(c.folded, ?), length(c.front), c.id",
            orderArguments: [.text(needle), .text(needle)], limit: limit, offset: 0)
    }

    private func fetch(whereSQL: String, arguments: [SQLValue], orderSQL: String, orderArguments: [SQLValue] = [],
                       limit: Int?, offset: Int) throws -> [CardRecord] {
        let sql = """
            SELECT c.id, c.kind, c.front, c.back, c.created, c.modified,
                   (SELECT group_concat(name, ' ') FROM (SELECT name FROM card_tag t WHERE t.card = c.id ORDER BY name))
            FROM card c WHERE \(whereSQL) ORDER BY \(orderSQL) LIMIT ? OFFSET ?
            """
        let rows = try wrap {
            try database.rows(sql, arguments + orderArguments + [.integer(Int64(limit ?? -1)), .integer(Int64(offset))])
        }
        return rows.compactMap { row in
            guard row.count == 7, case .integer(let id) = row[0] else { return nil }
            return CardRecord(
                id: id, kind: Self.text(row[1]), front: Self.text(row[2]), back: Self.text(row[3]),
                tags: Self.text(row[6]).split(separator: " ").map(String.init),
                created: Date(timeIntervalSince1970: Self.number(row[4])),
                modified: Date(timeIntervalSince1970: Self.number(row[5])))
        }
    }

    // MARK: - Writing

    /// Adds cards in one transaction and returns them with their identifiers.
    @discardableResult
    func add(_ cards: [(kind: String, front: String, back: String, tags: [String])]) throws -> [CardRecord] {
        try requireWritable()
        let now = Date()
        var added: [CardRecord] = []
        try wrap {
            try database.transaction {
                for card in cards {
                    let tags = Self.normalizedTags(card.tags)
                    try database.execute(
                        "INSERT INTO card (kind, front, back, created, modified, folded) VALUES (?, ?, ?, ?, ?, ?)",
                        [.text(card.kind), .text(card.front), .text(card.back), .real(now.timeIntervalSince1970),
                         .real(now.timeIntervalSince1970), .text(Self.folded(card.front, card.back, tags))])
                    let id = database.lastInsertRowID
                    for tag in tags {
                        try database.execute("INSERT OR IGNORE INTO card_tag (card, name) VALUES (?, ?)", [.integer(id), .text(tag)])
                    }
                    added.append(CardRecord(id: id, kind: card.kind, front: card.front, back: card.back, tags: tags,
                                            created: now, modified: now))
                }
            }
        }
        try touch()
        return added
    }

    /// Replaces a card's front, back and tags.
    func update(_ card: CardRecord) throws -> CardRecord {
        try requireWritable()
        var card = card
        card.tags = Self.normalizedTags(card.tags)
        card.modified = Date()
        try wrap {
            try database.transaction {
                try database.execute(
                    "UPDATE card SET front = ?, back = ?, modified = ?, folded = ? WHERE id = ?",
                    [.text(card.front), .text(card.back), .real(card.modified.timeIntervalSince1970),
                     .text(Self.folded(card.front, card.back, card.tags)), .integer(card.id)])
                try database.execute("DELETE FROM card_tag WHERE card = ?", [.integer(card.id)])
                for tag in card.tags {
                    try database.execute("INSERT OR IGNORE INTO card_tag (card, name) VALUES (?, ?)", [.integer(card.id), .text(tag)])
                }
            }
        }
        try touch()
        return card
    }

    /// Deletes cards by identifier, in one transaction.
    func delete(ids: [Int64]) throws {
        try requireWritable()
        try wrap {
            try database.transaction {
                for id in ids {
                    try database.execute("DELETE FROM card_tag WHERE card = ?", [.integer(id)])
                    try database.execute("DELETE FROM card WHERE id = ?", [.integer(id)])
                }
            }
        }
        try touch()
    }

    /// Problems found in the package: the store's integrity, foreign keys, the manifest.
    func check() throws -> [String] {
        var problems: [String] = []
        try wrap {
            problems += try database.integrityCheck().filter { $0 != "ok" }
            let orphans = try database.scalar(
                "SELECT count(*) FROM card_tag WHERE card NOT IN (SELECT id FROM card)", as: Int64.self) ?? 0
            if orphans > 0 { problems.append("\(orphans) tags refer to missing cards") }
            let empty = try database.scalar("SELECT count(*) FROM card WHERE front = ''", as: Int64.self) ?? 0
            if empty > 0 { problems.append("\(empty) cards have an empty front") }
        }
        if manifest.title.isEmpty { problems.append("the manifest has no title") }
        if UUID(uuidString: manifest.documentID) == nil { problems.append("the manifest's documentID is not a UUID") }
        return problems
    }

    /// Writes a consistent copy of the store to `destination` (VACUUM INTO), never the live file.
    func snapshotStore(to destination: String) throws {
        try wrap { try database.vacuum(into: destination) }
    }

    // MARK: - Helpers

    private func touch() throws {
        manifest.modified = Date()
        let url = URL(fileURLWithPath: (path as NSString).appendingPathComponent(Self.manifestName))
        do {
            try manifest.encoded().write(to: url, options: .atomic)
        } catch {
            throw DeckStoreError(.io, path: path, reason: "cannot write \(Self.manifestName) (\(error.localizedDescription))")
        }
    }

    private func requireWritable() throws {
        if isReadOnly { throw DeckStoreError(.io, path: path, reason: "opened read-only") }
    }

    private func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DeckStoreError {
            throw error
        } catch let error as DatabaseError {
            throw DeckStoreError(error.code == 11 || error.code == 26 ? .corrupt : .io, path: storePath, reason: error.description)
        }
    }

    static func normalizedTags(_ tags: [String]) -> [String] {
        var seen: [String] = []
        for tag in tags.flatMap({ $0.split(whereSeparator: \.isWhitespace) }).map(String.init) where !seen.contains(tag) {
            seen.append(tag)
        }
        return seen
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    private static func folded(_ front: String, _ back: String, _ tags: [String]) -> String {
        fold(front + "\n" + back + "\n" + tags.joined(separator: " "))
    }

    private static func text(_ value: SQLValue) -> String {
        switch value {
        case .text(let text): text
        case .integer(let number): String(number)
        case .real(let number): String(number)
        default: ""
        }
    }

    private static func number(_ value: SQLValue) -> Double {
        switch value {
        case .real(let number): number
        case .integer(let number): Double(number)
        default: 0
        }
    }
}
