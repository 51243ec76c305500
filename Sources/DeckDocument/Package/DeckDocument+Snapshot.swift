import FileSafety
import Foundation
import Persistence
import SQLite

/// A saved card as plain values, for exporters: everything a card holds, with its tags,
/// media and review history resolved.
public struct CardSnapshot: Sendable, Hashable {
    /// The card's id (row key).
    public var id: Int64
    public var kind: CardKind
    public var front: String
    public var back: String
    /// The cloze text (cloze cards only).
    public var text: String?
    public var created: Date
    public var modified: Date
    public var due: Date?
    public var interval: Int
    public var ease: Double
    public var repetitions: Int
    public var lapses: Int
    public var ankiGUID: String?
    public var deckPath: String?
    /// Tag names, sorted.
    public var tags: [String]
    /// Media file names (inside `Media/`), sorted.
    public var media: [String]
    /// The review history, oldest first.
    public var reviews: [ReviewSnapshot]

    /// Creates a snapshot.
    public init(id: Int64 = 0, kind: CardKind, front: String, back: String, text: String? = nil, created: Date, modified: Date,
                due: Date? = nil, interval: Int = 0, ease: Double = 2.5, repetitions: Int = 0, lapses: Int = 0,
                ankiGUID: String? = nil, deckPath: String? = nil, tags: [String] = [], media: [String] = [],
                reviews: [ReviewSnapshot] = []) {
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
    /// Calls `body` with every saved card as a ``CardSnapshot``, in id order.
    ///
    /// Reads the store directly (unsaved changes are not seen: save first). Tag, media and review
    /// links are read up front in three queries and kept as small values; cards are streamed one
    /// at a time, so memory grows with the number of links, not with the card text.
    /// - Throws: ``DeckError`` `corrupt` naming the card and column of a value outside
    ///   ``CardValueLimits``; the store's error, or what `body` throws (which stops the walk).
    public func forEachCardSnapshot(_ body: (CardSnapshot) throws -> Void) throws {
        try requireOpen()
        // A store edited outside SampleDeck may hold what no import accepts (an infinite date,
        // an ease of 1e300): refused here, naming the row, so no exporter converts it.
        func outOfRange(_ what: String) -> DeckError {
            DeckError(path: url.path, reason: "\(what) is out of range", kind: .corrupt)
        }
        try container.withDatabase(for: Card.self) { db in
            var tags: [Int64: [String]] = [:]
            let tagRows = try db.prepare("""
                SELECT j."source", t."name" FROM "Card_tags" j JOIN "Tag" t ON t."pk" = j."target" ORDER BY j."source", t."name"
                """)
            while try tagRows.step() { tags[tagRows.int64(at: 0), default: []].append(tagRows.string(at: 1)) }
            var media: [Int64: [String]] = [:]
            let mediaRows = try db.prepare("""
                SELECT j."source", m."fileName" FROM "Card_media" j JOIN "MediaReference" m ON m."pk" = j."target" \
                ORDER BY j."source", m."fileName"
                """)
            while try mediaRows.step() { media[mediaRows.int64(at: 0), default: []].append(mediaRows.string(at: 1)) }
            var reviews: [Int64: [ReviewSnapshot]] = [:]
            let reviewRows = try db.prepare("""
                SELECT "card", "date", "ease", "interval", "duration" FROM "Review" WHERE "card" IS NOT NULL \
                ORDER BY "card", "date", "pk"
                """)
            while try reviewRows.step() {
                let review = ReviewSnapshot(
                    date: Date(timeIntervalSince1970: reviewRows.double(at: 1)), ease: Int(reviewRows.int64(at: 2)),
                    interval: Int(reviewRows.int64(at: 3)), duration: reviewRows.double(at: 4))
                if let field = CardValueLimits.problem(reviewDate: review.date.timeIntervalSince1970, answer: review.ease,
                                                       interval: review.interval, duration: review.duration) {
                    throw outOfRange("Review.\(field) of a review of card \(reviewRows.int64(at: 0))")
                }
                reviews[reviewRows.int64(at: 0), default: []].append(review)
            }
            let cards = try db.prepare("""
                SELECT "pk", "kind", "front", "back", "text", "created", "modified", "due", "interval", "ease", \
                "repetitions", "lapses", "ankiGUID", "deckPath" FROM "Card" ORDER BY "pk"
                """)
            while try cards.step() {
                let pk = cards.int64(at: 0)
                let kind = CardKind(rawValue: cards.string(at: 1)) ?? .basic
                if let field = CardValueLimits.problem(
                    created: cards.double(at: 5), modified: cards.double(at: 6), due: cards.isNull(at: 7) ? nil : cards.double(at: 7),
                    interval: Int(cards.int64(at: 8)), ease: cards.double(at: 9),
                    repetitions: Int(cards.int64(at: 10)), lapses: Int(cards.int64(at: 11))) {
                    throw outOfRange("Card.\(field) of card \(pk)")
                }
                try body(CardSnapshot(
                    id: pk, kind: kind, front: cards.string(at: 2), back: cards.string(at: 3),
                    text: kind == .cloze && !cards.isNull(at: 4) ? cards.string(at: 4) : nil,
                    created: Date(timeIntervalSince1970: cards.double(at: 5)),
                    modified: Date(timeIntervalSince1970: cards.double(at: 6)),
                    due: cards.isNull(at: 7) ? nil : Date(timeIntervalSince1970: cards.double(at: 7)),
                    interval: Int(cards.int64(at: 8)), ease: cards.double(at: 9),
                    repetitions: Int(cards.int64(at: 10)), lapses: Int(cards.int64(at: 11)),
                    ankiGUID: cards.isNull(at: 12) ? nil : cards.string(at: 12),
                    deckPath: cards.isNull(at: 13) ? nil : cards.string(at: 13),
                    tags: tags[pk] ?? [], media: media[pk] ?? [], reviews: reviews[pk] ?? []))
            }
        }
    }

    /// Every media reference of the deck, sorted by file name.
    /// - Throws: the store's error.
    public func allMedia() throws -> [MediaReference] {
        try requireOpen()
        return try mainContext.fetch(FetchDescriptor<MediaReference>(sortBy: [SortDescriptor(\.fileName)]))
    }

    /// The deck's description (from its `DeckInfo` row), or "".
    public func deckDescription() throws -> String {
        try requireOpen()
        return try mainContext.fetch(FetchDescriptor<DeckInfo>()).first?.description ?? ""
    }
}

extension DeckDocument {
    /// Changes the deck's description (its `DeckInfo` row); written by the next ``save()``.
    public func setDeckDescription(_ description: String) throws {
        try requireOpen()
        let infos = try mainContext.fetch(FetchDescriptor<DeckInfo>())
        if let info = infos.first { info.description = description } else {
            mainContext.insert(DeckInfo(title: manifest.title, description: description))
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
            try container.withDatabase(for: Card.self) { db in
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
        try other.container.withDatabase(for: Card.self) { source in
            try container.withDatabase(for: Card.self) { destination in try source.backup(to: destination) }
        }
        try save()
    }
}
