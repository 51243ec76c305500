import Archive
import DeckDocument
import DeckFilter
import Foundation
import Interchange
import Persistence
import SQLite

/// A deck package opened for one command: the seam between the commands and the
/// `DeckDocument` library, turning its models into plain ``CardRecord`` values and its
/// errors into ``DeckFailure``s with the path the user typed.
final class OpenDeck {
    /// The package path as the user typed it (used in messages).
    let path: String
    let document: DeckDocument

    private init(path: String, document: DeckDocument) {
        self.path = path
        self.document = document
    }

    deinit { try? document.close() }

    var manifest: DeckManifest { document.manifest }
    var storeName: String { document.manifest.store }

    /// The sort keys `deck list --sort` accepts.
    static let sortKeys = ["id", "front", "back", "kind", "created", "modified", "due", "interval", "ease", "reps", "lapses",
                           "notetype", "deck", "card", "flag", "note"]

    // MARK: - Create and open

    /// Creates a new, empty deck at `path`; refuses an existing path (exit 73).
    static func create(at path: String, title: String) throws -> OpenDeck {
        try mapping(path) { OpenDeck(path: path, document: try DeckDocument.create(at: URL(fileURLWithPath: path), title: title)) }
    }

    /// Opens the deck at `path`; read-only, `path` may also be an archive made by
    /// `deck archive` (read through a private temporary copy removed on close).
    /// Opening for writing waits as `wait` allows while another writer holds the deck.
    /// `writeAheadLog: false` for a command that writes once and closes (see ``DeckDocument/open(at:mode:lockWait:writeAheadLog:)``).
    static func open(at path: String, readOnly: Bool, wait: DeckLockWait = .none, writeAheadLog: Bool = true) throws -> OpenDeck {
        try mapping(path) {
            let url = URL(fileURLWithPath: path)
            var isDirectory: ObjCBool = false
            if readOnly, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                if let kind = foreignFileKind(url) {
                    throw DeckFailure(.corrupt, path: path, reason: "is \(kind), not a deck: 'deck import <deck> \(path)' adds it to a deck, "
                                      + "'deck convert \(path)' makes a deck of it")
                }
                return OpenDeck(path: path, document: try DeckDocument.open(archive: url, limits: ArchiveSecurity.limits()))
            }
            return OpenDeck(path: path, document: try DeckDocument.open(at: url, mode: readOnly ? .readOnly : .readWrite, lockWait: wait,
                                                                            writeAheadLog: writeAheadLog))
        }
    }

    /// What a file given where a deck belongs is, when it is a file `deck import` reads (an Anki
    /// package, JSON, CSV or TSV text) rather than a deck archive; nil for anything else, which
    /// the archive reader then judges.
    private static func foreignFileKind(_ url: URL) -> String? {
        let format: InterchangeFormat?
        do { format = try InterchangeFormat.sniffImport(at: url) } catch { return nil }
        switch format {
        case .apkg?, .colpkg?: return "an Anki package"
        case .json?: return "a JSON file"
        case nil: return "a text file (CSV or TSV)"
        case .some(let other): return "a file of format \(other.rawValue)"
        }
    }

    // MARK: - Reading

    func cardCount() throws -> Int {
        try mapping(path) { try document.cardCount() }
    }

    func noteCount() throws -> Int {
        try mapping(path) { try document.noteCount() }
    }

    /// The note of the card `id` as a record named by its first card (nil when there is no such card).
    func card(id: Int64) throws -> CardRecord? {
        try mapping(path) { try document.note(forCard: id).map(Self.record) }
    }

    /// Notes matching `filter`, sorted, paged; the filter runs as SQL.
    func cards(where filter: FilterExpression?, sortedBy sort: [(field: String, descending: Bool)],
               limit: Int?, offset: Int) throws -> [CardRecord] {
        try mapping(path) {
            try document.notes(where: filter, sortedBy: sort, limit: limit, offset: offset).map(Self.record)
        }
    }

    /// Calls `body` with each card matching `filter` as rows come from one query (bounded
    /// memory, first card at once); `body` returns false to stop.
    func forEachCard(where filter: FilterExpression?, sortedBy sort: [(field: String, descending: Bool)],
                     limit: Int?, offset: Int, perCard: Bool = false, details: Bool = false, byteOrder: Bool = false,
                     _ body: (CardRecord) throws -> Bool) throws {
        try mapping(path) {
            try document.forEachCardRow(where: filter, sortedBy: sort, limit: limit, offset: offset, perCard: perCard, details: details,
                                        byteOrder: byteOrder) {
                try body(Self.record($0))
            }
        }
    }

    /// Calls `body` with each card a search finds, best first, without loading models.
    /// With `filter` or `sort`, only the notes the filter matches, in the sort's order.
    func forEachSearchResult(_ text: String, where filter: FilterExpression? = nil, sortedBy sort: [(field: String, descending: Bool)] = [],
                             limit: Int?, byteOrder: Bool = false, _ body: (CardRecord) throws -> Bool) throws {
        try mapping(path) {
            try document.forEachSearchRow(matching: text, where: filter, sortedBy: sort, limit: limit, byteOrder: byteOrder) { try body(Self.record($0)) }
        }
    }

    /// Whether a bulk import left cards out of the search index (the next writable search indexes them).
    func hasPendingSearchIndex() throws -> Bool {
        try mapping(path) { try document.hasPendingSearchIndex() }
    }

    /// Cards whose front, back or tags match `text`, ignoring case and diacritics, best first.
    func search(_ text: String, limit: Int?) throws -> [CardRecord] {
        try mapping(path) { try document.search(text, limit: limit).map(Self.record) }
    }

    // MARK: - Writing

    /// Adds notes of the stock type of each kind (front and back as its two fields) and saves
    /// them in one transaction; returns them with their identifiers.
    @discardableResult
    func add(_ cards: [(kind: String, front: String, back: String, tags: [String])]) throws -> [CardRecord] {
        try mapping(path) {
            var notes: [Note] = []
            for card in cards {
                notes.append(try document.addCard(kind: CardKind(rawValue: card.kind) ?? .basic,
                                                  front: card.front, back: card.back, tags: Self.splitTags(card.tags)))
            }
            try document.save()
            return notes.map(Self.record)
        }
    }

    /// Adds one note of the note type named `typeName` (the stock Basic when nil) with its
    /// fields by name (`fields`) or in order (`values`), tags and deck, and saves.
    func addNote(typeName: String?, fields: [(name: String, value: String)], values: [String], tags: [String],
                 deck: String?) throws -> CardRecord {
        try mapping(path) {
            let type: NoteType
            if let typeName {
                guard let found = try document.noteType(named: typeName) else {
                    let known = try document.noteTypes().map(\.name).joined(separator: ", ")
                    throw DeckFailure(.usage, path: nil, reason: "--type: the deck has no note type \"\(typeName)\"; it has \(known)")
                }
                type = found
            } else {
                type = try document.stockNoteType(.basic)
            }
            var all = values
            if !fields.isEmpty {
                let named = try document.fieldValues(fields, for: type)
                all = values.isEmpty ? named : zip(named.indices, named).map { index, value in
                    value.isEmpty && index < values.count ? values[index] : value
                }
            }
            let note = try document.addNote(type: type, fields: all, tags: Self.splitTags(tags), deck: deck)
            try document.save()
            return Self.record(note)
        }
    }

    /// Replaces the front and back (the first two fields) and tags of the note of card
    /// `record.id`, adds the cards the new values generate, and saves.
    func update(_ record: CardRecord) throws -> CardRecord {
        try mapping(path) {
            guard let note = try document.note(forCard: record.id) else {
                throw DeckFailure(.notFound, path: path, reason: "no card with id \(record.id)")
            }
            var fields = note.fields
            if fields.isEmpty { fields = [record.front] } else { fields[0] = record.front }
            if fields.count > 1 { fields[1] = record.back }
            try document.setFields(fields, of: note)
            try document.setTags(Self.splitTags(record.tags), of: note)
            try document.save()
            return Self.record(note)
        }
    }

    /// Deletes the notes of cards (all of each note's cards) by card identifier and saves.
    func delete(ids: [Int64]) throws {
        try mapping(path) {
            var notes: [Note] = []
            var seen: Set<ObjectIdentifier> = []
            for id in ids {
                if let note = try document.note(forCard: id), seen.insert(ObjectIdentifier(note)).inserted { notes.append(note) }
            }
            try document.delete(notes)
            try document.save()
        }
    }

    /// Refuses a deck holding a value outside its column's range in the rows `scope` names (exit
    /// 65 naming the row and column): for commands that read the deck through models (study,
    /// review, due).
    func verifyValues(_ scope: DeckValueScope = .everything) throws {
        try mapping(path) { try document.verifyValues(scope) }
    }

    /// Problems found in the package: the store's integrity and foreign keys, the
    /// manifest, the search index and media references.
    func check() -> [DeckProblem] {
        document.check()
    }

    /// Writes a consistent copy of the deck (manifest and store, media unless told not to)
    /// as a new package at `destination`.
    func copyPackage(to destination: String, includingMedia: Bool) throws {
        try mapping(path) { try document.copyPackage(to: URL(fileURLWithPath: destination), includingMedia: includingMedia) }
    }

    /// Replaces the deck's store with `other`'s (one write transaction) and saves.
    func replaceStore(withContentsOf other: OpenDeck) throws {
        try mapping(path) { try document.replaceStore(withContentsOf: other.document) }
    }

    /// Closes the deck (saving what is pending, letting the write lock go); the deck can't be used after.
    func close() throws {
        try mapping(path) { try document.close() }
    }

    /// Whether the deck was opened from an archive (a private copy, read-only).
    var isArchive: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    /// Saves what is pending in the deck's context.
    func saveChanges() throws {
        try mapping(path) { try document.save() }
    }

    /// Runs `body` on the document, its errors mapped to failures naming the deck as typed.
    func perform<T>(_ body: (DeckDocument) throws -> T) throws -> T {
        try mapping(path) { try body(document) }
    }

    /// Runs `body` on the document and saves what it changed; nothing is saved when it throws.
    func change<T>(_ body: (DeckDocument) throws -> T) throws -> T {
        try mapping(path) {
            do {
                let result = try body(document)
                try document.save()
                return result
            } catch {
                document.discardChanges()
                throw error
            }
        }
    }

    // MARK: - Helpers

    private static func record(_ row: CardRow) -> CardRecord {
        CardRecord(id: row.id, kind: row.kind, front: row.front, back: row.back, tags: row.tags, created: row.created, modified: row.modified,
                   details: row.details)
    }

    private static func record(_ note: Note) -> CardRecord {
        let fields = note.fields
        let kind = note.noteType.map(CardKind.init(noteType:)) ?? .basic
        return CardRecord(id: note.cards.map(\.id).min() ?? 0, kind: kind.rawValue, front: fields.first ?? "",
                          back: fields.count > 1 ? fields[1] : "", tags: note.tags.map(\.name).sorted(),
                          created: note.created, modified: note.modified)
    }

    /// Tags given as "a b" in one field become separate tags.
    static func splitTags(_ tags: [String]) -> [String] {
        tags.flatMap { $0.split(whereSeparator: \.isWhitespace) }.map(String.init)
    }

    private func mapping<T>(_ path: String, _ body: () throws -> T) throws -> T {
        try Self.mapping(path, body)
    }

    /// Runs `body`, turning library errors into failures that name `path` as typed.
    static func mapping<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DeckFailure {
            throw error
        } catch let error as DeckError {
            let kind: DeckFailure.Kind = switch error.kind {
            case .notADeck, .newerVersion, .corrupt: .corrupt
            case .missing: .missing
            case .alreadyExists, .readOnly: .cannotCreate
            case .inUse, .io: .io
            }
            throw DeckFailure(kind, path: path, reason: error.reason)
        } catch let error as SearchQueryError {
            throw DeckFailure(.usage, path: nil, reason: "search: \(error.message)")
        } catch let error as DeckQueryError {
            throw DeckFailure(.usage, path: nil, reason: "--where: \(error.message)")
        } catch let error as NoteInputError {
            throw DeckFailure(.usage, path: nil, reason: error.message)
        } catch let error as DeckOrganizeError {
            let kind: DeckFailure.Kind = switch error.kind {
            case .notFound: .notFound
            case .exists: .cannotCreate
            case .invalid: .usage
            }
            throw DeckFailure(kind, path: error.kind == .invalid ? nil : path, reason: error.message)
        } catch let error as ArchiveError {
            let kind: DeckFailure.Kind = switch error.kind {
            case .malformed, .unsafeEntry, .limitExceeded: .corrupt
            case .alreadyExists: .cannotCreate
            case .io, .invalidArgument: .io
            }
            throw DeckFailure(kind, path: path, reason: (error.entry.map { "\($0): " } ?? "") + error.reason)
        } catch let error as DatabaseError {
            throw DeckFailure(error.code == 11 || error.code == 26 ? .corrupt : .io, path: path, reason: error.description)
        } catch let error as PersistenceError {
            // A store whose rows don't fit the deck's models (edited or damaged outside SampleDeck) is bad data.
            switch error {
            case .invalidStoredValue, .incompatibleStore, .unknownEntity, .relationshipCount:
                throw DeckFailure(.corrupt, path: path, reason: "the store holds data that is not a valid deck: \(error)")
            case .database(let database):
                throw DeckFailure(database.code == 11 || database.code == 26 ? .corrupt : .io, path: path, reason: database.description)
            default:
                throw error
            }
        }
    }
}
