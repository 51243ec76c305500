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
/// Cost: one pass over the media (each file read into memory and stored by content hash),
/// then one merged pass over the notes with their first card and their reviews (see
/// ``AnkiPackageReader/forEachNoteWithCards(includingReviews:_:)``), so memory does not grow with
/// the package (beyond one GUID per note, for repeats, in packages of up to 250,000 notes);
/// everything is saved in one transaction.
public struct AnkiImporter: Sendable {
    /// Where temporary files go (a compressed collection, extracted); the system's by default.
    public var temporaryDirectory: URL?

    /// Packages with up to this many notes find GUIDs repeated inside them with a set of every
    /// GUID (cheapest); larger ones ask the package for its repeated GUIDs first (one SQLite
    /// sort), so memory does not grow with the package.
    var guidSetLimit = 250_000

    /// Creates an importer.
    public init(temporaryDirectory: URL? = nil) {
        self.temporaryDirectory = temporaryDirectory
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
            document.discardChanges()
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

        let media = try importMedia(of: reader, into: document, report: &report)
        let renames = MediaRenames(media.renamed)

        // GUIDs already in the deck, and those of this package seen so far (a package may repeat
        // one): all of them for a small package, else only those the package repeats.
        let saved = try document.savedAnkiGUIDs()
        let noteCount = try reader.noteCount()
        let repeated: Set<String>? = noteCount > guidSetLimit ? try reader.repeatedGUIDs() : nil
        var seen: Set<String> = []
        seen.reserveCapacity(repeated?.count ?? noteCount)
        var otherTypes: Set<String> = []
        var byKind = [Int](repeating: 0, count: CardKind.allCases.count)
        let creation = reader.creationTime
        // Notes of one package mostly share a note type and a deck: the last lookups are kept.
        var lastType: (id: Int64, mapping: AnkiNoteMapping)?
        var lastDeck: (id: Int64, name: String?)?

        try document.bulkImport { session in
            try reader.forEachNoteWithCards { note, firstCard, reviews in
                report.notesRead += 1
                if !note.guid.isEmpty {
                    let first: Bool
                    if let repeated, repeated.isEmpty || !repeated.contains(note.guid) {
                        first = true
                    } else {
                        first = seen.insert(note.guid).inserted
                    }
                    guard first, saved.isEmpty || !saved.contains(note.guid) else {
                        report.duplicatesSkipped += 1
                        return
                    }
                }
                let mapping: AnkiNoteMapping
                if let lastType, lastType.id == note.noteTypeID {
                    mapping = lastType.mapping
                } else {
                    mapping = mappings[note.noteTypeID] ?? AnkiNoteMapping(fallbackFieldCount: note.fields.count)
                    lastType = (note.noteTypeID, mapping)
                }
                if mapping.rule == .other {
                    report.mappedAsOther += 1
                    if let name = reader.noteType(id: note.noteTypeID)?.name { otherTypes.insert(name) }
                }
                var fields = note.fields
                if !renames.isEmpty {
                    fields = fields.map(renames.apply(to:))
                }
                let (front, back) = mapping.sides(of: fields)
                let created = AnkiScheduling.creationDate(noteID: note.id, modified: note.modified)
                guard AnkiScheduling.secondsRange.contains(note.modified) else {
                    throw InterchangeError(.malformed, path: url.path, reason: "notes.mod of note \(note.id) is out of range")
                }
                let card = ImportedNote(kind: mapping.cardKind, front: front, back: back, created: created)
                card.modified = Date(timeIntervalSince1970: TimeInterval(note.modified))
                card.ankiGUID = note.guid.isEmpty ? nil : note.guid
                if let firstCard {
                    let deckID = firstCard.originalDeckID != 0 ? firstCard.originalDeckID : firstCard.deckID
                    let name: String?
                    if let lastDeck, lastDeck.id == deckID {
                        name = lastDeck.name
                    } else {
                        name = deckNames[deckID]
                        lastDeck = (deckID, name)
                    }
                    if deckID != 1, let name { card.deckPath = name }
                    if let column = AnkiScheduling.outOfRangeColumn(of: firstCard, collectionCreation: creation) {
                        throw InterchangeError(.malformed, path: url.path, reason: "cards.\(column) of card \(firstCard.id) is out of range")
                    }
                    AnkiScheduling.apply(firstCard, collectionCreation: creation, to: card)
                }
                var linked: [String] = []
                if !media.references.isEmpty {
                    var linkedSet: Set<String> = []
                    for field in fields {
                        for name in MediaNames.references(in: field) {
                            if let reference = media.references[name], linkedSet.insert(reference.originalName).inserted {
                                linked.append(reference.originalName)
                            }
                        }
                    }
                }
                for review in reviews {
                    if let column = AnkiScheduling.outOfRangeColumn(of: review) {
                        throw InterchangeError(.malformed, path: url.path, reason: "revlog.\(column) of review \(review.id) is out of range")
                    }
                }
                let history = reviews.isEmpty ? [] : reviews.map(AnkiScheduling.review)
                try session.add(card, tags: note.tags, media: linked, reviews: history)
                report.reviews += history.count
                report.cardsAdded += 1
                byKind[mapping.cardKind.index] += 1
            }
        }

        for (kind, count) in zip(CardKind.allCases, byKind) where count > 0 {
            report.cardsByKind[kind.rawValue] = count
        }
        report.otherNoteTypes = otherTypes.sorted()
        return report
    }

    /// The media of the package stored in the deck: name in the fields → reference, and the
    /// names that sanitising changed (old → new), which the fields are rewritten with.
    ///
    /// One pass over the zip, each file handed from memory to the deck (no temporary files).
    private func importMedia(of reader: AnkiPackageReader, into document: DeckDocument,
                             report: inout AnkiImportReport) throws -> (references: [String: DeckMedia], renamed: [String: String]) {
        guard !reader.media.isEmpty else { return ([:], [:]) }
        var references: [String: DeckMedia] = [:]
        var renamed: [String: String] = [:]
        var stored: Set<String> = []
        let missing = try reader.forEachMediaFile { item, data in
            let clean = MediaNames.sanitized(item.name)
            if clean != item.name { renamed[item.name] = clean }
            let reference = try document.addMedia(data, originalName: clean)
            references[clean] = reference
            if stored.insert(reference.fileName).inserted { report.mediaFiles += 1 }
        }
        report.missingMedia = missing.count
        return (references, renamed)
    }
}

extension CardKind {
    /// The kind's position in `allCases`, for counting by kind without hashing.
    fileprivate var index: Int {
        switch self {
        case .basic: 0
        case .reversible: 1
        case .cloze: 2
        }
    }
}

extension AnkiNoteMapping {
    /// The mapping of a note whose note type is missing from the package: other, with
    /// fields named "Field 2", "Field 3", ….
    init(fallbackFieldCount count: Int) {
        self.init(rule: .other, fieldNames: (0..<count).map { "Field \($0 + 1)" })
    }
}
