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

    /// Runs a large import: `body` adds cards through a ``BulkImport`` session, which saves them
    /// in batches from fresh contexts (so memory stays bounded by the batch size, not the import),
    /// writes their tag and media links in SQL, and keeps the full-text index triggers suspended
    /// until the new cards are indexed at the end. Everything happens in one transaction: when `body` or a save
    /// throws, nothing of the import stays in the deck (media files already written stay in
    /// `Media/`, unreferenced). Pending changes of ``mainContext`` (media references, the title)
    /// are saved with it.
    ///
    /// Cost: the new cards are indexed in one statement at the end (the whole index is rebuilt
    /// only for an empty deck).
    /// - Throws: ``DeckError`` `readOnly`; what `body` throws; the store's error.
    public func bulkImport<T>(batchSize: Int = 5_000, _ body: (BulkImport) throws -> T) throws -> T {
        try requireOpen()
        guard mode == .readWrite else {
            throw DeckError(path: url.path, reason: "deck is open read-only", kind: .readOnly)
        }
        let triggers = DeckStore.searchDDL.compactMap(DeckStore.triggerName(of:))
        let lastKey = try container.withDatabase(for: Card.self) { db in
            try db.execute("SAVEPOINT bulk_import")
            for name in triggers { try db.execute("DROP TRIGGER IF EXISTS \(quoteIdentifier(name))") }
            return try db.scalar("SELECT max(\"pk\") FROM \"Card\"", as: Int64.self) ?? 0
        }
        let result: T
        do {
            // Media references and the like, added before: saved first so that links find them.
            if mainContext.hasChanges { try mainContext.save() }
            let session = BulkImport(document: self, batchSize: batchSize)
            result = try body(session)
            try session.flush()
            if mainContext.hasChanges { try mainContext.save() }
            try container.withDatabase(for: Card.self) { db in
                try DeckStore.indexCards(after: lastKey, db)
                for statement in DeckStore.searchDDL { try db.execute(statement) }
                try db.execute("RELEASE bulk_import")
            }
        } catch {
            try? container.withDatabase(for: Card.self) { db in
                try db.execute("ROLLBACK TO bulk_import")
                try db.execute("RELEASE bulk_import")
            }
            mainContext.rollback()
            throw error
        }
        try save()
        return result
    }
}

/// A bulk import in progress (see ``DeckDocument/bulkImport(batchSize:_:)``): cards go into
/// ``context`` and are saved every ``batchSize`` cards, then the context is replaced by a fresh
/// one, so models of saved batches are released.
public final class BulkImport {
    /// The deck imported into.
    public let document: DeckDocument
    /// The context of the current batch. Don't keep models of one batch for the next.
    public private(set) var context: ModelContext
    /// Cards per batch.
    public let batchSize: Int
    /// Cards added so far.
    public private(set) var cardsAdded = 0
    private var links = BulkLinks()
    private var pending = 0

    init(document: DeckDocument, batchSize: Int) {
        self.document = document
        self.batchSize = max(1, batchSize)
        context = ModelContext(document.container)
    }

    /// Adds a card with its tags (by name, created when missing), its media (by
    /// ``MediaReference/fileName``; add them with ``DeckDocument/addMedia(_:originalName:mime:)``
    /// first) and its review history.
    /// - Throws: the store's error when a batch is saved.
    public func add(_ card: Card, tags: [String] = [], media: [String] = [], reviews: [Review] = []) throws {
        context.insert(card)
        if !reviews.isEmpty {
            for review in reviews { context.insert(review) }
            card.reviews = reviews
        }
        links.tag(card, with: tags)
        links.attach(card, media: media)
        pending += 1
        cardsAdded += 1
        if pending >= batchSize { try flush() }
    }

    /// Creates tags no card needs to carry (written with the next batch).
    public func ensureTags(_ names: [String]) {
        links.ensureTags(names)
    }

    /// Saves the current batch and its links, and starts a fresh context.
    func flush() throws {
        guard pending > 0 || !links.isEmpty else { return }
        try context.save()
        let batch = links
        try document.container.withDatabase(for: Card.self) { db in try DeckDocument.writeLinks(batch, into: db) }
        links = BulkLinks()
        pending = 0
        context = ModelContext(document.container)
    }
}

/// Tag and media links of new cards, written in SQL by a ``BulkImport`` rather than through the cards' `tags` and
/// `media` relationships: keeping a relationship's inverse in memory costs time in proportion to
/// the tag's number of cards, which makes a large import quadratic. Tags are created by name
/// when missing. Cards linked this way show their tags once reloaded (a fresh fetch or context).
struct BulkLinks {
    var tags: [(card: Card, names: [String])] = []
    var media: [(card: Card, fileNames: [String])] = []
    var extraTags: [String] = []

    /// No links.
    init() {}

    /// Whether there is nothing to write.
    var isEmpty: Bool { tags.isEmpty && media.isEmpty && extraTags.isEmpty }

    /// Tags `card` with `names` (empty and repeated names ignored).
    mutating func tag(_ card: Card, with names: [String]) {
        if !names.isEmpty { tags.append((card, names)) }
    }

    /// Links `card` to the media files named `fileNames` (``MediaReference/fileName``, saved or pending).
    mutating func attach(_ card: Card, media fileNames: [String]) {
        if !fileNames.isEmpty { media.append((card, fileNames)) }
    }

    /// Creates tags no card needs to carry.
    mutating func ensureTags(_ names: [String]) {
        extraTags.append(contentsOf: names)
    }
}

extension DeckDocument {
    static func writeLinks(_ links: BulkLinks, into db: Database) throws {
        guard !links.isEmpty else { return }
        var tagKeys: [String: Int64] = [:]
        let existing = try db.prepare("SELECT \"pk\", \"name\" FROM \"Tag\"")
        while try existing.step() { tagKeys[existing.string(at: 1)] = existing.int64(at: 0) }
        let insertTag = try db.prepare("INSERT INTO \"Tag\"(\"name\") VALUES (?)")
        func tagKey(_ raw: String) throws -> Int64? {
            if let key = tagKeys[raw] { return key }
            let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty else { return nil }
            if let key = tagKeys[name] { return key }
            insertTag.reset()
            insertTag.bind(text: name, at: 1)
            _ = try insertTag.step()
            let key = db.lastInsertRowID
            tagKeys[name] = key
            return key
        }
        for name in links.extraTags { _ = try tagKey(name) }
        let link = try db.prepare("INSERT OR IGNORE INTO \"Card_tags\"(\"source\", \"target\") VALUES (?, ?)")
        for (card, names) in links.tags {
            let cardKey = card.id
            for name in names {
                guard let key = try tagKey(name) else { continue }
                link.reset()
                link.bind(int64: cardKey, at: 1)
                link.bind(int64: key, at: 2)
                _ = try link.step()
            }
        }
        guard !links.media.isEmpty else { return }
        var mediaKeys: [String: Int64] = [:]
        let media = try db.prepare("SELECT \"pk\", \"fileName\" FROM \"MediaReference\"")
        while try media.step() { mediaKeys[media.string(at: 1)] = media.int64(at: 0) }
        let attach = try db.prepare("INSERT OR IGNORE INTO \"Card_media\"(\"source\", \"target\") VALUES (?, ?)")
        for (card, fileNames) in links.media {
            let cardKey = card.id
            for fileName in fileNames {
                guard let key = mediaKeys[fileName] else { continue }
                attach.reset()
                attach.bind(int64: cardKey, at: 1)
                attach.bind(int64: key, at: 2)
                _ = try attach.step()
            }
        }
    }
}
