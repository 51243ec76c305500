import Anki
import DeckDocument
import Foundation

/// What importing a file added, whatever its format.
public struct ImportSummary: Sendable, Hashable, Codable {
    /// Cards added.
    public var cardsAdded = 0
    /// Cards (notes, rows) skipped because their GUID came earlier in the same file (format
    /// version 1 JSON files: because it is already in the deck).
    public var duplicatesSkipped = 0
    /// Notes (rows) whose GUID was already in the deck: updated, unchanged or skipped, and what
    /// became of the note types.
    public var updates = ImportUpdateCounts()
    /// Anki notes of other note types, mapped as first field in front and the rest labelled on the back.
    public var mappedAsOther = 0
    /// The names of those note types.
    public var otherNoteTypes: [String] = []
    /// Media files stored.
    public var mediaFiles = 0
    /// Media files the input lists but does not hold.
    public var missingMedia = 0
    /// Review-history entries added.
    public var reviews = 0
    /// Creates an empty summary.
    public init() {}
}

/// One entry point for importing and exporting every format (see ``InterchangeFormat``).
///
/// ```swift
/// let deck = try DeckDocument.create(at: url, title: "French")
/// try DeckInterchange.importFile(at: apkg, format: .apkg, into: deck)
/// try DeckInterchange.export(deck, format: .html, to: page)
/// ```
public enum DeckInterchange {
    /// Imports `url` (a file in `format`) into `document` and saves; all or nothing.
    ///
    /// - Parameters:
    ///   - adoptsTitle: for JSON, take the file's title and description (new decks).
    ///   - mediaFolder: for JSON, where media files without `data` are looked for first.
    ///   - update: when notes already in the deck (by GUID) take the file's (``ImportUpdatePolicy``).
    ///   - mergesNoteTypes: for Anki packages, Anki's "merge note types" (``AnkiImporter/mergesNoteTypes``).
    /// - Throws: ``InterchangeError`` `unsupported` for a format that can't be imported;
    ///   the format's error (`CSVError`, `AnkiError`, ``InterchangeError``); the store's error.
    @discardableResult
    public static func importFile(at url: URL, format: InterchangeFormat, into document: DeckDocument,
                                  adoptsTitle: Bool = false, mediaFolder: URL? = nil, update: ImportUpdatePolicy = .newer,
                                  mergesNoteTypes: Bool = false, progress: ((Int) -> Void)? = nil) throws -> ImportSummary {
        var summary = ImportSummary()
        switch format {
        case .csv, .tsv:
            let settings = TextImportSettings(likelySeparator: format == .csv ? .comma : .tab)
            let modified = try DeckTextImporter.modificationDate(ofFileAt: url)
            let report = try DeckTextImporter(settings: settings, update: update, modified: modified, progress: progress)
                .importFile(at: url, into: document)
            summary.cardsAdded = report.cardsAdded
            summary.duplicatesSkipped = report.duplicatesSkipped
            summary.updates = report.updates
        case .json:
            let report = try DeckJSONImporter(adoptsTitle: adoptsTitle, mediaFolder: mediaFolder, update: update)
                .importFile(at: url, into: document)
            summary.cardsAdded = report.cardsAdded
            summary.duplicatesSkipped = report.duplicatesSkipped
            summary.updates = report.updates
            summary.mediaFiles = report.mediaFiles
            summary.missingMedia = report.missingMedia
            summary.reviews = report.reviews
        case .apkg, .colpkg:
            let report: AnkiImportReport
            do {
                report = try AnkiImporter(update: update, mergesNoteTypes: mergesNoteTypes).importPackage(at: url, into: document)
            } catch let error as AnkiError {
                throw InterchangeError(anki: error)
            }
            summary.cardsAdded = report.notesAdded
            summary.duplicatesSkipped = report.duplicatesSkipped
            summary.updates = report.updates
            summary.mediaFiles = report.mediaFiles
            summary.missingMedia = report.missingMedia
            summary.reviews = report.reviews
        case .sampledeck, .zip, .html:
            throw InterchangeError(.unsupported, path: url.path, reason: "cannot import cards from \(format.rawValue) (use csv, tsv, json, apkg or colpkg)")
        }
        return summary
    }

    /// Exports the saved cards of `document` to `url` in `format`; the file appears only when complete.
    ///
    /// - Parameter mediaFolder: for JSON and HTML, write media files into this folder instead
    ///   of inside the file (JSON: `<sha256>.<ext>`; HTML: under the names cards use, the page
    ///   referring to them relative to itself, that is to `pageFolder`, by default the folder of `url`).
    /// - Parameter ankiLayout: for apkg and colpkg, the legacy layout (`collection.anki21`, what
    ///   every Anki since 2.1 reads; the default) or the current one (`collection.anki21b`, what
    ///   current Anki writes and Anki 2.1.50 and later read).
    /// - Throws: ``InterchangeError`` `unsupported` for a format that can't be exported; the
    ///   format's error; the store's error.
    /// - Parameter progress: called with the number of notes written so far, now and then and
    ///   once when the last is written (what follows, such as zipping a package, is not counted).
    public static func export(_ document: DeckDocument, format: InterchangeFormat, to url: URL, mediaFolder: URL? = nil,
                              pageFolder: URL? = nil, ankiLayout: AnkiLayout = .legacy,
                              progress: (@Sendable (Int) -> Void)? = nil) throws {
        switch format {
        case .csv, .tsv:
            var exporter = DeckTextExporter(separator: format == .csv ? .comma : .tab)
            exporter.progress = progress
            try exporter.export(document, to: url)
        case .json:
            var exporter = DeckJSONExporter(media: mediaFolder.map { .folder($0) } ?? .embedded)
            exporter.progress = progress
            try exporter.export(document, to: url)
        case .apkg, .colpkg:
            let layout: AnkiPackageWriter.Options.Format = switch (format == .colpkg, ankiLayout) {
            case (false, .legacy): .anki21
            case (false, .current): .anki21b
            case (true, .legacy): .collectionPackage
            case (true, .current): .currentCollectionPackage
            }
            var exporter = AnkiExporter(options: .init(format: layout))
            exporter.progress = progress
            do {
                try exporter.export(document, to: url)
            } catch let error as AnkiError {
                throw InterchangeError(anki: error)
            }
        case .html:
            var exporter = DeckHTMLExporter(mediaFolder: mediaFolder, pageFolder: pageFolder)
            exporter.progress = progress
            try exporter.export(document, to: url)
        case .sampledeck, .zip:
            throw InterchangeError(.unsupported, path: url.path, reason: "cannot export to \(format.rawValue) (use csv, tsv, json, apkg, colpkg or html)")
        }
    }
}

extension InterchangeError {
    /// An Anki package error as an interchange error: a damaged or unreadable package is
    /// `malformed`, a failed read or write `io`.
    public init(anki error: AnkiError) {
        let kind: Kind = switch error.kind {
        case .io: .io
        case .closed, .invalidInput: .io
        default: .malformed
        }
        self.init(kind, path: error.path, reason: error.reason)
    }
}

/// Which layout an Anki package is written in.
public enum AnkiLayout: String, Sendable, Hashable, CaseIterable {
    /// `collection.anki21` (schema 11) with a JSON media map: Anki's "support older versions"
    /// export, read by every Anki since 2.1.
    case legacy
    /// `collection.anki21b` (schema 18, zstd) with a protobuf media list: what current Anki
    /// exports by default, read by Anki 2.1.50 and later.
    case current
}
