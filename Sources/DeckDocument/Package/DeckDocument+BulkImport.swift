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

    /// Saves pending changes and `links` with the full-text index triggers suspended, then rebuilds the
    /// index in one statement. For large imports: keeping the index by triggers costs a
    /// subquery and an index update per card and per tag link; one rebuild is several times
    /// cheaper. Everything (the triggers' removal, the rows, the rebuild) happens in one
    /// transaction, so a failure leaves the deck as it was, triggers included.
    ///
    /// Cost: the rebuild reads every card of the deck, so for a handful of cards added to a large
    /// deck ``save()`` is cheaper.
    /// - Throws: ``DeckError`` `readOnly`; the persistence error of a failed save.
    public func saveRebuildingSearchIndex(links: BulkLinks = BulkLinks()) throws {
        try requireOpen()
        guard mode == .readWrite else {
            throw DeckError(path: url.path, reason: "deck is open read-only", kind: .readOnly)
        }
        guard mainContext.hasChanges || !links.isEmpty else { return try save() }
        let triggers = DeckStore.searchDDL.compactMap(DeckStore.triggerName(of:))
        try container.withDatabase(for: Card.self) { db in
            try db.execute("SAVEPOINT bulk_import")
        }
        do {
            try container.withDatabase(for: Card.self) { db in
                for name in triggers { try db.execute("DROP TRIGGER IF EXISTS \(quoteIdentifier(name))") }
            }
            try mainContext.save()
            try container.withDatabase(for: Card.self) { db in
                try Self.writeLinks(links, into: db)
                try DeckStore.rebuildSearch(db)
                for statement in DeckStore.searchDDL { try db.execute(statement) }
                try db.execute("RELEASE bulk_import")
            }
        } catch {
            try? container.withDatabase(for: Card.self) { db in
                try db.execute("ROLLBACK TO bulk_import")
                try db.execute("RELEASE bulk_import")
            }
            throw error
        }
        try save()
    }
}

/// Tag and media links of new cards, written in SQL by
/// ``DeckDocument/saveRebuildingSearchIndex(links:)`` rather than through the cards' `tags` and
/// `media` relationships: keeping a relationship's inverse in memory costs time in proportion to
/// the tag's number of cards, which makes a large import quadratic. Tags are created by name
/// when missing. Cards linked this way show their tags once reloaded (a fresh fetch or context).
public struct BulkLinks {
    var tags: [(card: Card, names: [String])] = []
    var media: [(card: Card, fileNames: [String])] = []
    var extraTags: [String] = []

    /// No links.
    public init() {}

    /// Whether there is nothing to write.
    public var isEmpty: Bool { tags.isEmpty && media.isEmpty && extraTags.isEmpty }

    /// Tags `card` with `names` (empty and repeated names ignored).
    public mutating func tag(_ card: Card, with names: [String]) {
        if !names.isEmpty { tags.append((card, names)) }
    }

    /// Links `card` to the media files named `fileNames` (``MediaReference/fileName``, saved or pending).
    public mutating func attach(_ card: Card, media fileNames: [String]) {
        if !fileNames.isEmpty { media.append((card, fileNames)) }
    }

    /// Creates tags no card needs to carry.
    public mutating func ensureTags(_ names: [String]) {
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
            for name in names {
                guard let key = try tagKey(name) else { continue }
                link.reset()
                link.bind(int64: card.id, at: 1)
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
            for fileName in fileNames {
                guard let key = mediaKeys[fileName] else { continue }
                attach.reset()
                attach.bind(int64: card.id, at: 1)
                attach.bind(int64: key, at: 2)
                _ = try attach.step()
            }
        }
    }
}
