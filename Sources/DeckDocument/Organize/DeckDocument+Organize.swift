import Foundation
import Persistence
import SQLite

/// A note type as `deck notetypes` lists it.
public struct NoteTypeSummary: Sendable, Hashable {
    /// One card template: its name and its question and answer formats.
    public struct Template: Sendable, Hashable {
        public var ordinal: Int
        public var name: String
        public var question: String
        public var answer: String
    }

    public var id: Int64
    public var name: String
    /// `standard` or `cloze`.
    public var kind: String
    /// The field names in ordinal order.
    public var fields: [String]
    /// The field notes are sorted by (its ordinal).
    public var sortField: Int
    public var templates: [Template]
    public var css: String
    public var notes: Int
    public var cards: Int
}

/// A deck of the tree as `deck decks` lists it: its own cards and its subtree's.
public struct DeckSummary: Sendable, Hashable {
    /// Card counts by state.
    public struct Counts: Sendable, Hashable {
        public var cards = 0
        public var new = 0
        public var learning = 0
        public var review = 0
        public var suspended = 0
        public var buried = 0
        /// Learning cards due now and review cards due today.
        public var due = 0

        mutating func add(_ other: Counts) {
            cards += other.cards
            new += other.new
            learning += other.learning
            review += other.review
            suspended += other.suspended
            buried += other.buried
            due += other.due
        }
    }

    public var id: Int64
    /// The full `::` path.
    public var name: String
    /// The number of `::` levels above it (0 for a top-level deck).
    public var depth: Int { name.components(separatedBy: "::").count - 1 }
    /// The last level of the path.
    public var shortName: String { name.components(separatedBy: "::").last ?? name }
    /// `normal` or `filtered`.
    public var kind: String
    public var deckDescription: String
    /// The deck's own cards.
    public var own: Counts
    /// The deck's cards and its subdecks'.
    public var total: Counts
}

/// A tag with the number of notes that carry it.
public struct TagSummary: Sendable, Hashable {
    public var name: String
    public var notes: Int
}

/// A change of many cards or notes: how many matched and how many were changed.
public struct BulkChange: Sendable, Hashable {
    public var matched: Int
    public var changed: Int
    public init(matched: Int, changed: Int) {
        self.matched = matched
        self.changed = changed
    }
}

/// A deck-tree, note-type or tag operation that can't be done as asked (an unknown deck, a
/// name taken, a deck moved into itself). ``kind`` says which, for the exit status.
public struct DeckOrganizeError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// What the operation names does not exist.
        case notFound
        /// The new name is taken.
        case exists
        /// The request itself is wrong (an empty level, a deck into its own subtree).
        case invalid
    }

    public let kind: Kind
    public let message: String
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

extension DeckDocument {
    // MARK: Note types

    /// The keys of the note types that have at least one note: one index look-up per type
    /// (``noteTypeSummaries()`` counts every note and card).
    /// - Throws: the store's error.
    public func noteTypeKeysInUse() throws -> Set<Int64> {
        try requireOpen()
        return try container.withDatabase(for: Note.self) { db in
            let statement = try db.prepare("""
                SELECT t."pk" FROM "NoteType" t WHERE EXISTS (SELECT 1 FROM "Note" n WHERE n."noteType" = t."pk")
                """)
            var keys: Set<Int64> = []
            while try statement.step() { keys.insert(statement.int64(at: 0)) }
            return keys
        }
    }

    /// Every note type with its fields, templates and note and card counts, by name.
    /// - Throws: the store's error; ``DeckError`` when closed.
    public func noteTypeSummaries() throws -> [NoteTypeSummary] {
        let types = try noteTypes()
        let counts: [Int64: (notes: Int, cards: Int)] = try container.withDatabase(for: Note.self) { db in
            var counts: [Int64: (notes: Int, cards: Int)] = [:]
            for row in try db.rows("""
                SELECT n."noteType", count(DISTINCT n."pk"), count(c."pk") FROM "Note" n LEFT JOIN "Card" c ON c."note" = n."pk" \
                GROUP BY n."noteType"
                """) {
                guard case .integer(let key)? = row.first else { continue }
                counts[key] = (Self.int(row[1]), Self.int(row[2]))
            }
            return counts
        }
        return types.map { type in
            let key = type.persistentModelID.primaryKey
            return NoteTypeSummary(
                id: key, name: type.name, kind: type.kind == .cloze ? "cloze" : "standard",
                fields: type.fields.sorted { $0.ordinal < $1.ordinal }.map(\.name), sortField: type.sortField,
                templates: type.templates.sorted { $0.ordinal < $1.ordinal }.map {
                    NoteTypeSummary.Template(ordinal: $0.ordinal, name: $0.name, question: $0.questionFormat, answer: $0.answerFormat)
                },
                css: type.css, notes: counts[key]?.notes ?? 0, cards: counts[key]?.cards ?? 0)
        }
    }

    // MARK: Decks

    /// Every deck of the tree in tree order (a parent before its subdecks, siblings by name),
    /// with its own and its subtree's card counts, counted in SQL.
    ///
    /// `now` decides which cards are due (learning cards due by then, review cards due by the
    /// study day it falls in).
    public func deckSummaries(now: Date = Date()) throws -> [DeckSummary] {
        try requireOpen()
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let (decks, own): ([DeckSummary], [Int64: DeckSummary.Counts]) = try container.withDatabase(for: Note.self) { db in
            var decks: [DeckSummary] = []
            for row in try db.rows(#"SELECT "pk", "name", "kind", "deckDescription" FROM "Deck""#) {
                guard case .integer(let key) = row[0], case .text(let name) = row[1] else { continue }
                let description: String = if case .text(let text) = row[3] { text } else { "" }
                decks.append(DeckSummary(id: key, name: name, kind: Self.int(row[2]) == 1 ? "filtered" : "normal",
                                         deckDescription: description, own: .init(), total: .init()))
            }
            var own: [Int64: DeckSummary.Counts] = [:]
            let today = #"(SELECT (? - "dayZero") / 86400 FROM "DeckInfo" ORDER BY "pk" LIMIT 1)"#
            for row in try db.rows("""
                SELECT "deck", count(*), sum("queue" = 0), sum("queue" IN (1, 3)), sum("queue" = 2), sum("queue" = -1), \
                sum("queue" IN (-2, -3)), sum(("queue" = 1 AND "due" <= ?) OR ("queue" IN (2, 3) AND "due" <= \(today))) \
                FROM "Card" GROUP BY "deck"
                """, [.integer(seconds), .integer(seconds)]) {
                guard case .integer(let key) = row[0] else { continue }
                own[key] = DeckSummary.Counts(cards: Self.int(row[1]), new: Self.int(row[2]), learning: Self.int(row[3]),
                                              review: Self.int(row[4]), suspended: Self.int(row[5]), buried: Self.int(row[6]),
                                              due: Self.int(row[7]))
            }
            return (decks, own)
        }
        var sorted = decks.sorted { Self.deckPathPrecedes($0.name, $1.name) }
        for index in sorted.indices {
            sorted[index].own = own[sorted[index].id] ?? .init()
            sorted[index].total = sorted[index].own
        }
        // Each deck's counts go to every ancestor (a prefix of its path).
        let byName = Dictionary(sorted.enumerated().map { ($0.element.name.lowercased(), $0.offset) }, uniquingKeysWith: { first, _ in first })
        for deck in sorted {
            var levels = deck.name.components(separatedBy: "::")
            while levels.count > 1 {
                levels.removeLast()
                if let parent = byName[levels.joined(separator: "::").lowercased()] { sorted[parent].total.add(deck.own) }
            }
        }
        return sorted
    }

    /// Tree order: compared level by level, ignoring case.
    static func deckPathPrecedes(_ a: String, _ b: String) -> Bool {
        let left = a.lowercased().components(separatedBy: "::"), right = b.lowercased().components(separatedBy: "::")
        for (x, y) in zip(left, right) where x != y { return x < y }
        return left.count < right.count
    }

    /// A `::` path with its levels trimmed.
    /// - Throws: ``DeckOrganizeError`` `invalid` for an empty level.
    static func normalizedDeckPath(_ path: String) throws -> String {
        let levels = path.components(separatedBy: "::").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !levels.contains(where: \.isEmpty) else { throw DeckOrganizeError(.invalid, "deck name \"\(path)\" has an empty level") }
        return levels.joined(separator: "::")
    }

    /// Every deck model, fetched once.
    private func allDecks() throws -> [DeckSchemaV2.Deck] {
        try mainContext.fetch(FetchDescriptor<DeckSchemaV2.Deck>()).filter { !$0.isDeleted }
    }

    /// The deck named `path` (ignoring case), or nil.
    public func existingDeck(named path: String) throws -> DeckSchemaV2.Deck? {
        try requireOpen()
        let wanted = try Self.normalizedDeckPath(path).lowercased()
        return try allDecks().first { $0.name.lowercased() == wanted }
    }

    /// Creates the deck at a `::` path with its missing ancestors; written by the next ``save()``.
    /// - Throws: ``DeckOrganizeError`` `exists` when a deck has that name (ignoring case), `invalid`
    ///   for an empty level; ``DeckError`` `readOnly`.
    @discardableResult
    public func createDeck(named path: String) throws -> DeckSchemaV2.Deck {
        try requireWritable()
        let name = try Self.normalizedDeckPath(path)
        if let existing = try existingDeck(named: name) {
            throw DeckOrganizeError(.exists, "a deck named \"\(existing.name)\" already exists")
        }
        return try deck(named: name)
    }

    /// Renames a deck and its subdecks (`A::B` → `C::B` when `A` becomes `C`), creating the
    /// missing ancestors of the new name; the cards stay in their decks. Returns the number of
    /// decks renamed. Written by the next ``save()``.
    /// - Throws: ``DeckOrganizeError`` `notFound` for an unknown deck, `exists` when a renamed
    ///   deck's new name is taken, `invalid` for a move into the deck's own subtree.
    @discardableResult
    public func renameDeck(_ oldPath: String, to newPath: String) throws -> Int {
        try requireWritable()
        let oldName = try Self.normalizedDeckPath(oldPath), newName = try Self.normalizedDeckPath(newPath)
        guard let deck = try existingDeck(named: oldName) else {
            throw DeckOrganizeError(.notFound, "no deck named \"\(oldName)\"")
        }
        let from = deck.name
        if newName.lowercased() == from.lowercased() {
            guard newName != from else { return 0 }
        } else if newName.lowercased().hasPrefix(from.lowercased() + "::") {
            throw DeckOrganizeError(.invalid, "can't move \"\(from)\" into its own subdeck \"\(newName)\"")
        }
        let decks = try allDecks()
        let moving = decks.filter { $0 === deck || $0.name.lowercased().hasPrefix(from.lowercased() + "::") }
        let movingSet = Set(moving.map(ObjectIdentifier.init))
        let taken = Set(decks.filter { !movingSet.contains(ObjectIdentifier($0)) }.map { $0.name.lowercased() })
        var renames: [(DeckSchemaV2.Deck, String)] = []
        for item in moving {
            let renamed = newName + item.name.dropFirst(from.count)
            if taken.contains(renamed.lowercased()) {
                throw DeckOrganizeError(.exists, "a deck named \"\(renamed)\" already exists")
            }
            renames.append((item, renamed))
        }
        let now = Date()
        for (item, renamed) in renames {
            item.name = renamed
            item.modified = now
        }
        let levels = newName.components(separatedBy: "::")
        if levels.count > 1 { _ = try self.deck(named: levels.dropLast().joined(separator: "::")) }
        return renames.count
    }

    /// Sets a deck's description (HTML, as Anki shows it); written by the next ``save()``.
    /// - Throws: ``DeckOrganizeError`` `notFound`; ``DeckError`` `readOnly`.
    public func setDeckDescription(_ text: String, ofDeck path: String) throws {
        try requireWritable()
        guard let deck = try existingDeck(named: path) else { throw DeckOrganizeError(.notFound, "no deck named \"\(path)\"") }
        guard deck.deckDescription != text else { return }
        deck.deckDescription = text
        deck.modified = Date()
    }

    // MARK: Tags

    /// Every tag with the number of notes carrying it, by name; tags no note carries count 0.
    public func tagSummaries() throws -> [TagSummary] {
        try requireOpen()
        return try container.withDatabase(for: Note.self) { db in
            try db.rows(#"SELECT t."name", (SELECT count(*) FROM "Note_tags" j WHERE j."target" = t."pk") FROM "Tag" t ORDER BY t."name""#)
                .compactMap { row in
                    guard case .text(let name) = row[0] else { return nil }
                    return TagSummary(name: name, notes: Self.int(row[1]))
                }
        }
    }

    /// The tags named `name` and below it (`name::…`), ignoring case.
    private func tagSubtree(_ name: String) throws -> [DeckSchemaV2.Tag] {
        let wanted = name.lowercased()
        return try allTags().filter { !$0.isDeleted && ($0.name.lowercased() == wanted || $0.name.lowercased().hasPrefix(wanted + "::")) }
    }

    /// Renames a tag and the tags below it (`lang::fr` → `langue::fr` when `lang` becomes
    /// `langue`); a new name another tag already has merges the two (its notes get it once).
    /// Returns the number of notes whose tags changed. Written by the next ``save()``.
    /// - Throws: ``DeckOrganizeError`` `notFound` for an unknown tag, `invalid` for an empty
    ///   name or one with spaces; ``DeckError`` `readOnly`.
    @discardableResult
    public func renameTag(_ oldName: String, to newName: String) throws -> Int {
        try requireWritable()
        let target = newName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !target.isEmpty, !target.contains(where: \.isWhitespace) else {
            throw DeckOrganizeError(.invalid, "a tag name is one word without spaces, not \"\(newName)\"")
        }
        let moving = try tagSubtree(oldName)
        guard !moving.isEmpty else { throw DeckOrganizeError(.notFound, "no tag named \"\(oldName)\"") }
        let prefixLength = oldName.count
        var byName: [String: DeckSchemaV2.Tag] = [:]
        let movingSet = Set(moving.map(ObjectIdentifier.init))
        for tag in try allTags() where !tag.isDeleted && !movingSet.contains(ObjectIdentifier(tag)) { byName[tag.name.lowercased()] = tag }
        var changedNotes: Set<ObjectIdentifier> = []
        for tag in moving {
            let renamed = target + tag.name.dropFirst(prefixLength)
            if let existing = byName[renamed.lowercased()] {
                // Merge: every note of `tag` gets `existing` instead.
                for note in tag.notes {
                    var tags = note.tags.filter { $0 !== tag }
                    if !tags.contains(where: { $0 === existing }) { tags.append(existing) }
                    note.tags = tags
                    note.modified = Date()
                    changedNotes.insert(ObjectIdentifier(note))
                }
                mainContext.delete(tag)
            } else if tag.name != renamed {
                for note in tag.notes {
                    note.modified = Date()
                    changedNotes.insert(ObjectIdentifier(note))
                }
                tag.name = renamed
                byName[renamed.lowercased()] = tag
            }
        }
        return changedNotes.count
    }

    /// Removes tags and the tags below them from every note, and deletes them. Returns the
    /// number of notes whose tags changed. Written by the next ``save()``.
    /// - Throws: ``DeckOrganizeError`` `notFound` naming a tag the deck doesn't have (nothing removed).
    @discardableResult
    public func removeTags(_ names: [String]) throws -> Int {
        try requireWritable()
        var removing: [DeckSchemaV2.Tag] = []
        var seen: Set<ObjectIdentifier> = []
        for name in names {
            let found = try tagSubtree(name)
            guard !found.isEmpty else { throw DeckOrganizeError(.notFound, "no tag named \"\(name)\"") }
            for tag in found where seen.insert(ObjectIdentifier(tag)).inserted { removing.append(tag) }
        }
        var changedNotes: Set<ObjectIdentifier> = []
        for tag in removing {
            for note in tag.notes {
                note.tags = note.tags.filter { !seen.contains(ObjectIdentifier($0)) }
                note.modified = Date()
                changedNotes.insert(ObjectIdentifier(note))
            }
            mainContext.delete(tag)
        }
        return changedNotes.count
    }

    // MARK: Card states

    /// The cards with these ids, in the order given, each once.
    /// - Throws: ``DeckOrganizeError`` `notFound` naming the first id with no card.
    public func cards(ids: [Int64]) throws -> [DeckSchemaV2.Card] {
        var result: [DeckSchemaV2.Card] = []
        var seen: Set<Int64> = []
        for id in ids where seen.insert(id).inserted {
            guard let card = try card(id: id) else { throw DeckOrganizeError(.notFound, "no card with id \(id)") }
            result.append(card)
        }
        return result
    }

    /// Suspends cards (Anki's queue -1: never studied until unsuspended), or unsuspends them
    /// (queue back from the card's type, as Anki restores it). Cards already in the asked state
    /// are left alone. Written by the next ``save()``.
    @discardableResult
    public func setSuspended(_ suspended: Bool, cards: [DeckSchemaV2.Card]) throws -> BulkChange {
        try requireWritable()
        var changed = 0
        let now = Date()
        for card in cards {
            if suspended {
                guard card.queue != .suspended else { continue }
                card.queue = .suspended
            } else {
                guard card.queue == .suspended else { continue }
                card.queue = Self.unsuspendedQueue(card)
            }
            card.modified = now
            changed += 1
        }
        return BulkChange(matched: cards.count, changed: changed)
    }

    /// The queue a card goes back to when unsuspended or unburied (Anki's `restore_queue_from_type`).
    static func unsuspendedQueue(_ card: DeckSchemaV2.Card) -> DeckSchemaV2.CardQueue {
        switch card.type {
        case .new: .new
        case .review: .review
        // A learning step of a day or more keeps a day number in `due`.
        case .learning, .relearning: card.due > 1_000_000_000 ? .learning : .dayLearning
        }
    }

    /// The flags a card can have: 0 (none) to 7 (Anki's red, orange, green, blue, pink, turquoise, purple).
    public static let flagRange = 0...7

    /// Sets cards' flag (0 clears it). Written by the next ``save()``.
    /// - Throws: ``DeckOrganizeError`` `invalid` for a flag outside 0–7.
    @discardableResult
    public func setFlag(_ flag: Int, cards: [DeckSchemaV2.Card]) throws -> BulkChange {
        try requireWritable()
        guard Self.flagRange.contains(flag) else { throw DeckOrganizeError(.invalid, "a flag is 0 (none) to 7, not \(flag)") }
        var changed = 0
        let now = Date()
        for card in cards where card.flag != flag {
            card.flag = flag
            card.modified = now
            changed += 1
        }
        return BulkChange(matched: cards.count, changed: changed)
    }

    static func int(_ value: SQLValue) -> Int {
        switch value {
        case .integer(let v): Int(clamping: v)
        case .real(let v) where v.isFinite && abs(v) < 9e15: Int(v)
        default: 0
        }
    }
}
