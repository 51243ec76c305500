import Foundation
import Persistence
import SQLite

extension DeckDocument {
    /// The Anki GUIDs of the cards already saved in the deck (importers skip notes whose GUID
    /// is in it, so importing the same package twice adds nothing).
    ///
    /// One SQL query over the indexed `ankiGUID` column; unsaved cards are not included.
    /// - Throws: the store's error when the query fails.
    public func savedAnkiGUIDs() throws -> Set<String> {
        try requireOpen()
        return try container.withDatabase(for: Card.self) { db in
            let statement = try db.prepare("SELECT \"ankiGUID\" FROM \"Card\" WHERE \"ankiGUID\" IS NOT NULL")
            var result: Set<String> = []
            while try statement.step() { result.insert(statement.string(at: 0)) }
            return result
        }
    }

    /// All tags by name (saved and pending), so an importer can reuse them without a query per card.
    /// - Throws: the store's error when the fetch fails.
    public func tagsByName() throws -> [String: Tag] {
        try requireOpen()
        var result: [String: Tag] = [:]
        for tag in try mainContext.fetch(FetchDescriptor<Tag>()) { result[tag.name] = tag }
        return result
    }

    /// Where an import's temporary files go (`PRAGMA temp_store`): memory. Each multi-row
    /// statement of the import keeps a statement journal of the pages it changes, so that it
    /// can be undone alone; on disk that was one write system call per page, more than the
    /// rows themselves cost.
    static let importTempStore = "MEMORY"

    /// Switches the store from WAL to a rollback journal for an import when no other
    /// connection has it open (returns whether it did; the caller switches back).
    ///
    /// In WAL mode every page an import writes is written twice: into the log at the commit,
    /// then into the database by the checkpoint. With a rollback journal the new pages go
    /// straight into the file (the journal keeps only the few existing pages the import
    /// changes), which saves a fifth of a large import's time. Leaving WAL needs the only
    /// connection to the store; with readers open, the import stays in WAL (without waiting
    /// for them: the busy timeout is off for the attempt).
    static func leaveWAL(_ db: Database) -> Bool {
        guard (try? db.scalar("PRAGMA journal_mode", as: String.self))?.lowercased() == "wal",
              let timeout = try? db.scalar("PRAGMA busy_timeout", as: Int64.self) else { return false }
        defer { try? db.execute("PRAGMA busy_timeout = \(timeout)") }
        guard (try? db.execute("PRAGMA busy_timeout = 0")) != nil else { return false }
        return (try? db.setJournalMode(.delete))?.lowercased() == "delete"
    }

    /// Runs a large import: `body` adds cards through a ``BulkImport`` session, which writes each
    /// card at once with a ``BatchInsert`` (so nothing of it is kept in memory, and no context
    /// machinery runs per card) and its tag and media links in SQL. Everything happens in one
    /// transaction: when `body` or a write throws, nothing of the import stays in the deck (media
    /// files already written stay in `Media/`, unreferenced). Pending changes of
    /// ``mainContext`` (media references, the title) are saved with it.
    ///
    /// Cost: the full-text index is not updated during the import (its triggers are suspended);
    /// the store records that the new cards are not indexed yet, and the next ``search(_:limit:)``
    /// indexes them (see ``updateSearchIndex()``). When no other connection has the store open,
    /// the import runs with a rollback journal instead of the write-ahead log, so its pages are
    /// written once (see `leaveWAL`); readers that open the deck meanwhile wait for its commit.
    /// - Throws: ``DeckError`` `readOnly`; what `body` throws; the store's error.
    public func bulkImport<T>(_ body: (BulkImport) throws -> T) throws -> T {
        try requireOpen()
        guard mode == .readWrite else {
            throw DeckError(path: url.path, reason: "deck is open read-only", kind: .readOnly)
        }
        let triggers = DeckStore.searchDDL.compactMap(DeckStore.triggerName(of:))
        let (lastKey, tempStore, leftWAL) = try container.withDatabase(for: Card.self) { db in
            let tempStore = try db.scalar("PRAGMA temp_store", as: Int64.self) ?? 0
            try db.execute("PRAGMA temp_store = \(Self.importTempStore)")
            let leftWAL = Self.leaveWAL(db)
            try db.execute("SAVEPOINT bulk_import")
            // Checked at the commit (which fails, rolling back, if one is broken), so that no
            // statement of the import has to be undone alone: no statement journal.
            try db.execute("PRAGMA defer_foreign_keys = ON")
            for name in triggers { try db.execute("DROP TRIGGER IF EXISTS \(quoteIdentifier(name))") }
            return (try db.scalar("SELECT max(\"pk\") FROM \"Card\"", as: Int64.self) ?? 0, tempStore, leftWAL)
        }
        defer {
            try? container.withDatabase(for: Card.self) { db in
                try db.execute("PRAGMA temp_store = \(tempStore)")
                if leftWAL { _ = try db.setJournalMode(.wal) }
            }
        }
        let result: T
        do {
            // Media references and the like, added before: saved first so that links find them.
            if mainContext.hasChanges { try mainContext.save() }
            result = try ModelContext(container).batchInsert { batch in
                let session = BulkImport(document: self, batch: batch)
                let result = try body(session)
                try session.flush()
                return result
            }
            if mainContext.hasChanges { try mainContext.save() }
            try container.withDatabase(for: Card.self) { db in
                let newest = try db.scalar("SELECT max(\"pk\") FROM \"Card\"", as: Int64.self) ?? 0
                if newest > lastKey { try DeckStore.deferIndexing(after: lastKey, db) }
                for statement in DeckStore.searchDDL { try db.execute(statement) }
                try db.execute("RELEASE bulk_import")
            }
        } catch {
            try? container.withDatabase(for: Card.self) { db in
                try db.execute("ROLLBACK TO bulk_import")
                try db.execute("RELEASE bulk_import")
            }
            discardChanges()
            throw error
        }
        try save()
        return result
    }
}

/// A bulk import in progress (see ``DeckDocument/bulkImport(_:)``): each card is written when
/// it is added, through ``batch``, with its tag and media links; nothing of it is kept.
public final class BulkImport {
    /// The deck imported into.
    public let document: DeckDocument
    /// The batch the cards are written with (models given to it are written at once and not tracked).
    public let batch: BatchInsert
    /// Cards added so far.
    public private(set) var cardsAdded = 0
    private var links: BulkLinkWriter

    init(document: DeckDocument, batch: BatchInsert) {
        self.document = document
        self.batch = batch
        links = BulkLinkWriter(container: document.container, batch: batch)
    }

    /// Writes a card with its tags (by name, created when missing), its media (by
    /// ``MediaReference/fileName``; add them with ``DeckDocument/addMedia(_:originalName:mime:)``
    /// first) and its review history. The card and reviews are spent afterwards: they are not
    /// registered in any context (fetch the card to work with it).
    /// - Throws: ``DeckError`` `corrupt` for a value outside ``CardValueLimits``; the store's error.
    public func add(_ card: Card, tags: [String] = [], media: [String] = [], reviews: [Review] = []) throws {
        // Importers check their inputs (naming the file's field); this is the deck's own last word.
        if let field = CardValueLimits.problem(of: card) ?? reviews.lazy.compactMap(CardValueLimits.problem(of:)).first {
            throw DeckError(path: document.url.path, reason: "an imported card's \(field) is out of range", kind: .corrupt)
        }
        if !reviews.isEmpty { card.reviews = reviews }
        let key = try batch.insertReturningKey(card)
        if !tags.isEmpty { try links.tag(key, with: tags) }
        if !media.isEmpty { try links.attach(key, media: media) }
        cardsAdded += 1
    }

    /// Creates tags no card needs to carry.
    /// - Throws: the store's error.
    public func ensureTags(_ names: [String]) throws {
        for name in names { _ = try links.tagKey(name) }
    }

    /// Writes the cards and links still waiting to be written in groups, so that queries on
    /// the deck (``DeckDocument/savedAnkiGUIDs()``) see every card added so far.
    /// - Throws: the store's error.
    public func flush() throws {
        try links.flush()
    }
}

/// Writes the tag and media links of imported cards in SQL, rather than through the cards'
/// `tags` and `media` relationships: keeping a relationship's inverse in memory costs time in
/// proportion to the tag's number of cards, which makes a large import quadratic. Tags are
/// created by name when missing (through the batch); names and keys already seen are
/// remembered (a deck has few).
struct BulkLinkWriter {
    let container: ModelContainer
    let batch: BatchInsert
    private var tagKeys: [String: Int64] = [:]
    private var mediaKeys: [String: Int64] = [:]
    /// Links waiting to be written, (card, tag or media reference).
    private var tagLinks: [(Int64, Int64)] = []
    private var mediaLinks: [(Int64, Int64)] = []
    /// The prepared group statements of ``groupSQL``, by table (looked up once, not by text per flush).
    private var groupStatements: [String: Statement] = [:]
    /// Links written together (one statement), after the batch's waiting cards.
    static let linksPerGroup = 256

    /// `INSERT OR FAIL` of up to `pairs` (source, target) rows into a join table; the last
    /// parameter is the number of pairs bound. The pairs are new (their cards are) and distinct;
    /// with FAIL and the import's deferred foreign keys, SQLite keeps no statement journal.
    static func linkSQL(_ table: String, pairs: Int) -> String {
        "INSERT OR FAIL INTO \(quoteIdentifier(table)) (\"source\", \"target\") SELECT * FROM (VALUES "
            + Array(repeating: "(?, ?)", count: pairs).joined(separator: ", ") + ") LIMIT ?"
    }

    /// ``linkSQL(_:pairs:)`` of each join table for ``linksPerGroup`` pairs, built once (a
    /// flush every 128 cards rebuilt and hashed the 1.8 KB text: 5 % of a tagged import).
    static let groupSQL: [(table: String, sql: String)] = ["Card_tags", "Card_media"].map { ($0, linkSQL($0, pairs: linksPerGroup)) }

    init(container: ModelContainer, batch: BatchInsert) {
        self.container = container
        self.batch = batch
    }

    /// The key of the tag named `raw` (surrounding white space ignored), created when missing;
    /// nil for an empty name.
    mutating func tagKey(_ raw: String) throws -> Int64? {
        if let key = tagKeys[raw] { return key }
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { return nil }
        if let key = tagKeys[name] {
            tagKeys[raw] = key
            return key
        }
        let existing = try container.withDatabase(for: Tag.self) { db in
            try db.scalar("SELECT \"pk\" FROM \"Tag\" WHERE \"name\" = ?", [.text(name)], as: Int64.self)
        }
        let key = try existing ?? batch.insertReturningKey(Tag(name: name))
        tagKeys[name] = key
        tagKeys[raw] = key
        return key
    }

    /// Tags the card `card` with `names` (empty and repeated names ignored); written with the next group.
    mutating func tag(_ card: Int64, with names: [String]) throws {
        let first = tagLinks.count
        // The card is new: only its own repeated names could collide. A few tags are compared
        // directly; many through a set (a scan per tag made 20,000 tags on a card quadratic).
        var seen: Set<Int64>? = names.count > Self.tagsComparedDirectly ? [] : nil
        for name in names {
            guard let key = try tagKey(name) else { continue }
            if seen != nil {
                if seen?.insert(key).inserted == true { tagLinks.append((card, key)) }
            } else if !tagLinks[first...].contains(where: { $0.1 == key }) {
                tagLinks.append((card, key))
            }
        }
        if tagLinks.count >= Self.linksPerGroup { try flush() }
    }

    /// Up to this many tags on a card are checked for repeats by comparing them (no set to build).
    static let tagsComparedDirectly = 32

    /// Links the card `card` to the media files named `fileNames` (``MediaReference/fileName``
    /// of saved references; unknown names are skipped); written with the next group.
    mutating func attach(_ card: Int64, media fileNames: [String]) throws {
        let first = mediaLinks.count
        for fileName in fileNames {
            var key = mediaKeys[fileName]
            if key == nil {
                key = try container.withDatabase(for: MediaReference.self) { db in
                    try db.scalar("SELECT \"pk\" FROM \"MediaReference\" WHERE \"fileName\" = ?", [.text(fileName)], as: Int64.self)
                }
                mediaKeys[fileName] = key
            }
            if let key, !mediaLinks[first...].contains(where: { $0.1 == key }) { mediaLinks.append((card, key)) }
        }
        if mediaLinks.count >= Self.linksPerGroup { try flush() }
    }

    /// Writes the batch's waiting rows, then the waiting links (whose foreign keys need the cards).
    mutating func flush() throws {
        try batch.flush()
        guard !tagLinks.isEmpty || !mediaLinks.isEmpty else { return }
        try container.withDatabase(for: Card.self) { db in
            for ((table, sql), pairs) in zip(Self.groupSQL, [tagLinks, mediaLinks]) where !pairs.isEmpty {
                // Many pairs per statement: SQLite keeps its cursors positioned between them.
                let group = try groupStatements[table] ?? db.cachedStatement(sql)
                groupStatements[table] = group
                for start in stride(from: 0, to: pairs.count, by: Self.linksPerGroup) {
                    let end = min(start + Self.linksPerGroup, pairs.count)
                    var index: Int32 = 1
                    for (card, target) in pairs[start..<end] {
                        group.bind(int64: card, at: index)
                        group.bind(int64: target, at: index + 1)
                        index += 2
                    }
                    group.bind(int64: Int64(end - start), at: Int32(2 * Self.linksPerGroup + 1))
                    do {
                        try group.execute()
                    } catch let error as DatabaseError {
                        throw PersistenceError.database(DatabaseError(extendedCode: error.extendedCode, message: error.message,
                                                                      sql: "INSERT INTO \(quoteIdentifier(table)) (\"source\", \"target\") VALUES … (\(end - start) rows)"))
                    }
                }
            }
        }
        tagLinks.removeAll(keepingCapacity: true)
        mediaLinks.removeAll(keepingCapacity: true)
    }
}
