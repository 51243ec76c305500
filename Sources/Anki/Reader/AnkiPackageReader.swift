import Archive
import FileSafety
import Foundation

/// Reads an Anki package (`.apkg` or `.colpkg`) as plain values, in bounded memory.
///
/// Opening a package reads its `meta` and `media` entries and finds the collection: one stored
/// uncompressed (as genanki writes it) is read in place; others are extracted to a private
/// temporary directory (SQLite needs a file; `collection.anki21b` is zstd-decompressed on the way). Note types and decks are loaded at once; notes, cards and reviews are
/// streamed one row at a time; media files are extracted on request.
///
/// ```swift
/// let reader = try AnkiPackageReader(url: apkg)
/// defer { reader.close() }
/// for type in reader.noteTypes { print(type.name, type.fieldNames) }
/// try reader.forEachNote { note in print(note.fields[0], note.tags) }
/// let files = try reader.extractMedia(to: mediaFolder)   // name → file
/// ```
///
/// Handles legacy packages (`collection.anki2`/`.anki21`, schema 11, JSON media map, with or
/// without `meta`) and current ones (`collection.anki21b`, schema 18, protobuf media list).
/// Malformed input throws an ``AnkiError`` naming the file; it never crashes.
///
/// Not thread-safe: use one reader from one task at a time.
public final class AnkiPackageReader {
    /// The package file.
    public let url: URL
    /// The package's layout version.
    public let version: AnkiPackageVersion
    /// The collection's schema version (11 for legacy packages, 18 for current ones).
    public let schemaVersion: Int
    /// The collection's creation time in seconds since 1970 (`col.crt`): the due day of a review
    /// card (``AnkiCard/due``) counts days from its day.
    public let creationTime: Int64
    /// The note types, in id order.
    public let noteTypes: [AnkiNoteType]
    /// The decks, in id order (Anki's "Default" deck, id 1, included).
    public let decks: [AnkiDeck]
    /// The presets (deck configs), in id order; empty when the package has none (an `.apkg`
    /// exported without them).
    public let presets: [AnkiPreset]
    /// The collection's configuration (the `config` table, or `col.conf` in schema 11) as the
    /// text of one JSON object, verbatim (`{"fsrs": true, "rollover": 4, …}`).
    public let configuration: String
    /// The tags the collection marks collapsed (current collections; legacy ones keep no such state).
    public let collapsedTags: [String]
    /// The media files the package lists, in entry order.
    public let media: [AnkiMedia]
    /// The limits this reader enforces.
    public let limits: AnkiReadLimits

    private let collection: AnkiCollection
    private let staging: StagingDirectory
    private var workDirectory: URL { staging.url }
    /// Whether ``close()`` was called.
    private(set) var isClosed = false

    /// Opens the package at `url`.
    ///
    /// Costs one pass over the zip and the time to extract (and for current packages,
    /// decompress) the collection, unless it is stored uncompressed; memory stays bounded
    /// whatever the package's size.
    ///
    /// - Parameters:
    ///   - limits: bounds on sizes, to refuse bombs.
    ///   - temporaryDirectory: where the private working directory goes; the system's by default.
    /// - Throws: ``AnkiError`` — ``AnkiError/Kind/notAPackage`` (not a zip),
    ///   ``AnkiError/Kind/missingCollection``, ``AnkiError/Kind/unsupportedVersion``,
    ///   ``AnkiError/Kind/corruptCollection``, ``AnkiError/Kind/malformedJSON``,
    ///   ``AnkiError/Kind/malformedProtobuf``, ``AnkiError/Kind/malformedCompression``,
    ///   ``AnkiError/Kind/limitExceeded``, ``AnkiError/Kind/badMediaName``, ``AnkiError/Kind/io``.
    public init(url: URL, limits: AnkiReadLimits = .default, temporaryDirectory: URL? = nil) throws {
        self.url = url
        self.limits = limits
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw AnkiError(.io, path: path, reason: "no such file")
        }
        let base = temporaryDirectory ?? FileManager.default.temporaryDirectory
        // Registered for removal on SIGINT/SIGTERM/SIGHUP/SIGPIPE; a killed run's is swept later.
        do {
            staging = try StagingDirectory(in: base.path, for: "deck-anki")
        } catch {
            throw AnkiError(.io, path: base.path, reason: "cannot create a temporary directory: \(error.reason)")
        }
        do {
            let scan = try PackageScan(url: url, limits: limits, workDirectory: staging.url)
            version = try scan.version()
            guard let source = scan.collections[version.collectionEntryName] else {
                throw AnkiError(.missingCollection, path: path,
                                reason: "the package has no \(version.collectionEntryName) (package version \(version.rawValue))")
            }
            for (name, other) in scan.collections where name != version.collectionEntryName {
                if case .file(let file) = other { try? FileManager.default.removeItem(at: file) }
            }
            media = try scan.mediaList(version: version)
            collection = try AnkiCollection(source: source, label: "\(path):\(version.collectionEntryName)")
        } catch {
            staging.remove()
            throw error
        }
        schemaVersion = collection.schemaVersion
        creationTime = collection.creationTime
        noteTypes = collection.noteTypes
        decks = collection.decks
        presets = collection.presets
        configuration = collection.configuration
        collapsedTags = collection.collapsedTags
    }

    deinit { close() }

    /// Closes the collection and removes the temporary files. Idempotent; later calls that
    /// read throw ``AnkiError/Kind/closed``.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        collection.close()
        staging.remove()
    }

    /// The number of notes in the package.
    public func noteCount() throws -> Int { try checkOpen(); return try collection.noteCount() }
    /// The number of cards in the package.
    public func cardCount() throws -> Int { try checkOpen(); return try collection.cardCount() }
    /// The number of review-history entries in the package.
    public func reviewCount() throws -> Int { try checkOpen(); return try collection.reviewCount() }

    /// Calls `body` with each note, in id order; one note is in memory at a time.
    /// Throw from `body` to stop early.
    /// - Throws: what `body` throws, or ``AnkiError`` (``AnkiError/Kind/corruptCollection``).
    public func forEachNote(_ body: (AnkiNote) throws -> Void) throws {
        try checkOpen()
        try collection.forEachNote(body)
    }

    /// Calls `body` with each note in id order, with its first card (lowest ordinal; nil for a
    /// note without cards) and, when `includingReviews`, the review history of all its cards in
    /// time order: what an importer needs of a note, without keeping anything per note.
    ///
    /// Costs one pass over each table (merged in SQL order: cards by note through Anki's
    /// `ix_cards_nid` index or one sort, reviews with one sort); memory holds one note at a time.
    /// Cards and reviews of missing notes are skipped. Throw from `body` to stop early.
    /// - Throws: what `body` throws, or ``AnkiError`` (``AnkiError/Kind/corruptCollection``).
    public func forEachNoteWithCards(includingReviews: Bool = true,
                                     _ body: (_ note: AnkiNote, _ firstCard: AnkiCard?, _ reviews: [AnkiReview]) throws -> Void) throws {
        try checkOpen()
        try collection.forEachNoteWithCards(includingReviews: includingReviews, body)
    }

    /// Calls `body` with each note in id order, with every card of it (by ordinal, then id;
    /// each with its `data` JSON read: FSRS memory state, desired retention, custom data) and,
    /// when `includingReviews`, the review history of all its cards in time order.
    ///
    /// The same single merged pass as ``forEachNoteWithCards(includingReviews:_:)``; memory
    /// holds one note with its cards and reviews. Throw from `body` to stop early.
    /// - Throws: what `body` throws, or ``AnkiError`` (``AnkiError/Kind/corruptCollection``,
    ///   also for a card `data` that is not Anki's JSON).
    public func forEachNoteWithAllCards(includingReviews: Bool = true,
                                        _ body: (_ note: AnkiNote, _ cards: [AnkiCard], _ reviews: [AnkiReview]) throws -> Void) throws {
        try checkOpen()
        try collection.forEachNoteWithAllCards(includingReviews: includingReviews, body)
    }

    /// The GUIDs that more than one note of the package has (usually none).
    ///
    /// Costs one SQLite sort of the notes' GUIDs (memory bounded: SQLite spills large sorts to
    /// a temporary file), so an importer can detect repeats without a set of every GUID.
    /// - Throws: ``AnkiError`` (``AnkiError/Kind/corruptCollection``).
    public func repeatedGUIDs() throws -> Set<String> {
        try checkOpen()
        return try collection.repeatedGUIDs()
    }

    /// Calls `body` with each card, in id order; one card is in memory at a time.
    /// - Throws: what `body` throws, or ``AnkiError`` (``AnkiError/Kind/corruptCollection``).
    public func forEachCard(_ body: (AnkiCard) throws -> Void) throws {
        try checkOpen()
        try collection.forEachCard(body)
    }

    /// Calls `body` with each review-history entry, in time order.
    /// - Throws: what `body` throws, or ``AnkiError`` (``AnkiError/Kind/corruptCollection``).
    public func forEachReview(_ body: (AnkiReview) throws -> Void) throws {
        try checkOpen()
        try collection.forEachReview(body)
    }

    /// The note type with `id`, if the package has it.
    public func noteType(id: Int64) -> AnkiNoteType? { noteTypes.first { $0.id == id } }

    /// The deck with `id`, if the package has it.
    public func deck(id: Int64) -> AnkiDeck? { decks.first { $0.id == id } }

    private func checkOpen() throws {
        if isClosed { throw AnkiError(.closed, path: url.path, reason: "the package reader was closed") }
    }

    /// The private working directory (for the media extension).
    var temporaryFiles: URL { workDirectory }
}
