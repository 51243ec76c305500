import DeckDocument
import Foundation

/// Imports a CSV/TSV or Anki text file (see ``TextImportReader``) into a deck: one card per
/// row with its tags; a `Notetype` column (or `#notetype:`) naming a cloze or reversed type
/// makes cloze or reversible cards, a `Deck` column sets the deck path, and a row whose `GUID`
/// is in the deck updates that note (``update``; rows carry no time, so ``ImportUpdatePolicy/newer``
/// compares the file's modification time with the note's). Rows with an empty front are skipped.
///
/// Cost: one streaming pass (constant memory for the file; the new cards are kept until the
/// single save, which rebuilds the search index once).
public struct DeckTextImporter {
    /// The reader's starting settings (separator, header row, …).
    public var settings: TextImportSettings
    /// Called now and then with the bytes read so far (for a progress bar).
    public var progress: ((Int) -> Void)?
    /// When notes already in the deck (by the GUID column) take the row's values.
    public var update: ImportUpdatePolicy = .newer
    /// When the rows were written (the file's modification time), for ``update``; now when nil.
    public var modified: Date?

    /// What an import did.
    public struct Report: Sendable, Hashable, Codable {
        /// Cards added.
        public var cardsAdded = 0
        /// Rows skipped because a row before them in the same file has their GUID.
        public var duplicatesSkipped = 0
        /// Rows whose GUID was in the deck: updated, unchanged, skipped.
        public var updates = ImportUpdateCounts()
        /// Rows skipped because their front is empty.
        public var emptyRowsSkipped = 0
        /// Creates an empty report.
        public init() {}
    }

    /// Creates an importer.
    public init(settings: TextImportSettings = TextImportSettings(), update: ImportUpdatePolicy = .newer, modified: Date? = nil,
                progress: ((Int) -> Void)? = nil) {
        self.settings = settings
        self.update = update
        self.modified = modified
        self.progress = progress
    }

    /// The modification time of the file at `url`: when its rows were written, for ``modified``.
    /// - Throws: ``InterchangeError`` `missing` when there is no such file, `io` when its
    ///   attributes can't be read (a guess such as "now" would decide which notes update).
    public static func modificationDate(ofFileAt url: URL) throws -> Date {
        do {
            if let date = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date { return date }
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile {
            throw InterchangeError(.missing, path: url.path, reason: "no such file")
        } catch {
            throw InterchangeError(.io, path: url.path, reason: "can't read its modification time: \(error.localizedDescription)")
        }
        throw InterchangeError(.io, path: url.path, reason: "it has no modification time")
    }

    /// Adds every row of `reader` to a bulk import (see ``DeckDocument/bulkImport(batchSize:_:)``),
    /// so several files can be imported in one transaction.
    /// - Throws: ``CSVError`` for malformed input, with its line (nothing is saved then).
    public func add(from reader: inout TextImportReader, to session: BulkImport, report: inout Report) throws {
        try session.flush()  // cards of earlier files in the same import count as saved
        var seen: Set<String> = []
        // The cards of a file share its import time as their creation date.
        let now = Date()
        let written = modified ?? now
        var count = 0
        while let row = try reader.next() {
            count += 1
            if count & 1023 == 0 { progress?(reader.bytesConsumed) }
            guard !row.front.isEmpty else {
                report.emptyRowsSkipped += 1
                continue
            }
            if let guid = row.guid, !guid.isEmpty {
                guard seen.insert(guid).inserted else {
                    report.duplicatesSkipped += 1
                    continue
                }
                if let saved = try session.savedNote(guid: guid) {
                    // A file without tags leaves the note's; one with a tags column or #tags: replaces them.
                    let tagged = reader.columnRoles.contains(.tags) || !reader.settings.tags.isEmpty
                    let fields: [String?] = [row.front, reader.columnRoles.contains(.back) ? row.back : nil]
                        + row.extraFields.map(\.value)
                    let outcome = try session.update(saved, fields: fields, noteTypeName: row.notetype,
                                                     tags: tagged ? Self.splitTags(row.tags) : nil, modified: written, policy: update)
                    report.updates.record(outcome, guid: guid, text: row.front)
                    continue
                }
            }
            let kind = Self.kind(ofNotetype: row.notetype)
            let card = ImportedNote(kind: kind, front: row.front, back: row.back, created: now)
            if let guid = row.guid, !guid.isEmpty { card.ankiGUID = guid }
            if let deck = row.deck, !deck.isEmpty { card.deckPath = deck }
            try session.add(card, tags: Self.splitTags(row.tags))
            report.cardsAdded += 1
        }
        progress?(reader.bytesConsumed)
    }

    /// Imports the file at `url` into `document` and saves.
    /// - Throws: ``CSVError`` (nothing is added then); the store's error.
    @discardableResult
    public func importFile(at url: URL, into document: DeckDocument) throws -> Report {
        var reader = try TextImportReader(url: url, settings: settings)
        var report = Report()
        try document.bulkImport { session in try add(from: &reader, to: session, report: &report) }
        return report
    }

    /// The tags as single words: the reader splits a row's tags already, so only tags given
    /// whole in the settings (`#tags:` set in code) may still hold white space.
    static func splitTags(_ tags: [String]) -> [String] {
        func isWord(_ tag: String) -> Bool {
            tag.utf8.allSatisfy { $0 > 0x20 && $0 < 0x80 }
        }
        if tags.allSatisfy(isWord) { return tags }
        return tags.flatMap { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
    }

    /// The card kind of an Anki note type name: cloze types, reversed types, else basic.
    static func kind(ofNotetype name: String?) -> CardKind {
        guard let name = name?.lowercased() else { return .basic }
        if name.contains("cloze") { return .cloze }
        if name.contains("reverse") { return .reversible }
        return .basic
    }
}
