import Foundation
import Persistence

/// One edit applied to many notes: fields set (by ordinal or by name), tags added and
/// removed, the cards moved to a deck. Empty parts change nothing.
public struct NoteEdit: Sendable, Equatable {
    /// Values by field ordinal (0 is `front`, 1 is `back`).
    public var fieldsByOrdinal: [Int: String] = [:]
    /// Values by field name (ignoring case) in each note's type.
    public var fieldsByName: [(name: String, value: String)] = []
    public var addTags: [String] = []
    public var removeTags: [String] = []
    /// The `::` path every card of the note moves to (created when missing).
    public var deck: String?

    public init(fieldsByOrdinal: [Int: String] = [:], fieldsByName: [(name: String, value: String)] = [],
                addTags: [String] = [], removeTags: [String] = [], deck: String? = nil) {
        self.fieldsByOrdinal = fieldsByOrdinal
        self.fieldsByName = fieldsByName
        self.addTags = addTags
        self.removeTags = removeTags
        self.deck = deck
    }

    public var isEmpty: Bool { fieldsByOrdinal.isEmpty && fieldsByName.isEmpty && addTags.isEmpty && removeTags.isEmpty && deck == nil }

    public static func == (a: NoteEdit, b: NoteEdit) -> Bool {
        a.fieldsByOrdinal == b.fieldsByOrdinal && a.fieldsByName.map(\.name) == b.fieldsByName.map(\.name)
            && a.fieldsByName.map(\.value) == b.fieldsByName.map(\.value) && a.addTags == b.addTags
            && a.removeTags == b.removeTags && a.deck == b.deck
    }
}

/// What an edit changes (or would change) in one note.
public struct NoteChange: Sendable, Hashable {
    public struct FieldChange: Sendable, Hashable {
        public var name: String
        public var old: String
        public var new: String
    }

    /// The note's key.
    public var note: Int64
    /// The id of its first card (what a listing of notes shows).
    public var card: Int64
    public var fields: [FieldChange]
    public var addedTags: [String]
    public var removedTags: [String]
    /// The decks its cards leave (sorted) and the one they go to, when they move.
    public var fromDecks: [String]
    public var toDeck: String?

    public var isEmpty: Bool { fields.isEmpty && addedTags.isEmpty && removedTags.isEmpty && toDeck == nil }
}

extension DeckDocument {
    /// Applies `edit` to the notes with these keys in the context (written by the next
    /// ``save()``, one transaction), or with `dryRun` only works out what it would change.
    /// Returns the notes that change, with what changes, in key order; notes the edit leaves
    /// as they are are not returned.
    ///
    /// Every note is checked before any is changed: a field name a note's type lacks, too many
    /// values, a cloze note left without a cloze deletion throws and changes nothing.
    /// - Throws: ``NoteInputError``; ``DeckOrganizeError`` `notFound` for a key with no note;
    ///   ``DeckError`` `readOnly` (unless `dryRun`); the store's error.
    public func editNotes(ids: [Int64], _ edit: NoteEdit, dryRun: Bool = false) throws -> [NoteChange] {
        if dryRun { try requireOpen() } else { try requireWritable() }
        var notes: [Note] = []
        var seen: Set<Int64> = []
        for id in ids.sorted() where seen.insert(id).inserted {
            guard let note = try note(id: id) else { throw DeckOrganizeError(.notFound, "no note with key \(id)") }
            notes.append(note)
        }
        // Existing tags by folded name, fetched once.
        var tagsByName: [String: String] = [:]
        for tag in try allTags() where !tag.isDeleted { tagsByName[tag.name.lowercased()] = tag.name }
        let removing = Set(edit.removeTags.map { $0.lowercased() })
        let targetDeck = try edit.deck.map { try Self.normalizedDeckPath($0) }

        // Plan every note first (nothing is touched until all are known to be valid).
        var plans: [(note: Note, fields: [String]?, tags: [String]?, change: NoteChange)] = []
        for note in notes {
            guard let type = note.noteType else { throw DeckError(path: storeURL.path, reason: "note \(note.id) has no note type", kind: .corrupt) }
            let layout = layout(of: type)
            var values = try Self.fieldValues(note.fields, for: layout)
            for (ordinal, value) in edit.fieldsByOrdinal.sorted(by: { $0.key < $1.key }) {
                guard values.indices.contains(ordinal) else {
                    throw NoteInputError("note \(note.id) (\(type.name)) has no field \(ordinal + 1); its fields are \(layout.fieldNames.joined(separator: ", "))")
                }
                values[ordinal] = value
            }
            for (name, value) in edit.fieldsByName {
                guard let index = layout.fieldNames.firstIndex(where: { $0.lowercased() == name.lowercased() }) else {
                    throw NoteInputError("note \(note.id): \(type.name) has no field \"\(name)\"; its fields are \(layout.fieldNames.joined(separator: ", "))")
                }
                values[index] = value
            }
            if values != note.fields, type.kind == .cloze, layout.nonEmptyOrdinals(fieldValues: values).isEmpty {
                throw NoteInputError("note \(note.id): a \(type.name) note needs a cloze deletion such as {{c1::text}} in a field")
            }
            let fieldChanges = values.indices.compactMap { index -> NoteChange.FieldChange? in
                let old = note.fields.indices.contains(index) ? note.fields[index] : ""
                return old == values[index] ? nil : .init(name: layout.fieldNames[index], old: old, new: values[index])
            }
            let current = note.tags.map(\.name)
            let folded = Set(current.map { $0.lowercased() })
            var tags = current.filter { !removing.contains($0.lowercased()) }
            let removed = current.filter { removing.contains($0.lowercased()) }
            var added: [String] = []
            for raw in edit.addTags {
                let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !name.isEmpty, !tags.contains(where: { $0.lowercased() == name.lowercased() }) else { continue }
                let spelled = tagsByName[name.lowercased()] ?? name
                tags.append(spelled)
                if !folded.contains(name.lowercased()) { added.append(spelled) }
            }
            let cards = note.cards
            let decks = Set(cards.compactMap { $0.deck?.name })
            let moves = targetDeck.map { target in cards.contains { $0.deck?.name.lowercased() != target.lowercased() } } ?? false
            let change = NoteChange(note: note.id, card: cards.map(\.id).min() ?? 0, fields: fieldChanges,
                                    addedTags: added, removedTags: removed,
                                    fromDecks: moves ? decks.sorted() : [], toDeck: moves ? targetDeck : nil)
            guard !change.isEmpty else { continue }
            plans.append((note, fieldChanges.isEmpty ? nil : values, added.isEmpty && removed.isEmpty ? nil : tags, change))
        }
        if dryRun { return plans.map(\.change) }

        let deck = try targetDeck.map { try existingDeck(named: $0) ?? self.deck(named: $0) }
        for plan in plans {
            if let fields = plan.fields { try setFields(fields, of: plan.note) }
            if let tags = plan.tags { try setTags(tags, of: plan.note) }
            if let deck, plan.change.toDeck != nil {
                let now = Date()
                for card in plan.note.cards where card.deck !== deck {
                    card.deck = deck
                    card.modified = now
                }
            }
        }
        return plans.map(\.change)
    }
}
