import DeckDocument
import FileSafety
import Foundation

/// Imports a JSON export (see ``DeckJSONExporter``) into a deck.
///
/// Cards are added in the file's order with their dates, scheduling, tags, media and review
/// history; a card whose `ankiGUID` is already in the deck is skipped. Media come from the
/// embedded `data` when present, else from the file named `fileName` in a `Media` folder
/// beside the JSON file (or beside it directly); their SHA-256 is checked. Media that can't be
/// found are counted in ``Report/missingMedia`` and left out.
public struct DeckJSONImporter: Sendable {
    /// Whether the deck takes the title and description of the file (for a new deck).
    public var adoptsTitle: Bool

    /// What an import did.
    public struct Report: Sendable, Hashable, Codable {
        /// Cards added.
        public var cardsAdded = 0
        /// Cards skipped because their Anki GUID is already in the deck.
        public var duplicatesSkipped = 0
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
    public init(adoptsTitle: Bool = false) {
        self.adoptsTitle = adoptsTitle
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
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch let error as DecodingError {
            throw InterchangeError(.malformed, path: path, reason: Self.describe(error))
        } catch {
            throw InterchangeError(.malformed, path: path, reason: "not JSON")
        }
        guard file.format == DeckJSONExporter.formatName else {
            throw InterchangeError(.malformed, path: path, reason: "not a SampleDeck JSON export (format \"\(file.format)\")")
        }
        guard file.formatVersion <= DeckJSONExporter.formatVersion, file.formatVersion >= 1 else {
            throw InterchangeError(.malformed, path: path, reason:
                "format version \(file.formatVersion) is newer than this program reads (\(DeckJSONExporter.formatVersion)); update SampleDeck")
        }
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
            return try apply(file, cards: cards, path: path, mediaFolder: mediaFolder, into: document)
        } catch {
            document.discardChanges()
            throw error
        }
    }

    private func apply(_ file: File, cards: [(File.Card, created: Date, modified: Date, due: Date?, reviews: [Date])],
                       path: String, mediaFolder: URL?, into document: DeckDocument) throws -> Report {
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
            } else if let mediaFolder, !item.fileName.contains("/"), item.fileName != "..", item.fileName != "." {
                for candidate in [mediaFolder.appendingPathComponent(DeckDocument.mediaFolderName).appendingPathComponent(item.fileName),
                                  mediaFolder.appendingPathComponent(item.fileName)] {
                    // A regular file only, never through a link, never a FIFO (which would block).
                    do {
                        bytes = try UntrustedFile.read(candidate.path)
                        break
                    } catch {
                        if case .missing = error.kind { continue }
                        throw InterchangeError(error.isWrongType ? .malformed : .io, path: candidate.path,
                                               reason: "media \"\(item.fileName)\": \(error.reason)")
                    }
                }
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
