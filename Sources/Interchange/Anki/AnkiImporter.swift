import Anki
import DeckDocument
import Foundation

/// Imports Anki packages (`.apkg`, `.colpkg`; legacy and current layouts) into a deck.
///
/// Each note becomes one card (see ``AnkiNoteMapping`` for the note types), with its tags,
/// its deck as ``Card/deckPath`` (`French::Verbs`), the media its fields refer to, the
/// scheduling state of its first card and the review history of all its cards. Notes whose
/// GUID is already in the deck are skipped, so importing a package twice adds nothing.
///
/// ```swift
/// let report = try AnkiImporter().importPackage(at: apkg, into: deck)
/// print("\(report.cardsAdded) cards, \(report.mappedAsOther) from other note types")
/// ```
///
/// Cost: one pass over the cards and reviews (kept as small values per note), one over the
/// media (streamed to a temporary folder, then stored by content hash), one over the notes;
/// everything is saved in one transaction with the search index rebuilt once at the end.
public struct AnkiImporter: Sendable {
    /// Where temporary files go (the extracted collection and media); the system's by default.
    public var temporaryDirectory: URL?

    /// Creates an importer.
    public init(temporaryDirectory: URL? = nil) {
        self.temporaryDirectory = temporaryDirectory
    }

    /// The scheduling state and deck of a note's first card, packed small (one per note is kept
    /// during an import).
    struct FirstCard {
        var deckID: Int64
        var due: Int64
        var interval: Int32
        var factor: Int32
        var reps: Int32
        var lapses: Int32
        var ordinal: Int16
        var type: Int8
        var queue: Int8

        init(_ card: AnkiCard) {
            deckID = card.originalDeckID != 0 ? card.originalDeckID : card.deckID
            due = card.due
            interval = Int32(clamping: card.interval)
            factor = Int32(clamping: card.factor)
            reps = Int32(clamping: card.reps)
            lapses = Int32(clamping: card.lapses)
            ordinal = Int16(clamping: card.ordinal)
            type = Int8(clamping: card.type.rawValue)
            queue = Int8(clamping: card.queue.rawValue)
        }

        /// The card again, with the fields scheduling reads.
        var card: AnkiCard {
            AnkiCard(id: 0, noteID: 0, deckID: deckID, ordinal: Int(ordinal), type: .init(rawValue: Int(type)),
                     queue: .init(rawValue: Int(queue)), due: due, interval: Int64(interval), factor: Int64(factor),
                     reps: Int64(reps), lapses: Int64(lapses))
        }
    }

    /// Imports the package at `url` into `document` and saves it.
    ///
    /// - Throws: `AnkiError` for a package that can't be read (not a zip, corrupt collection,
    ///   unsafe media names, …) — nothing is added then; `DeckError` or the store's error when
    ///   saving fails. Media files absent from the package are counted in
    ///   ``AnkiImportReport/missingMedia``, not thrown.
    @discardableResult
    public func importPackage(at url: URL, into document: DeckDocument) throws -> AnkiImportReport {
        do {
            return try importing(url, into: document)
        } catch {
            document.mainContext.rollback()
            throw error
        }
    }

    private func importing(_ url: URL, into document: DeckDocument) throws -> AnkiImportReport {
        let reader = try AnkiPackageReader(url: url, temporaryDirectory: temporaryDirectory)
        defer { reader.close() }
        var report = AnkiImportReport()

        var mappings: [Int64: AnkiNoteMapping] = [:]
        for noteType in reader.noteTypes { mappings[noteType.id] = AnkiNoteMapping(noteType) }
        var deckNames: [Int64: String] = [:]
        for deck in reader.decks { deckNames[deck.id] = deck.name }

        // Cards: the first card of each note (its scheduling and deck); card → note for reviews.
        var firstCards: [Int64: FirstCard] = [:]
        firstCards.reserveCapacity(try reader.noteCount())
        let hasReviews = try reader.reviewCount() > 0
        var noteOfCard: [Int64: Int64] = [:]
        try reader.forEachCard { card in
            if hasReviews { noteOfCard[card.id] = card.noteID }
            if let known = firstCards[card.noteID], Int(known.ordinal) <= card.ordinal { return }
            firstCards[card.noteID] = FirstCard(card)
        }
        var reviewsOfNote: [Int64: [AnkiReview]] = [:]
        if hasReviews {
            try reader.forEachReview { review in
                guard let note = noteOfCard[review.cardID] else { return }
                reviewsOfNote[note, default: []].append(review)
            }
            noteOfCard = [:]
        }

        let media = try importMedia(of: reader, into: document, report: &report)

        var existing = try document.savedAnkiGUIDs()
        var otherTypes: Set<String> = []
        let creation = reader.creationTime
        try document.bulkImport { session in
            try reader.forEachNote { note in
                report.notesRead += 1
                guard !note.guid.isEmpty else { return try addNote(note, session) }
                guard existing.insert(note.guid).inserted else {
                    report.duplicatesSkipped += 1
                    return
                }
                try addNote(note, session)
            }
        }

        func addNote(_ note: AnkiNote, _ session: BulkImport) throws {
            let mapping = mappings[note.noteTypeID] ?? AnkiNoteMapping(fallbackFieldCount: note.fields.count)
            if mapping.rule == .other {
                report.mappedAsOther += 1
                if let name = reader.noteType(id: note.noteTypeID)?.name { otherTypes.insert(name) }
            }
            var fields = note.fields
            if !media.renamed.isEmpty {
                fields = fields.map { Self.rewrite($0, renames: media.renamed) }
            }
            let (front, back) = mapping.sides(of: fields)
            let card: Card
            switch mapping.cardKind {
            case .basic: card = BasicCard(front: front, back: back)
            case .reversible: card = ReversibleCard(front: front, back: back)
            case .cloze:
                let cloze = ClozeCard(front: front, back: back)
                cloze.text = front
                card = cloze
            }
            card.stampsModificationDate = false
            card.created = AnkiScheduling.creationDate(noteID: note.id, modified: note.modified)
            card.modified = Date(timeIntervalSince1970: TimeInterval(note.modified))
            card.ankiGUID = note.guid.isEmpty ? nil : note.guid
            if let first = firstCards[note.id] {
                if first.deckID != 1, let name = deckNames[first.deckID] { card.deckPath = name }
                AnkiScheduling.apply(first.card, collectionCreation: creation, to: card)
            }
            var linked: [String] = []
            if !media.references.isEmpty {
                var seen: Set<String> = []
                for field in fields {
                    for name in MediaNames.references(in: field) {
                        if let reference = media.references[name], seen.insert(reference.fileName).inserted {
                            linked.append(reference.fileName)
                        }
                    }
                }
            }
            let reviews = (reviewsOfNote[note.id] ?? []).map(AnkiScheduling.review)
            try session.add(card, tags: note.tags, media: linked, reviews: reviews)
            report.reviews += reviews.count
            report.cardsAdded += 1
            report.cardsByKind[mapping.cardKind.rawValue, default: 0] += 1
        }

        report.otherNoteTypes = otherTypes.sorted()
        return report
    }

    /// The media of the package stored in the deck: name in the fields → reference, and the
    /// names that sanitising changed (old → new), which the fields are rewritten with.
    private func importMedia(of reader: AnkiPackageReader, into document: DeckDocument,
                             report: inout AnkiImportReport) throws -> (references: [String: MediaReference], renamed: [String: String]) {
        guard !reader.media.isEmpty else { return ([:], [:]) }
        let base = temporaryDirectory ?? FileManager.default.temporaryDirectory
        let folder = base.appendingPathComponent("anki-media-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [String: URL]
        do {
            files = try reader.extractMedia(to: folder)
        } catch let error as AnkiError where error.kind == .missingMedia {
            files = [:]
            for item in reader.media {
                let file = folder.appendingPathComponent(item.name)
                if FileManager.default.fileExists(atPath: file.path) { files[item.name] = file }
            }
        }
        report.missingMedia = reader.media.count - files.count
        var references: [String: MediaReference] = [:]
        var renamed: [String: String] = [:]
        var stored: Set<String> = []
        for (name, file) in files.sorted(by: { $0.key < $1.key }) {
            let data: Data
            do { data = try Data(contentsOf: file) }
            catch { throw AnkiError(.io, path: file.path, reason: "cannot read an extracted media file") }
            let clean = MediaNames.sanitized(name)
            if clean != name { renamed[name] = clean }
            let reference = try document.addMedia(data, originalName: clean)
            references[clean] = reference
            if stored.insert(reference.fileName).inserted { report.mediaFiles += 1 }
        }
        return (references, renamed)
    }

    /// A field with media names replaced by their sanitised forms.
    static func rewrite(_ field: String, renames: [String: String]) -> String {
        var result = field
        for (old, new) in renames where result.contains(old) {
            result = result.replacingOccurrences(of: old, with: new)
        }
        return result
    }
}

extension AnkiNoteMapping {
    /// The mapping of a note whose note type is missing from the package: other, with
    /// fields named "Field 2", "Field 3", ….
    init(fallbackFieldCount count: Int) {
        self.init(rule: .other, fieldNames: (0..<count).map { "Field \($0 + 1)" })
    }
}
