import DeckDocument
import FileSafety
import Foundation

/// Imports a JSON export (see ``DeckJSONExporter``) into a deck.
///
/// Format version 2 (lossless): the file is restored with ``DeckDocument/restore(_:notes:mediaData:adoptsTitle:)``:
/// into a deck without notes with every id and value (export, import, export gives the same
/// bytes), into a deck with notes as a merge in which a note whose GUID is there updates it as
/// ``update`` says (``ImportUpdatePolicy``, by the notes' `modified`). Format
/// version 1 (cards of the first format): cards are added in the file's order with their dates,
/// scheduling, tags, media and review history; a card whose `ankiGUID` is already in the deck
/// is skipped. Media come from the embedded `data` when present, else from the file named
/// `fileName` in ``mediaFolder``, a `Media` folder beside the JSON file, or beside it directly;
/// their SHA-256 is checked. Media that can't be found are counted in ``Report/missingMedia``
/// and left out.
public struct DeckJSONImporter: Sendable {
    /// Whether the deck takes the title and description of the file (for a new deck).
    public var adoptsTitle: Bool
    /// Where media files without `data` are looked for first (`deck export --media-folder`).
    public var mediaFolder: URL?
    /// When notes already in the deck (by GUID) take the file's (format version 2; version 1
    /// files only add).
    public var update: ImportUpdatePolicy

    /// What an import did.
    public struct Report: Sendable, Hashable, Codable {
        /// Cards added.
        public var cardsAdded = 0
        /// Cards skipped because their Anki GUID is already in the deck (format version 1 files).
        public var duplicatesSkipped = 0
        /// Notes whose GUID was in the deck: updated, unchanged, skipped (format version 2).
        public var updates = ImportUpdateCounts()
        /// Media files stored.
        public var mediaFiles = 0
        /// Media files neither embedded nor found beside the file.
        public var missingMedia = 0
        /// Review-history entries added.
        public var reviews = 0
        /// Creates an empty report.
        public init() {}
    }

    /// Creates an importer.
    public init(adoptsTitle: Bool = false, mediaFolder: URL? = nil, update: ImportUpdatePolicy = .newer) {
        self.adoptsTitle = adoptsTitle
        self.mediaFolder = mediaFolder
        self.update = update
    }

    struct Header: Decodable {
        var format: String
        var formatVersion: Int
    }

    struct File: Decodable {
        struct Media: Decodable {
            var fileName: String
            var originalName: String
            var sha256: String
            var sha1: String?
            var mime: String
            var size: Int
            var data: String?
        }
        struct Review: Decodable {
            var date: String
            var ease: Int
            var interval: Int
            var duration: Double
        }
        struct Card: Decodable {
            var kind: CardKind
            var front: String
            var back: String
            var text: String?
            var created: String
            var modified: String
            var due: String?
            var interval: Int
            var ease: Double
            var repetitions: Int
            var lapses: Int
            var ankiGUID: String?
            var deckPath: String?
            var tags: [String]
            var media: [String]
            var reviews: [Review]
        }
        var format: String
        var formatVersion: Int
        var title: String
        var description: String
        var tags: [String]
        var media: [Media]
        var cards: [Card]
    }

    /// Format version 2: ``DeckContents`` and the notes, as ``DeckJSONExporter`` writes them.
    struct FileV2: Decodable {
        struct Media: Decodable {
            var fileName: String
            var sha256: String
            var sha1: String
            var mime: String
            var size: Int
            var names: [String]
            var data: String?
            var record: MediaRecord { MediaRecord(fileName: fileName, sha256: sha256, sha1: sha1, mime: mime, size: size, names: names) }
        }
        /// Fields by name (an object) or in order (an array, for note types whose names repeat).
        enum Fields: Decodable {
            case named([String: String])
            case ordered([String])
            init(from decoder: Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let values = try? container.decode([String].self) { self = .ordered(values) }
                else { self = .named(try container.decode([String: String].self)) }
            }
        }
        struct Note: Decodable {
            var id: Int64
            var guid: String
            var noteType: Int64
            var fields: Fields
            var sortText: String
            var created: Double
            var modified: Double
            var ankiID: Int64?
            var tags: [String]
            var media: [String]
            var cards: [CardRecord]
        }
        var format: String
        var formatVersion: Int
        var title: String
        var description: String
        var dayZero: Int64
        var dayStartsAt: Int
        var ankiConfig: String
        var presets: [PresetRecord]
        var decks: [DeckRecord]
        var noteTypes: [NoteTypeRecord]
        var tags: [TagRecord]
        var media: [Media]
        var detachedReviews: [ReviewRecord]
        var notes: [Note]
    }

    /// Imports the file at `url` into `document` and saves it.
    /// - Throws: ``InterchangeError`` `missing`, `malformed` (not JSON, a wrong type, a bad date,
    ///   an unknown format or newer version, a media hash that doesn't match) — nothing is added
    ///   then; the store's error when saving fails.
    @discardableResult
    public func importFile(at url: URL, into document: DeckDocument) throws -> Report {
        let data: Data
        do { data = try Data(contentsOf: url) }
        catch {
            let missing = !FileManager.default.fileExists(atPath: url.path)
            throw InterchangeError(missing ? .missing : .io, path: url.path, reason: missing ? "no such file" : "cannot read the file")
        }
        return try importData(data, path: url.path, mediaFolder: url.deletingLastPathComponent(), into: document)
    }

    /// Imports JSON bytes; `path` names them in errors, `mediaFolder` is where referenced media are looked for.
    /// - Throws: as ``importFile(at:into:)``.
    @discardableResult
    public func importData(_ data: Data, path: String, mediaFolder: URL?, into document: DeckDocument) throws -> Report {
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            do {
                return try JSONDecoder().decode(T.self, from: data)
            } catch let error as DecodingError {
                throw InterchangeError(.malformed, path: path, reason: Self.describe(error))
            } catch {
                throw InterchangeError(.malformed, path: path, reason: "not JSON")
            }
        }
        let header = try decode(Header.self)
        guard header.format == DeckJSONExporter.formatName else {
            throw InterchangeError(.malformed, path: path, reason: "not a SampleDeck JSON export (format \"\(header.format)\")")
        }
        guard header.formatVersion <= DeckJSONExporter.formatVersion, header.formatVersion >= 1 else {
            throw InterchangeError(.malformed, path: path, reason:
                "format version \(header.formatVersion) is newer than this program reads (\(DeckJSONExporter.formatVersion)); update SampleDeck")
        }
        let folders = [self.mediaFolder, mediaFolder.map { $0.appendingPathComponent(DeckDocument.mediaFolderName) }, mediaFolder].compactMap { $0 }
        if header.formatVersion == 2 {
            return try importVersion2(decode(FileV2.self), path: path, folders: folders, into: document)
        }
        let file = try decode(File.self)
        func date(_ text: String, _ what: String) throws -> Date {
            guard let value = TimestampFormat.date(from: text) else {
                throw InterchangeError(.malformed, path: path, reason: "\(what): \"\(text)\" is not an ISO 8601 UTC date")
            }
            return value
        }
        // Validate every card before touching the deck.
        var cards: [(File.Card, created: Date, modified: Date, due: Date?, reviews: [Date])] = []
        cards.reserveCapacity(file.cards.count)
        for (index, card) in file.cards.enumerated() {
            let label = "card \(index + 1)"
            let entry = (card, try date(card.created, "\(label) created"), try date(card.modified, "\(label) modified"),
                         try card.due.map { try date($0, "\(label) due") },
                         try card.reviews.map { try date($0.date, "\(label) review") })
            // Values outside what a deck holds are refused here, so no later command converts them.
            if let field = CardValueLimits.problem(
                created: entry.1.timeIntervalSince1970, modified: entry.2.timeIntervalSince1970, due: entry.3?.timeIntervalSince1970,
                interval: card.interval, ease: card.ease, repetitions: card.repetitions, lapses: card.lapses) {
                throw InterchangeError(.malformed, path: path, reason: "\(label) \(field) is out of range")
            }
            for (number, (review, reviewDate)) in zip(card.reviews, entry.4).enumerated() {
                if let field = CardValueLimits.problem(reviewDate: reviewDate.timeIntervalSince1970, answer: review.ease,
                                                       interval: review.interval, duration: review.duration) {
                    throw InterchangeError(.malformed, path: path, reason: "\(label) review \(number + 1) \(field) is out of range")
                }
            }
            cards.append(entry)
        }

        do {
            return try apply(file, cards: cards, path: path, folders: folders, into: document)
        } catch {
            document.discardChanges()
            throw error
        }
    }

    private func apply(_ file: File, cards: [(File.Card, created: Date, modified: Date, due: Date?, reviews: [Date])],
                       path: String, folders: [URL], into document: DeckDocument) throws -> Report {
        var report = Report()
        if adoptsTitle {
            try document.setTitle(file.title)
            try document.setDeckDescription(file.description)
        }

        var media: [String: DeckMedia] = [:]
        for item in file.media {
            var bytes: Data?
            if let encoded = item.data {
                guard let decoded = Data(base64Encoded: encoded) else {
                    throw InterchangeError(.malformed, path: path, reason: "media \"\(item.fileName)\": data is not base64")
                }
                bytes = decoded
            } else {
                bytes = try Self.readMediaFile(item.fileName, in: folders)
            }
            guard let bytes else {
                report.missingMedia += 1
                continue
            }
            let reference = try document.addMedia(bytes, originalName: item.originalName, mime: item.mime, sha1: item.sha1)
            guard reference.sha256 == item.sha256.lowercased() else {
                throw InterchangeError(.malformed, path: path, reason: "media \"\(item.fileName)\": contents do not match its sha256")
            }
            media[item.fileName] = reference
            report.mediaFiles += 1
        }

        var existing = try document.savedAnkiGUIDs()
        try document.bulkImport { session in
        try session.ensureTags(file.tags)
        for (entry, created, modified, due, reviewDates) in cards {
            if let guid = entry.ankiGUID, !existing.insert(guid).inserted {
                report.duplicatesSkipped += 1
                continue
            }
            let card = ImportedNote(kind: entry.kind, front: entry.front, back: entry.back, created: created)
            if entry.kind == .cloze { card.text = entry.text ?? entry.front }
            card.modified = modified
            card.due = due
            card.interval = entry.interval
            card.ease = entry.ease
            card.repetitions = entry.repetitions
            card.lapses = entry.lapses
            card.ankiGUID = entry.ankiGUID
            card.deckPath = entry.deckPath
            let reviews = zip(entry.reviews, reviewDates).map { review, date in
                ReviewSnapshot(date: date, ease: review.ease, interval: review.interval, duration: review.duration)
            }
            try session.add(card, tags: entry.tags, media: entry.media.compactMap { media[$0]?.originalName }, reviews: reviews)
            report.reviews += reviews.count
            report.cardsAdded += 1
        }
        }
        return report
    }

    /// The bytes of a media file named `fileName` in the first of `folders` that has it.
    static func readMediaFile(_ fileName: String, in folders: [URL]) throws -> Data? {
        guard !fileName.contains("/"), fileName != "..", fileName != ".", !fileName.isEmpty else { return nil }
        for folder in folders {
            let candidate = folder.appendingPathComponent(fileName)
            // A regular file only, never through a link, never a FIFO (which would block).
            do {
                return try UntrustedFile.read(candidate.path)
            } catch {
                if case .missing = error.kind { continue }
                throw InterchangeError(error.isWrongType ? .malformed : .io, path: candidate.path,
                                       reason: "media \"\(fileName)\": \(error.reason)")
            }
        }
        return nil
    }

    private func importVersion2(_ file: FileV2, path: String, folders: [URL], into document: DeckDocument) throws -> Report {
        let contents = DeckContents(
            title: file.title, description: file.description, dayZero: file.dayZero, dayStartsAt: file.dayStartsAt,
            ankiConfig: file.ankiConfig, presets: file.presets, decks: file.decks, noteTypes: file.noteTypes, tags: file.tags,
            media: file.media.map(\.record), detachedReviews: file.detachedReviews)
        let types = Dictionary(file.noteTypes.map { ($0.id, $0.fields.sorted { $0.ordinal < $1.ordinal }.map(\.name)) },
                               uniquingKeysWith: { first, _ in first })
        var notes: [NoteRecord] = []
        notes.reserveCapacity(file.notes.count)
        for note in file.notes {
            let values: [String]
            switch note.fields {
            case .ordered(let ordered):
                values = ordered
            case .named(let named):
                guard let names = types[note.noteType] else {
                    throw InterchangeError(.malformed, path: path, reason: "note \(note.id): note type \(note.noteType) is not in the file")
                }
                if let extra = named.keys.sorted().first(where: { !names.contains($0) }) {
                    throw InterchangeError(.malformed, path: path, reason: "note \(note.id): its note type has no field \"\(extra)\"")
                }
                values = try names.map { name in
                    guard let value = named[name] else {
                        throw InterchangeError(.malformed, path: path, reason: "note \(note.id): missing field \"\(name)\"")
                    }
                    return value
                }
            }
            notes.append(NoteRecord(id: note.id, guid: note.guid, noteType: note.noteType, fields: values, sortText: note.sortText,
                                    created: note.created, modified: note.modified, ankiID: note.ankiID, tags: note.tags,
                                    media: note.media, cards: note.cards))
        }
        let embedded = Dictionary(file.media.compactMap { item in item.data.map { (item.fileName, $0) } }, uniquingKeysWith: { first, _ in first })
        let restored: RestoreReport
        do {
            restored = try document.restore(contents, notes: notes, mediaData: { item in
                if let encoded = embedded[item.fileName] {
                    guard let decoded = Data(base64Encoded: encoded) else {
                        throw InterchangeError(.malformed, path: path, reason: "media \"\(item.fileName)\": data is not base64")
                    }
                    return decoded
                }
                return try Self.readMediaFile(item.fileName, in: folders)
            }, adoptsTitle: adoptsTitle, update: update)
        } catch let error as RestoreInputError {
            throw InterchangeError(.malformed, path: path, reason: error.message)
        }
        var report = Report()
        report.cardsAdded = restored.notesAdded
        report.duplicatesSkipped = restored.duplicatesSkipped
        report.updates = restored.updates
        report.mediaFiles = restored.mediaFiles
        report.missingMedia = restored.missingMedia
        report.reviews = restored.reviews
        return report
    }

    static func describe(_ error: DecodingError) -> String {
        func location(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return path.isEmpty ? "" : " at \(path.hasPrefix(".") ? String(path.dropFirst()) : path)"
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing \"\(key.stringValue)\"\(location(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "wrong type\(location(context)): \(context.debugDescription)"
        case .dataCorrupted(let context): return "malformed JSON\(location(context))"
        @unknown default: return "malformed JSON"
        }
    }
}
