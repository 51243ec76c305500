import Foundation
import Persistence
import SQLite

extension DeckDocument {
    /// Adds a card of `kind` to the main context; tags are reused by name or created.
    ///
    /// The card is written by the next ``save()`` (its ``Card/id`` becomes permanent then).
    /// Empty and repeated tag names are ignored.
    public func addCard(kind: CardKind, front: String, back: String, tags: [String]) throws -> Card {
        try requireOpen()
        guard mode == .readWrite else { throw DeckError(path: url.path, reason: "deck is open read-only", kind: .readOnly) }
        let card: Card
        switch kind {
        case .basic: card = BasicCard(front: front, back: back)
        case .reversible: card = ReversibleCard(front: front, back: back)
        case .cloze: card = ClozeCard(front: front, back: back)
        }
        mainContext.insert(card)
        card.tags = try tagModels(named: tags)
        return card
    }

    /// The tag models for names, fetched or created (one per distinct non-empty name).
    ///
    /// Cost: a fetch per name for a few names; for more than ``tagsFetchedByName``, one fetch of
    /// every tag instead (a fetch also tests each pending new tag, so a fetch per name made
    /// 20,000 new tags quadratic: minutes).
    public func tagModels(named names: [String]) throws -> [Tag] {
        var result: [Tag] = []
        var seen: Set<String> = []
        let known: [String: Tag]? = names.count > Self.tagsFetchedByName ? try tagsByName() : nil
        var created: [String: Tag] = [:]
        for raw in names {
            let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty, seen.insert(name).inserted else { continue }
            if let known {
                if let existing = known[name] ?? created[name] {
                    result.append(existing)
                } else {
                    let tag = Tag(name: name)
                    mainContext.insert(tag)
                    created[name] = tag
                    result.append(tag)
                }
                continue
            }
            var descriptor = FetchDescriptor<Tag>(predicate: #Predicate { $0.name == name })
            descriptor.fetchLimit = 1
            if let existing = try mainContext.fetch(descriptor).first {
                result.append(existing)
            } else {
                let tag = Tag(name: name)
                mainContext.insert(tag)
                result.append(tag)
            }
        }
        return result
    }

    /// Up to this many names, ``tagModels(named:)`` fetches each tag by name.
    static let tagsFetchedByName = 64

    /// The card with a numeric id (its row key), or nil.
    public func card(id: Int64) throws -> Card? {
        try requireOpen()
        let identifier = PersistentIdentifier(storeIdentifier: "Deck", entityName: Card.entityName, primaryKey: id)
        do {
            return try mainContext.model(for: identifier) as? Card
        } catch PersistenceError.modelNotFound {
            return nil
        }
    }

    /// Cards for row keys, in the order given (missing keys are skipped).
    func cards(primaryKeys: [Int64]) throws -> [Card] {
        try primaryKeys.compactMap { try card(id: $0) }
    }

    /// Marks cards deleted (their reviews go with them); written by the next ``save()``.
    public func delete(_ cards: [Card]) throws {
        try requireOpen()
        guard mode == .readWrite else { throw DeckError(path: url.path, reason: "deck is open read-only", kind: .readOnly) }
        for card in cards { mainContext.delete(card) }
    }

    /// The number of cards, counted in SQL (unsaved inserts included).
    public func cardCount() throws -> Int {
        try requireOpen()
        return try mainContext.fetchCount(FetchDescriptor<Card>())
    }

    /// All tags, sorted by name.
    public func allTags() throws -> [Tag] {
        try requireOpen()
        return try mainContext.fetch(FetchDescriptor<Tag>(sortBy: [SortDescriptor(\.name)]))
    }
}
