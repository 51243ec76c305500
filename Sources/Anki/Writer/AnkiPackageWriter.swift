import Archive
import Digest
import FileSafety
import Foundation

/// Writes an Anki package (`.apkg`, or a whole collection `.colpkg`) that current Anki imports:
/// in a legacy layout a schema 11 collection, a JSON media map and media entries `0`, `1`, …;
/// in the current layout (``Options/Format/anki21b``, ``Options/Format/currentCollectionPackage``)
/// what Anki 2.1.50 and later write: a `meta` entry (version 3), the schema 18 collection
/// zstd-compressed as `collection.anki21b`, each media file zstd-compressed, the media list as
/// zstd-compressed protobuf (name, size, SHA-1), and a legacy `collection.anki2` whose one note
/// asks older Anki versions to update.
///
/// Streaming: add note types and decks first, then notes, cards, reviews and media in any
/// order; nothing is held in memory but ids (to check references) and media names. Rows go
/// into one SQLite transaction through prepared statements; media files are streamed into
/// the zip as they are added; ``finish()`` writes the collection and renames the package
/// into place, so a failed or cancelled export leaves nothing at `url`.
///
/// ```swift
/// let writer = try AnkiPackageWriter(url: out)
/// let basic = AnkiNoteType.basic(id: 1_700_000_000_000)
/// try writer.addNoteType(basic)
/// try writer.addDeck(AnkiDeck(id: 2, name: "French::Verbs"))
/// try writer.addNote(AnkiNote(id: 0, noteTypeID: basic.id, tags: ["verb"], fields: ["être", "to be"]),
///                    generatingCardsIn: 2)
/// try writer.addMedia(name: "etre.mp3", contentsOf: soundFile)
/// try writer.finish()
/// ```
///
/// Not thread-safe: use one writer from one task at a time.
public final class AnkiPackageWriter {
    /// How the package is laid out and compressed.
    public struct Options: Sendable {
        /// Which layout to write.
        public enum Format: Sendable, Hashable, CaseIterable {
            /// `collection.anki2` without `meta`, as genanki writes: readable by every Anki since 2.0.
            case anki2
            /// `meta` (version 2) and `collection.anki21`, as Anki's "support older versions" export.
            case anki21
            /// `meta` (version 3) and the zstd `collection.anki21b` (schema 18), as current Anki's
            /// own export: readable by Anki 2.1.50 and later.
            case anki21b
            /// A whole collection (`.colpkg`) in the same layout as ``anki21``: importing it
            /// replaces the collection, configuration included.
            case collectionPackage
            /// A whole collection (`.colpkg`) in the same layout as ``anki21b``, as current Anki
            /// writes one.
            case currentCollectionPackage

            /// Whether this is the current layout (schema 18, zstd).
            public var isCurrent: Bool { self == .anki21b || self == .currentCollectionPackage }
            /// Whether this is a whole collection (`.colpkg`).
            public var isCollectionPackage: Bool { self == .collectionPackage || self == .currentCollectionPackage }
        }

        /// The layout; `.anki21` by default.
        public var format: Format
        /// The deflate level of the collection entry, 0 (stored) to 9; 1 by default, which is
        /// several times faster than 6 and nearly as small on SQLite pages. Media are always stored
        /// (they are usually compressed already).
        public var compressionLevel: Int
        /// The collection's creation time (`col.crt`), in seconds since 1970: the due day of a
        /// review card counts days from its day. By default, midnight UTC of the current day,
        /// so that day numbers written for "today" mean today.
        public var creationTime: Int64
        /// Whether the collection carries schema 11's indexes (`ix_cards_nid`, …). Off by default:
        /// current Anki builds its own indexes when it opens an imported collection (an import
        /// takes the same time either way), and building them costs about a quarter of an export.
        public var buildsIndexes: Bool
        /// Where the scratch collection goes; the system's temporary directory by default.
        public var temporaryDirectory: URL?
        /// Whether a modification time of 0 (of a note, card, note type, deck or preset) is
        /// written as the time of writing (the default: values built for a new package) or as 0
        /// (values exported as they were stored, as ``AnkiExporter`` does).
        public var stampsZeroTimes = true

        /// Creates options.
        public init(format: Format = .anki21, compressionLevel: Int = 1, creationTime: Int64? = nil,
                    buildsIndexes: Bool = false, temporaryDirectory: URL? = nil) {
            self.format = format
            self.compressionLevel = compressionLevel
            self.buildsIndexes = buildsIndexes
            let now = Int64(Date().timeIntervalSince1970)
            self.creationTime = creationTime ?? (now - now % 86_400)
            self.temporaryDirectory = temporaryDirectory
        }

        var collectionEntryName: String {
            format == .anki2 ? "collection.anki2" : format.isCurrent ? "collection.anki21b" : "collection.anki21"
        }
    }

    /// The package being written.
    public let url: URL
    /// The options it is written with.
    public let options: Options

    private let collection: AnkiCollectionWriter
    private var archive: ArchiveWriter?
    private let staging: StagingDirectory
    private var workDirectory: URL { staging.url }
    private let collectionFile: URL
    private var mediaNames: [String] = []
    private var mediaNameSet: Set<String> = []
    /// The current layout's media list (name, size, SHA-1), one entry per media entry.
    private var mediaEntries: [MediaEntries.Entry] = []
    private var isDone = false

    /// Starts a package at `url`; nothing appears there until ``finish()``.
    ///
    /// - Throws: ``AnkiError`` of kind ``AnkiError/Kind/io`` if the scratch files or the zip
    ///   cannot be created, ``AnkiError/Kind/invalidInput`` for a compression level outside 0…9.
    public init(url: URL, options: Options = Options()) throws {
        guard (0...9).contains(options.compressionLevel) else {
            throw AnkiError(.invalidInput, path: url.path, reason: "compression level \(options.compressionLevel) is not in 0…9")
        }
        self.url = url
        self.options = options
        let base = options.temporaryDirectory ?? FileManager.default.temporaryDirectory
        // Registered for removal on SIGINT/SIGTERM/SIGHUP/SIGPIPE; a killed run's is swept later.
        do {
            staging = try StagingDirectory(in: base.path, for: "deck-anki-writer")
        } catch {
            throw AnkiError(.io, path: base.path, reason: "cannot create a temporary directory: \(error.reason)")
        }
        collectionFile = staging.url.appendingPathComponent(options.collectionEntryName)
        do {
            collection = try AnkiCollectionWriter(url: collectionFile, creationTime: options.creationTime,
                                                  buildsIndexes: options.buildsIndexes,
                                                  schemaVersion: options.format.isCurrent ? 18 : 11,
                                                  stampsZeroTimes: options.stampsZeroTimes)
            archive = try Self.archiveCall(url.path) {
                try ArchiveWriter(url: url, format: .zip, compressionLevel: max(options.compressionLevel, 1))
            }
        } catch {
            staging.remove()
            throw error
        }
    }

    deinit { cancel() }

    /// Adds a note type (replacing one with the same id). Add it before its notes.
    ///
    /// Anki matches imported note types by id; a type whose name is taken by another (such as
    /// the stock "Basic" of the importing collection) is renamed on import ("Basic+").
    /// - Throws: ``AnkiError/Kind/invalidInput`` for a type without a name, fields or templates,
    ///   or whose sort field is out of range; ``AnkiError/Kind/closed`` after ``finish()``.
    public func addNoteType(_ noteType: AnkiNoteType) throws {
        try collection.add(noteType)
    }

    /// Adds a preset (deck config; a deck's ``AnkiDeck/presetID`` refers to its id), with its
    /// ``AnkiPreset/options`` kept. Id 1 replaces Anki's default preset, which is written otherwise.
    /// - Throws: ``AnkiError/Kind/closed`` after ``finish()``.
    public func addPreset(_ preset: AnkiPreset) throws {
        try collection.add(preset)
    }

    /// Sets the collection configuration (`col.conf`, a JSON object laid over the writer's
    /// defaults, or with `replacingDefaults` — a whole collection's configuration, such as one
    /// read from Anki — written as it is; `nextPos` is raised past every new card written).
    /// - Throws: ``AnkiError/Kind/closed`` after ``finish()``.
    public func setConfiguration(legacyJSON: String, replacingDefaults: Bool = false) throws {
        try collection.setConfiguration(legacyJSON: legacyJSON, replacingDefaults: replacingDefaults)
    }

    /// Marks tags collapsed (a browser's tag tree): kept by the current layout's `tags` table;
    /// the legacy layout has no such state. Tags no note carries are registered.
    /// - Throws: ``AnkiError/Kind/closed`` after ``finish()``.
    public func collapseTags(_ names: [String]) throws {
        try collection.collapseTags(names)
    }

    /// Adds a deck (replacing one with the same id) with its options: a normal deck with its
    /// preset (``AnkiDeck/presetID``), a filtered deck with its terms. Parents of `A::B` are
    /// created at ``finish()`` if not added. Deck 1 ("Default") always exists.
    /// - Throws: ``AnkiError/Kind/invalidInput`` for a name with an empty part (`A::::B`).
    public func addDeck(_ deck: AnkiDeck) throws {
        try collection.add(deck)
    }

    /// Adds a note; its note type must have been added.
    ///
    /// Computes the sort field and checksum Anki stores; gives the note a fresh base91 GUID
    /// when `guid` is empty, a fresh id when `id` is 0, and the current time when `modified`
    /// is 0. Returns the note as written. Cards are not created: add them with ``addCard(_:)``,
    /// or use ``addNote(_:generatingCardsIn:)``.
    /// - Throws: ``AnkiError/Kind/invalidInput`` for an unknown note type, a field count that
    ///   differs from the type's, or a repeated id.
    @discardableResult
    public func addNote(_ note: AnkiNote) throws -> AnkiNote {
        try collection.add(note)
    }

    /// Adds a note and the new cards Anki would make for it, in deck `deckID`: one per template
    /// whose question refers to a non-empty field (standard types), one per cloze number
    /// (cloze types), and at least one.
    /// - Throws: as ``addNote(_:)``, and ``AnkiError/Kind/invalidInput`` for an unknown deck.
    @discardableResult
    public func addNote(_ note: AnkiNote, generatingCardsIn deckID: Int64) throws -> (note: AnkiNote, cards: [AnkiCard]) {
        guard collection.hasDeck(deckID) else {
            throw AnkiError(.invalidInput, path: url.path, reason: "deck \(deckID) was not added")
        }
        let written = try collection.add(note)
        var cards: [AnkiCard] = []
        for ordinal in collection.cardOrdinals(for: written) {
            cards.append(try collection.add(AnkiCard(id: 0, noteID: written.id, deckID: deckID, ordinal: ordinal)))
        }
        return (written, cards)
    }

    /// Adds a card of a note already added, in a deck already added.
    ///
    /// A card with id 0 gets a fresh id; a new card with `due` 0 gets the next new-card position.
    /// Review cards' `due` is a day number counted from ``Options/creationTime``.
    /// - Throws: ``AnkiError/Kind/invalidInput`` for an unknown note or deck, or a repeated id.
    @discardableResult
    public func addCard(_ card: AnkiCard) throws -> AnkiCard {
        try collection.add(card)
    }

    /// Adds a card with every value as given: a new card's `due` 0 stays 0 (``addCard(_:)``
    /// numbers those), and its id must not be 0.
    /// - Throws: as ``addCard(_:)``.
    @discardableResult
    public func addCardAsGiven(_ card: AnkiCard) throws -> AnkiCard {
        try collection.add(card, keepsDue: true)
    }

    /// Adds a review-history entry of a card already added.
    /// - Throws: ``AnkiError/Kind/invalidInput`` for an unknown card.
    public func addReview(_ review: AnkiReview) throws {
        try collection.add(review)
    }

    /// Streams the file at `file` into the package as media file `name` (as fields refer to it).
    ///
    /// - Throws: ``AnkiError/Kind/invalidInput`` for an unsafe (`/`, `..`, control characters)
    ///   or repeated name; ``AnkiError/Kind/io`` if the file cannot be read.
    @discardableResult
    public func addMedia(name: String, contentsOf file: URL) throws -> AnkiMedia {
        let entry = try reserveMedia(name)
        let archive = try openArchive()
        guard options.format.isCurrent else {
            try Self.archiveCall(file.path) { try archive.addFile(entry, contentsOf: file, compression: .stored) }
            return AnkiMedia(entryName: entry, name: name)
        }
        // Current layout: the file zstd-compressed (streamed through a scratch file), listed with its size and SHA-1.
        let compressed = workDirectory.appendingPathComponent("media-\(entry).zst")
        defer { try? FileManager.default.removeItem(at: compressed) }
        var digest = SHA1()
        let size = try Zstd.compress(file: file, to: compressed) { digest.update($0) }
        let sha1 = digest.finalize()
        try Self.archiveCall(file.path) { try archive.addFile(entry, contentsOf: compressed, compression: .stored) }
        mediaEntries.append(MediaEntries.Entry(name: name, size: UInt32(clamping: size), sha1: sha1, legacyZipFilename: nil))
        return AnkiMedia(entryName: entry, name: name, size: size, sha1: sha1)
    }

    /// Adds media file `name` with the bytes `data`.
    /// - Throws: as ``addMedia(name:contentsOf:)``.
    @discardableResult
    public func addMedia(name: String, data: Data) throws -> AnkiMedia {
        let entry = try reserveMedia(name)
        let archive = try openArchive()
        guard options.format.isCurrent else {
            try Self.archiveCall(url.path) { try archive.addFile(entry, contents: data, compression: .stored) }
            return AnkiMedia(entryName: entry, name: name, size: Int64(data.count))
        }
        let sha1 = SHA1.hash(data)
        let compressed = try Zstd.compress(data)
        try Self.archiveCall(url.path) { try archive.addFile(entry, contents: compressed, compression: .stored) }
        mediaEntries.append(MediaEntries.Entry(name: name, size: UInt32(clamping: data.count), sha1: sha1, legacyZipFilename: nil))
        return AnkiMedia(entryName: entry, name: name, size: Int64(data.count), sha1: sha1)
    }

    /// Completes the collection and the zip, and publishes the package at ``url`` (never replacing anything there).
    ///
    /// Cost: building the indexes and compressing the collection (deflate at
    /// ``Options/compressionLevel``). Scratch files are removed whether it succeeds or not.
    /// - Throws: ``AnkiError/Kind/io`` if writing fails (nothing is left at `url`),
    ///   ``AnkiError/Kind/closed`` if called twice.
    public func finish() throws {
        let archive = try openArchive()
        defer { cancel() }
        try collection.finish()
        if options.format.isCurrent {
            try finishCurrentLayout(archive)
            isDone = true
            return
        }
        let level = options.compressionLevel
        try Self.archiveCall(url.path) {
            try archive.addFile(options.collectionEntryName, contentsOf: collectionFile,
                                compression: level == 0 ? .stored : .automatic)
            try archive.addFile("media", contents: mediaMapJSON())
            if options.format != .anki2 {
                try archive.addFile("meta", contents: Data(PackageMetadata(version: 2).encoded()), compression: .stored)
            }
            try archive.finish()
        }
        isDone = true
    }

    /// Abandons the package: removes the scratch files and the unfinished zip. Idempotent.
    public func cancel() {
        if archive != nil {
            collection.cancel()
            archive = nil
        }
        isDone = true
        staging.remove()
    }

    /// The current layout's entries: `meta` (version 3), the zstd collection, the legacy
    /// placeholder collection older Anki versions open, and the zstd protobuf media list.
    private func finishCurrentLayout(_ archive: ArchiveWriter) throws {
        let compressed = workDirectory.appendingPathComponent("collection.anki21b.zst")
        try Zstd.compress(file: collectionFile, to: compressed)
        let placeholder = try placeholderCollection()
        let mediaList = try Zstd.compress(Data(MediaEntries(entries: mediaEntries).encoded()))
        try Self.archiveCall(url.path) {
            try archive.addFile("meta", contents: Data(PackageMetadata(version: 3).encoded()), compression: .stored)
            try archive.addFile("collection.anki21b", contentsOf: compressed, compression: .stored)
            try archive.addFile("collection.anki2", contentsOf: placeholder, compression: .stored)
            try archive.addFile("media", contents: mediaList, compression: .stored)
            try archive.finish()
        }
    }

    /// A schema 11 collection with one Basic note saying the package needs a newer Anki (what
    /// Anki versions before 2.1.50, which know no `meta`, open instead of the real collection).
    private func placeholderCollection() throws -> URL {
        let file = workDirectory.appendingPathComponent("placeholder.anki2")
        let placeholder = try AnkiCollectionWriter(url: file, creationTime: options.creationTime)
        defer { placeholder.cancel() }
        let basic = AnkiNoteType.basic(id: 1)
        try placeholder.add(basic)
        let note = try placeholder.add(AnkiNote(id: 1, noteTypeID: basic.id, fields: [
            "This package needs a newer version of Anki (2.1.50 or later): please update Anki, then import it again.", "",
        ]))
        try placeholder.add(AnkiCard(id: 1, noteID: note.id, deckID: 1, ordinal: 0))
        try placeholder.finish()
        return file
    }

    // MARK: - Helpers

    private func openArchive() throws -> ArchiveWriter {
        guard !isDone, let archive else {
            throw AnkiError(.closed, path: url.path, reason: "the package was already finished or cancelled")
        }
        return archive
    }

    private func reserveMedia(_ name: String) throws -> String {
        _ = try openArchive()
        guard AnkiMedia.isSafeFileName(name) else {
            throw AnkiError(.invalidInput, path: url.path, reason: "unsafe media file name \"\(name)\"")
        }
        guard mediaNameSet.insert(name).inserted else {
            throw AnkiError(.invalidInput, path: url.path, reason: "media file \"\(name)\" was added twice")
        }
        mediaNames.append(name)
        return String(mediaNames.count - 1)
    }

    private func mediaMapJSON() throws -> Data {
        var map: [String: String] = [:]
        for (index, name) in mediaNames.enumerated() { map[String(index)] = name }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(map)
        } catch {
            throw AnkiError(.io, path: url.path, reason: "cannot encode the media map")
        }
    }

    private static func archiveCall<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ArchiveError {
            // Another writer published the package first: passed on as it is (exit 73).
            if error.kind == .alreadyExists { throw error }
            let kind: AnkiError.Kind = error.kind == .invalidArgument ? .invalidInput : .io
            throw AnkiError(kind, path: error.path.isEmpty ? path : error.path, reason: error.reason)
        }
    }
}
