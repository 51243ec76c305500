import FileSafety
import Foundation
import Persistence
import SQLite

/// A saved note as plain values, for exporters: its fields and note type, the scheduling of its
/// first card (the card a version 1 deck had), its tags, media and that card's review history.
public struct CardSnapshot: Sendable, Hashable {
    /// The id of the note's first card (as ``CardRow/id``).
    public var id: Int64
    /// The kind of its note type (``CardKind/init(noteType:)``).
    public var kind: CardKind
    /// The first field.
    public var front: String
    /// The second field, or "".
    public var back: String
    /// The cloze text (cloze notes only: the first field).
    public var text: String?
    public var created: Date
    public var modified: Date
    /// When the first card is due (nil for a new card).
    public var due: Date?
    public var interval: Int
    /// The first card's ease factor (2.5 = 250 %; 2.5 for a new card).
    public var ease: Double
    public var repetitions: Int
    public var lapses: Int
    /// The note's GUID (every note has one in format version 2).
    public var ankiGUID: String?
    /// The first card's deck; nil for the deck `Default`.
    public var deckPath: String?
    /// Tag names, sorted.
    public var tags: [String]
    /// Media file names (inside `Media/`), sorted.
    public var media: [String]
    /// The review history of the first card, oldest first.
    public var reviews: [ReviewSnapshot]
    /// Every field value of the note, in its type's order.
    public var fields: [String]
    /// The note type's name.
    public var noteType: String
    /// The ordinals of the note's cards, ascending.
    public var ordinals: [Int]
    /// The media names the note refers to (``DeckMedia/originalName``), sorted.
    public var mediaNames: [String]

    /// Creates a snapshot.
    public init(id: Int64 = 0, kind: CardKind, front: String, back: String, text: String? = nil, created: Date, modified: Date,
                due: Date? = nil, interval: Int = 0, ease: Double = 2.5, repetitions: Int = 0, lapses: Int = 0,
                ankiGUID: String? = nil, deckPath: String? = nil, tags: [String] = [], media: [String] = [],
                reviews: [ReviewSnapshot] = [], fields: [String]? = nil, noteType: String? = nil, ordinals: [Int] = [0],
                mediaNames: [String] = []) {
        self.id = id
        self.kind = kind
        self.front = front
        self.back = back
        self.text = text
        self.created = created
        self.modified = modified
        self.due = due
        self.interval = interval
        self.ease = ease
        self.repetitions = repetitions
        self.lapses = lapses
        self.ankiGUID = ankiGUID
        self.deckPath = deckPath
        self.tags = tags
        self.media = media
        self.reviews = reviews
        self.fields = fields ?? [text ?? front, back]
        self.noteType = noteType ?? kind.stockNoteTypeName
        self.ordinals = ordinals
        self.mediaNames = mediaNames
    }
}

extension CardKind {
    /// The name of the stock note type of a kind.
    public var stockNoteTypeName: String {
        switch self {
        case .basic: "Basic"
        case .reversible: "Basic (and reversed card)"
        case .cloze: "Cloze"
        }
    }
}

/// One review of a card as plain values.
public struct ReviewSnapshot: Sendable, Hashable {
    public var date: Date
    public var ease: Int
    public var interval: Int
    public var duration: Double

    public init(date: Date, ease: Int, interval: Int, duration: Double) {
        self.date = date
        self.ease = ease
        self.interval = interval
        self.duration = duration
    }
}

extension DeckDocument {
    /// Calls `body` with every saved note as a ``CardSnapshot``, in the order of their first cards' ids.
    ///
    /// Reads the store directly (unsaved changes are not seen: save first). Tag, media and review
    /// links are read up front in three queries and kept as small values; notes are streamed one
    /// at a time, so memory grows with the number of links, not with the note text.
    /// - Throws: the store's error, or what `body` throws (which stops the walk).
    public func forEachCardSnapshot(_ body: (CardSnapshot) throws -> Void) throws {
        try requireOpen()
        try container.withDatabase(for: Note.self) { db in
            // Every value an export converts keeps the ranges `check` applies, or the deck is
            // refused naming the row and column (exit 65), before anything is written.
            try DeckStoreV2.verifyValues(db, deck: url, tables: DeckStoreV2.valueTables)
            let dayZero = try db.scalar("SELECT \"dayZero\" FROM \"DeckInfo\" ORDER BY \"pk\" LIMIT 1", as: Int64.self) ?? 0
            var tags: [Int64: [String]] = [:]
            let tagRows = try db.prepare("""
                SELECT j."source", t."name" FROM "Note_tags" j JOIN "Tag" t ON t."pk" = j."target" ORDER BY j."source", t."name"
                """)
            while try tagRows.step() { tags[tagRows.int64(at: 0), default: []].append(tagRows.string(at: 1)) }
            var media: [Int64: [String]] = [:]
            var mediaNames: [Int64: [String]] = [:]
            let mediaRows = try db.prepare("""
                SELECT j."source", f."fileName", m."name" FROM "Note_media" j JOIN "MediaName" m ON m."pk" = j."target" \
                JOIN "MediaFile" f ON f."pk" = m."file" ORDER BY j."source", f."fileName", m."name"
                """)
            while try mediaRows.step() {
                let note = mediaRows.int64(at: 0), file = mediaRows.string(at: 1)
                if media[note]?.last != file { media[note, default: []].append(file) }
                mediaNames[note, default: []].append(mediaRows.string(at: 2))
            }
            var reviews: [Int64: [ReviewSnapshot]] = [:]
            let reviewRows = try db.prepare("""
                SELECT "card", "time", "rating", "interval", "duration" FROM "Review" WHERE "card" IS NOT NULL \
                ORDER BY "card", "time", "pk"
                """)
            while try reviewRows.step() {
                reviews[reviewRows.int64(at: 0), default: []].append(ReviewSnapshot(
                    date: Date(timeIntervalSince1970: Double(reviewRows.int64(at: 1)) / 1000), ease: Int(reviewRows.int64(at: 2)),
                    interval: Int(reviewRows.int64(at: 3)), duration: Double(reviewRows.int64(at: 4)) / 1000))
            }
            var ordinals: [Int64: [Int]] = [:]
            let ordinalRows = try db.prepare("SELECT \"note\", \"ordinal\" FROM \"Card\" ORDER BY \"note\", \"ordinal\"")
            while try ordinalRows.step() { ordinals[ordinalRows.int64(at: 0), default: []].append(Int(ordinalRows.int64(at: 1))) }
            let decoder = JSONDecoder()
            let notes = try db.prepare("""
                SELECT c."pk", \(CardFilterTranslator.kindExpression), n."fields", n."created", n."modified", c."type", c."queue", c."due", \
                c."interval", c."easeFactor", c."repetitions", c."lapses", n."guid", d."name", n."pk", t0."name", c."created", c."modified" \
                FROM \(CardFilterTranslator.source) LEFT JOIN "Deck" d ON d."pk" = c."deck" ORDER BY c."pk"
                """)
            while try notes.step() {
                let pk = notes.int64(at: 0)
                let notePK = notes.int64(at: 14)
                let kind = CardKind(rawValue: notes.string(at: 1)) ?? .basic
                guard notes.isText(at: 2), let fields = try? decoder.decode([String].self, from: Data(notes.string(at: 2).utf8)) else {
                    throw DeckError(path: storeURL.path, reason: "note \(notePK): fields is not a JSON array of strings", kind: .corrupt)
                }
                let type = notes.int64(at: 5), queue = notes.int64(at: 6), due = notes.int64(at: 7)
                let dueDate: Date? = switch (type, queue) {
                case (0, _): nil
                case (_, 1), (_, 4): Date(timeIntervalSince1970: Double(due))
                case (_, ..<0) where due > 1_000_000_000: Date(timeIntervalSince1970: Double(due))
                default: Date(timeIntervalSince1970: Double(dayZero) + Double(due) * 86_400)
                }
                let factor = notes.int64(at: 9)
                try body(CardSnapshot(
                    id: pk, kind: kind, front: fields.first ?? "", back: fields.count > 1 ? fields[1] : "",
                    text: kind == .cloze ? (fields.first ?? "") : nil,
                    created: Date(timeIntervalSince1970: notes.double(at: 3)),
                    modified: Date(timeIntervalSince1970: notes.double(at: 4)),
                    due: dueDate, interval: Int(notes.int64(at: 8)), ease: factor > 0 ? Double(factor) / 1000 : 2.5,
                    repetitions: Int(notes.int64(at: 10)), lapses: Int(notes.int64(at: 11)),
                    ankiGUID: notes.string(at: 12),
                    deckPath: notes.isNull(at: 13) || notes.string(at: 13) == DeckStoreV2.defaultDeckName ? nil : notes.string(at: 13),
                    tags: tags[notePK] ?? [], media: media[notePK] ?? [], reviews: reviews[pk] ?? [],
                    fields: fields, noteType: notes.string(at: 15), ordinals: ordinals[notePK] ?? [],
                    mediaNames: (mediaNames[notePK] ?? []).sorted()))
            }
        }
    }

    /// Every saved note as a ``CardSnapshot`` (``forEachCardSnapshot(_:)`` collected), in the
    /// order of their first cards' ids.
    public func cardSnapshots() throws -> [CardSnapshot] {
        var result: [CardSnapshot] = []
        try forEachCardSnapshot { result.append($0) }
        return result
    }

    /// Every media name of the deck with its file, sorted by file name then name.
    /// - Throws: the store's error.
    public func allMedia() throws -> [DeckMedia] {
        try requireOpen()
        return try container.withDatabase(for: Note.self) { db in
            let statement = try db.prepare("""
                SELECT f."fileName", m."name", f."sha256", f."sha1", f."mime", f."size" FROM "MediaName" m \
                JOIN "MediaFile" f ON f."pk" = m."file" ORDER BY f."fileName", m."name"
                """)
            var result: [DeckMedia] = []
            while try statement.step() {
                result.append(DeckMedia(fileName: statement.string(at: 0), originalName: statement.string(at: 1), sha256: statement.string(at: 2),
                                        sha1: statement.string(at: 3).isEmpty ? nil : statement.string(at: 3), mime: statement.string(at: 4),
                                        size: Int(statement.int64(at: 5))))
            }
            return result
        }
    }

    /// The deck's description (from its `DeckInfo` row), or "".
    public func deckDescription() throws -> String {
        try requireOpen()
        return try mainContext.fetch(FetchDescriptor<DeckSchemaV2.DeckInfo>()).first?.deckDescription ?? ""
    }
}

extension DeckDocument {
    /// Changes the deck's description (its `DeckInfo` row); written by the next ``save()``.
    public func setDeckDescription(_ description: String) throws {
        try requireOpen()
        let infos = try mainContext.fetch(FetchDescriptor<DeckSchemaV2.DeckInfo>())
        if let info = infos.first { info.deckDescription = description } else {
            let info = DeckSchemaV2.DeckInfo(title: manifest.title)
            info.deckDescription = description
            mainContext.insert(info)
        }
    }
}

extension DeckDocument {
    /// Writes a consistent copy of the package to `destination` (which must not exist): the
    /// manifest, a snapshot of the store taken with `VACUUM INTO` (so a deck in use copies
    /// safely) and, unless `includingMedia` is false, the media files. Works on a read-only
    /// document.
    /// - Throws: ``DeckError`` `alreadyExists`, `io`.
    public func copyPackage(to destination: URL, includingMedia: Bool = true) throws {
        try requireOpen()
        let fileManager = FileManager.default
        if (try? UntrustedFile.type(atPath: destination.path)) != nil {
            throw DeckError(path: destination.path, reason: "already exists", kind: .alreadyExists)
        }
        do {
            try fileManager.createDirectory(at: destination, withIntermediateDirectories: false)
        } catch {
            throw DeckError(path: destination.path, reason: "can't create the package: \(error.localizedDescription)", kind: .io)
        }
        do {
            try container.withDatabase(for: Note.self) { db in
                try db.vacuum(into: destination.appendingPathComponent(manifest.store).path)
                // Media as archiving stages them: regular files only, every reference present.
                if includingMedia { try stageMedia(in: destination, referencedBy: db) }
            }
            try AtomicFile.write(try manifest.encoded(), to: destination.appendingPathComponent(Self.manifestName))
        } catch let error as DeckError {
            try? fileManager.removeItem(at: destination)
            throw error
        } catch {
            try? fileManager.removeItem(at: destination)
            throw DeckError(path: destination.path, reason: "can't copy the deck: \(error)", kind: .io)
        }
    }

    /// Replaces the whole store with the contents of `other`'s (a working copy made with
    /// ``copyPackage(to:includingMedia:)``), in one write transaction through SQLite's backup
    /// API, then saves (a new `modified` date). Readers see the old store or the new one,
    /// never a mix; the models of this document's context are stale afterwards.
    /// - Throws: ``DeckError`` `readOnly`; the database error of a failed copy.
    public func replaceStore(withContentsOf other: DeckDocument) throws {
        try requireOpen()
        guard mode == .readWrite else { throw DeckError(path: url.path, reason: "deck is open read-only", kind: .readOnly) }
        try other.container.withDatabase(for: Note.self) { source in
            try container.withDatabase(for: Note.self) { destination in try source.backup(to: destination) }
        }
        try save()
    }
}
