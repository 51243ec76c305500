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

    /// Saves pending changes with the full-text index triggers suspended, then rebuilds the
    /// index in one statement. For large imports: keeping the index by triggers costs a
    /// subquery and an index update per card and per tag link; one rebuild is several times
    /// cheaper. Everything (the triggers' removal, the rows, the rebuild) happens in one
    /// transaction, so a failure leaves the deck as it was, triggers included.
    ///
    /// Cost: the rebuild reads every card of the deck, so for a handful of cards added to a large
    /// deck ``save()`` is cheaper.
    /// - Throws: ``DeckError`` `readOnly`; the persistence error of a failed save.
    public func saveRebuildingSearchIndex() throws {
        try requireOpen()
        guard mode == .readWrite else {
            throw DeckError(path: url.path, reason: "deck is open read-only", kind: .readOnly)
        }
        guard mainContext.hasChanges else { return try save() }
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
