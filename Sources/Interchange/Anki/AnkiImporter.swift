import Anki
import DeckDocument
import Digest
import Foundation

/// Imports Anki packages (`.apkg`, `.colpkg`; legacy and current layouts) into a format-v2
/// deck at full fidelity: everything the deck's data model has a place for is kept.
///
/// - Note types with their ordered fields (font, size, right-to-left, sticky, plain text,
///   description, …), ordered templates (question, answer and browser formats, target deck),
///   CSS, sort field, LaTeX header and footer, stock kind (image occlusion included), Anki's id
///   and modification time, and the options the model doesn't name as JSON (`ankiOptions`).
/// - Presets (daily limits, steps, FSRS weights, desired retention, the rest as JSON), the
///   deck tree with descriptions and presets, filtered decks with their search terms.
/// - Notes with GUID, Anki id, modification time, fields and tags; every card of each note
///   with its ordinal, deck, type, queue, due, interval, ease, reps, lapses, remaining steps,
///   original deck and due (filtered decks), flag, custom data, FSRS memory state, desired
///   retention and Anki id; every review-log row of every card.
/// - Media under every name the package gives (two names of equal bytes: one file, two names).
///
/// Due values keep Anki's meaning (a position for new cards, a Unix time for intraday learning,
/// a day number otherwise); day numbers count from the package's `col.crt`, which a deck
/// without cards adopts as its day zero (a deck with cards shifts them to its own).
///
/// Notes whose GUID is already in the deck update it as Anki's importer does (``update``:
/// when the package's note is newer, by default): their fields and tags replace the deck's,
/// the deck's cards keep their scheduling and reviews, cards at new ordinals are added; a note
/// whose type changed its fields or templates is skipped (see
/// ``BulkImport/importNoteType(_:policy:)`` for the note-type rules). Importing a package twice
/// adds nothing and changes nothing. Values outside the ranges Anki writes are refused
/// (``InterchangeError`` `malformed`, naming the package and the column); nothing is added then.
///
/// ```swift
/// let report = try AnkiImporter().importPackage(at: apkg, into: deck)
/// print("\(report.notesAdded) notes, \(report.cardsAdded) cards, \(report.reviews) reviews")
/// ```
///
/// Cost: one pass over the media, then one merged pass over the notes with their cards and
/// reviews (``AnkiPackageReader/forEachNoteWithAllCards(includingReviews:_:)``), so memory holds
/// one note at a time (beyond one GUID per note, for repeats, in packages of up to 250,000
/// notes); everything is saved in one transaction.
public struct AnkiImporter: Sendable {
    /// Where temporary files go (a compressed collection, extracted); the system's by default.
    public var temporaryDirectory: URL?
    /// When notes and note types already in the deck (by GUID, by Anki id) take the
    /// package's: ``ImportUpdatePolicy/newer`` (Anki's default) unless set.
    public var update: ImportUpdatePolicy
    /// Anki's "merge note types" option: an incoming note type whose Anki id is the deck's
    /// type's but whose fields or templates differ is merged into it instead of added beside it
    /// (see ``BulkImport/importNoteType(_:policy:merging:)``). Off by default, as in Anki.
    public var mergesNoteTypes = false

    /// Packages with up to this many notes find GUIDs repeated inside them with a set of every
    /// GUID (cheapest); larger ones ask the package for its repeated GUIDs first.
    var guidSetLimit = 250_000

    /// Creates an importer.
    public init(temporaryDirectory: URL? = nil, update: ImportUpdatePolicy = .newer, mergesNoteTypes: Bool = false) {
        self.temporaryDirectory = temporaryDirectory
        self.update = update
        self.mergesNoteTypes = mergesNoteTypes
    }

    /// Imports the package at `url` into `document` and saves it.
    ///
    /// - Throws: `AnkiError` for a package that can't be read (not a zip, corrupt collection,
    ///   unsafe media names, …), ``InterchangeError`` `malformed` for a value out of range —
    ///   nothing is added then; `DeckError` or the store's error when saving fails. Media files
    ///   absent from the package are counted in ``AnkiImportReport/missingMedia``, not thrown.
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
        let check = AnkiValueCheck(path: url.path)

        let media = try importMedia(of: reader, into: document, report: &report)
        let renames = MediaRenames(media.renamed)
        let configuration = Self.object(reader.configuration)
        // Anki's collection-wide switch; an .apkg carries no collection configuration (Anki's
        // own import ignores the switch too): then the deck's default, FSRS.
        let usesFSRS = (configuration["fsrs"] as? NSNumber)?.boolValue ?? true

        let noteCount = try reader.noteCount()
        let repeated: Set<String>? = noteCount > guidSetLimit ? try reader.repeatedGUIDs() : nil
        var seen: Set<String> = []
        seen.reserveCapacity(repeated?.count ?? noteCount)

        try document.bulkImport { session in
            // Day numbers of the package count from its col.crt; a deck with cards keeps its own day zero.
            let dayZero = try session.adoptDayZero(reader.creationTime)
            let dayShift = Self.dayShift(from: reader.creationTime, to: dayZero)
            try session.adoptCollectionConfig(reader.configuration,
                                              dayStartsAt: (configuration["rollover"] as? NSNumber)?.intValue)

            var presetKeys: [Int64: Int64] = [:]
            for preset in reader.presets {
                let (key, action) = try session.importPreset(try check.preset(preset, usesFSRS: usesFSRS), policy: update)
                presetKeys[preset.id] = key
                report.updates.presets.record(action)
            }
            report.presets = reader.presets.count
            var deckKeys: [Int64: Int64] = [:]
            // Parents first, so each deck finds its ancestors.
            for deck in reader.decks.sorted(by: { ($0.path.count, $0.name) < ($1.path.count, $1.name) }) {
                var record = try check.deck(deck)
                record.preset = deck.isFiltered ? nil : presetKeys[deck.presetID]
                do {
                    // Anki: a deck already there keeps its preset when the incoming one uses the default.
                    let (key, action) = try session.importDeck(record, takesPreset: deck.presetID != BulkImport.defaultPresetAnkiID, policy: update)
                    deckKeys[deck.id] = key
                    report.updates.decks.record(action)
                } catch let error as NoteInputError {
                    throw InterchangeError(.malformed, path: url.path, reason: "decks.name of deck \(deck.id): \(error.message)")
                }
            }
            report.decks = reader.decks.count
            let defaultDeck = try session.addDeck(ImportDeck(name: "Default"))

            var types: [Int64: (key: Int64, type: AnkiNoteType, remap: NoteTypeRemap?)] = [:]
            for type in reader.noteTypes {
                var record = try check.noteType(type)
                for (index, template) in type.templates.enumerated() where template.targetDeckID != 0 {
                    record.templates[index].targetDeck = deckKeys[template.targetDeckID]
                }
                let imported: (key: Int64, decision: NoteTypeDecision, remap: NoteTypeRemap?)
                do {
                    imported = try session.importNoteType(record, policy: update, merging: mergesNoteTypes)
                } catch let error as NoteInputError {
                    throw InterchangeError(.malformed, path: url.path, reason: error.message)
                }
                let (key, decision) = (imported.key, imported.decision)
                types[type.id] = (key, type, imported.remap)
                report.updates.noteTypes.append(decision)
                if decision.action == .added || decision.action == .copied { report.noteTypesAdded += 1 }
            }
            let cardsBefore = session.cardsAdded, reviewsBefore = session.reviewsAdded

            try reader.forEachNoteWithAllCards { note, cards, reviews in
                report.notesRead += 1
                if !note.guid.isEmpty {
                    let first: Bool
                    if let repeated, repeated.isEmpty || !repeated.contains(note.guid) {
                        first = true
                    } else {
                        first = seen.insert(note.guid).inserted
                    }
                    guard first else {
                        report.duplicatesSkipped += 1
                        return
                    }
                }
                guard let (typeKey, type, remap) = types[note.noteTypeID] else {
                    throw InterchangeError(.malformed, path: url.path, reason: "notes.mid of note \(note.id) names no note type of the package")
                }
                var fields = note.fields
                if !renames.isEmpty { fields = fields.map(renames.apply(to:)) }
                var record = try check.note(note, fields: fields, type: type, typeKey: typeKey)
                // A note type merged into the deck's: its values in the merged type's order.
                if let remap { record.fields = remap.fieldValues(record.fields) }
                if !media.names.isEmpty {
                    var linked: Set<String> = []
                    for field in fields {
                        for name in MediaNames.references(in: field) where media.names.contains(name) && linked.insert(name).inserted {
                            record.media.append(name)
                        }
                    }
                }
                var byCard: [Int64: [ImportReview]] = [:]
                for review in reviews { byCard[review.cardID, default: []].append(try check.review(review)) }
                for card in cards {
                    var cardRecord = try check.card(card, of: type, note: note, dayShift: dayShift,
                                                    deck: deckKeys[card.deckID] ?? defaultDeck,
                                                    originalDeck: card.originalDeckID == 0 ? nil : deckKeys[card.originalDeckID] ?? defaultDeck)
                    cardRecord.reviews = byCard[card.id] ?? []
                    if let remap { cardRecord.ordinal = remap.ordinal(cardRecord.ordinal) }
                    record.cards.append(cardRecord)
                }
                do {
                    if let saved = try session.savedNote(guid: note.guid) {
                        let outcome = try session.update(saved, with: record, policy: update)
                        report.updates.record(outcome, guid: note.guid, text: fields.first ?? "")
                    } else {
                        try session.add(record)
                        report.notesAdded += 1
                    }
                } catch let error as NoteInputError {
                    throw InterchangeError(.malformed, path: url.path, reason: "note \(note.id): \(error.message)")
                }
            }
            report.cardsAdded = session.cardsAdded - cardsBefore
            report.reviews = session.reviewsAdded - reviewsBefore
            try session.collapseTags(reader.collapsedTags)
        }
        return report
    }

    /// Days to add to a day number counted from `creation` to count it from `dayZero`.
    static func dayShift(from creation: Int64, to dayZero: Int64) -> Int64 {
        let difference = Double(creation) - Double(dayZero)
        return Int64((difference / 86_400).rounded())
    }

    static func object(_ json: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
    }

    /// The media of the package stored in the deck: the names notes may refer to, and the
    /// names that sanitising changed (old → new), which the fields are rewritten with.
    private func importMedia(of reader: AnkiPackageReader, into document: DeckDocument,
                             report: inout AnkiImportReport) throws -> (names: Set<String>, renamed: [String: String]) {
        guard !reader.media.isEmpty else { return ([], [:]) }
        var names: Set<String> = []
        var renamed: [String: String] = [:]
        var stored: Set<String> = []
        let missing = try reader.forEachMediaFile { item, data in
            let clean = MediaNames.sanitized(item.name)
            // Anki's media checksum: the package's (current layout), else computed (legacy layouts).
            let sha1 = SHA1.hex(data)
            if let recorded = item.sha1, recorded.map({ String(format: "%02x", $0) }).joined() != sha1 {
                throw InterchangeError(.malformed, path: reader.url.path,
                                       reason: "media \(item.entryName) (\(item.name)): its bytes differ from the SHA-1 the package lists")
            }
            let reference = try document.addMedia(data, originalName: clean, sha1: sha1)
            if reference.originalName != item.name { renamed[item.name] = reference.originalName }
            if names.insert(reference.originalName).inserted { report.mediaNames += 1 }
            if stored.insert(reference.fileName).inserted { report.mediaFiles += 1 }
        }
        report.missingMedia = missing.count
        return (names, renamed)
    }
}
