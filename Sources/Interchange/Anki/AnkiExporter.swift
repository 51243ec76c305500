import Anki
import DeckDocument
import Foundation

/// Exports a deck as an Anki package (`.apkg`, or a whole collection `.colpkg`) that current
/// Anki imports with everything the deck holds.
///
/// What goes where (docs/INTERCHANGE.md, "Anki packages"):
/// - every note type as itself: fields with their options, templates (question, answer and
///   browser formats, browser font, target deck), CSS, sort field, LaTeX header and footer,
///   kind (standard, cloze; image occlusion is a cloze type whose `originalStockKind` is 6),
///   its Anki id and modification time, and the options kept verbatim (`ankiOptions`);
/// - every note with its stored GUID and Anki id, fields and tags;
/// - every card of every note with its full scheduling state as stored (type, queue, due,
///   interval, factor, reps, lapses, left, `odue`/`odid` in filtered decks, flag), its FSRS
///   memory state, desired retention, decay, last review, original position and custom data
///   in `cards.data`;
/// - the deck tree with descriptions, their presets as deck configs, filtered decks with their
///   terms; every review row as it is stored; every media name with its file's bytes.
///
/// The collection's `crt` is the deck's day zero (``DeckSchemaV2/DeckInfo/dayZero``), so
/// day-numbered due dates are written as stored. Ids are the ones stored (a note, card, note
/// type or deck made here gets its Anki id once, when first saved); one missing (a deck made
/// before ids were assigned) is derived from stored values, the same on every export. So
/// exporting an unchanged deck twice gives the same GUIDs and ids, and Anki updates the notes
/// of a second import instead of duplicating them.
///
/// Cost: one pass over the notes (``DeckDocument/forEachStoredNote(_:)``), holding one note and
/// the ids written; media files are streamed into the zip; the package appears at its
/// destination only when complete.
public struct AnkiExporter: Sendable {
    /// The package layout and compression (the collection's creation time is the deck's day zero).
    public var options: AnkiPackageWriter.Options

    /// Creates an exporter.
    /// Called with the number of notes written so far, now and then and once at the end (for a
    /// progress bar).
    public var progress: (@Sendable (Int) -> Void)?

    public init(options: AnkiPackageWriter.Options = .init()) {
        self.options = options
    }

    /// Base of the ids derived for note types, decks and presets that have none stored (their
    /// row key is added): fixed, so a deck exports the same ids every time.
    static let derivedNoteTypeBase: Int64 = 1_735_689_600_000
    static let derivedDeckBase: Int64 = 1_735_689_700_000
    static let derivedPresetBase: Int64 = 1_735_689_800_000

    /// Writes the saved contents of `document` to `url`.
    /// - Throws: `AnkiError` when the package can't be written (nothing is left at `url`);
    ///   `DeckError` when the store can't be read or holds what Anki can't take (a note whose
    ///   type is missing) or a value outside its column's range (nothing is left at `url` then).
    @discardableResult
    public func export(_ document: DeckDocument, to url: URL) throws -> AnkiExportReport {
        // The settings now; notes, cards and reviews as they are read (forEachStoredNote).
        try document.verifyValues(.settings)
        let info = try document.deckInfo()
        var options = options
        if let info { options.creationTime = info.dayZero }
        // Every value goes as stored, a modification time of 0 (Anki's stock note types) included.
        options.stampsZeroTimes = false
        let writer = try AnkiPackageWriter(url: url, options: options)
        var finished = false
        defer { if !finished { writer.cancel() } }
        var report = AnkiExportReport()

        // Presets (deck configs).
        let presets = try document.allPresets()
        let decks = try document.decksByName()
        var presetIDs: [Int64: Int64] = [:]
        let defaultPreset = decks.first { $0.name == "Default" }?.preset ?? presets.first
        let hasPresetOne = presets.contains { $0.ankiID == 1 }
        for preset in presets {
            let key = preset.persistentModelID.primaryKey
            let id = preset.ankiID ?? (!hasPresetOne && preset === defaultPreset ? 1 : Self.derivedPresetBase + key)
            presetIDs[key] = id
            try writer.addPreset(Self.ankiPreset(preset, id: id, deck: document.url))
            report.presets += 1
        }

        // Decks: ids first (templates and cards refer to them).
        var deckIDs: [Int64: Int64] = [:]
        var usedDeckIDs: Set<Int64> = []
        for deck in decks where deck.ankiID != nil {
            if let id = deck.ankiID, usedDeckIDs.insert(id).inserted { deckIDs[deck.persistentModelID.primaryKey] = id }
        }
        for deck in decks where deckIDs[deck.persistentModelID.primaryKey] == nil {
            let key = deck.persistentModelID.primaryKey
            var id = deck.name == "Default" && !usedDeckIDs.contains(1) ? 1 : Self.derivedDeckBase + key
            while !usedDeckIDs.insert(id).inserted { id += 1 }
            deckIDs[key] = id
        }
        for deck in decks {
            let key = deck.persistentModelID.primaryKey
            guard let id = deckIDs[key] else { continue }
            let presetID = deck.preset.flatMap { presetIDs[$0.persistentModelID.primaryKey] } ?? 1
            try writer.addDeck(Self.ankiDeck(deck, id: id, presetID: presetID, deck: document.url))
            report.decks += 1
        }

        // Note types: in an .apkg those notes use (as Anki exports them); in a .colpkg every one,
        // those in use first (a later type whose name is taken is renamed, as Anki does).
        var noteTypeIDs: [Int64: (id: Int64, fieldCount: Int)] = [:]
        let inUse = try document.noteTypeKeysInUse()
        let types = try document.noteTypes()
        let written = options.format.isCollectionPackage
            ? types.filter { inUse.contains($0.persistentModelID.primaryKey) } + types.filter { !inUse.contains($0.persistentModelID.primaryKey) }
            : types.filter { inUse.contains($0.persistentModelID.primaryKey) }
        for type in written {
            let key = type.persistentModelID.primaryKey
            let id = type.ankiID ?? Self.derivedNoteTypeBase + key
            let fields = type.fields.sorted { $0.ordinal < $1.ordinal }
            let value = Self.ankiNoteType(type, id: id) { deck in deck.flatMap { deckIDs[$0.persistentModelID.primaryKey] } ?? 0 }
            try writer.addNoteType(value)
            noteTypeIDs[key] = (id, fields.count)
            report.noteTypes += 1
        }

        // Tags collapsed in a browser's tree.
        try writer.collapseTags(try document.allTags().filter(\.collapsed).map(\.name))

        // Media: every name, with its file's bytes.
        for media in try document.allMedia() {
            let name = AnkiMedia.isSafeFileName(media.originalName) ? media.originalName : MediaNames.sanitized(media.originalName)
            try writer.addMedia(name: name, contentsOf: document.verifiedMediaFileURL(named: media.fileName))
            report.media += 1
        }

        // Notes, their cards and the cards' reviews.
        var noteIDs = StableIDs(), cardIDs = StableIDs()
        var reviewIDs: Set<Int64> = []
        var notes = 0
        try document.forEachStoredNote(verifyingValues: true) { note in
            notes += 1
            if notes & 63 == 0 { progress?(notes) }
            guard let type = noteTypeIDs[note.noteTypeKey] else {
                throw DeckError(path: document.storeURL.path, reason: "note \(note.pk) has no note type", kind: .corrupt)
            }
            var fields = note.fields
            if fields.count < type.fieldCount { fields += Array(repeating: "", count: type.fieldCount - fields.count) }
            let noteID = noteIDs.id(stored: note.ankiID, created: note.created)
            try writer.addNote(AnkiNote(id: noteID, guid: note.guid, noteTypeID: type.id, modified: Self.seconds(note.modified),
                                        tags: Self.ankiTags(note.tags), fields: fields))
            report.notes += 1
            for card in note.cards {
                let cardID = cardIDs.id(stored: card.ankiID, created: card.created)
                let anki = AnkiCard(
                    id: cardID, noteID: noteID, deckID: deckIDs[card.deckKey] ?? 1, ordinal: card.ordinal,
                    modified: Self.seconds(card.modified), type: .init(rawValue: card.type), queue: .init(rawValue: card.queue),
                    due: card.due, interval: Int64(card.interval), factor: Int64(card.easeFactor), reps: Int64(card.repetitions),
                    lapses: Int64(card.lapses), left: Int64(card.remainingSteps), originalDue: card.originalDue,
                    originalDeckID: card.originalDeckKey.flatMap { deckIDs[$0] } ?? 0, flags: card.flag,
                    stability: card.stability, difficulty: card.difficulty, desiredRetention: card.desiredRetention,
                    decay: card.decay, lastReview: card.lastReview, originalPosition: card.originalPosition,
                    customData: card.customData == "{}" ? "" : card.customData, otherData: card.ankiOptions)
                try writer.addCardAsGiven(anki)
                report.cards += 1
                for review in card.reviews {
                    var id = review.ankiID ?? review.time
                    while !reviewIDs.insert(id).inserted { id += 1 }
                    try writer.addReview(AnkiReview(id: id, cardID: cardID, ease: review.rating, interval: Int64(review.interval),
                                                    lastInterval: Int64(review.lastInterval), factor: Int64(review.easeFactor),
                                                    timeTaken: Int64(review.duration), kind: .init(rawValue: review.kind)))
                    report.reviews += 1
                }
            }
        }
        progress?(notes)

        // The collection's configuration (kept verbatim from Anki, with the day start).
        // An Anki collection's own configuration goes as it came; Anki's default day start (4)
        // is only written when the collection had the key or the deck starts its day elsewhere.
        let kept = Self.object(info?.ankiConfig)
        var configuration = kept ?? [:]
        if let info, configuration["rollover"] != nil || info.dayStartsAt != 4 { configuration["rollover"] = info.dayStartsAt }
        if configuration["fsrs"] == nil, let defaultPreset { configuration["fsrs"] = defaultPreset.usesFSRS }
        try writer.setConfiguration(legacyJSON: Self.json(configuration), replacingDefaults: !(kept ?? [:]).isEmpty)

        try writer.finish()
        finished = true
        return report
    }

    // MARK: Ids

    /// Note or card ids: the stored one, else one derived from the creation time (in
    /// milliseconds), raised past every id given so far when taken. Deterministic for a deck.
    struct StableIDs {
        private var used: Set<Int64> = []
        private var highest: Int64 = 0

        mutating func id(stored: Int64?, created: Date) -> Int64 {
            if let stored, used.insert(stored).inserted {
                highest = max(highest, stored)
                return stored
            }
            let milliseconds = created.timeIntervalSince1970 * 1000
            var candidate = milliseconds.isFinite && milliseconds >= 1 && milliseconds < 1e15 ? Int64(milliseconds) : highest + 1
            if !used.insert(candidate).inserted {
                candidate = max(highest, candidate) + 1
                while !used.insert(candidate).inserted { candidate += 1 }
            }
            highest = max(highest, candidate)
            return candidate
        }
    }

    // MARK: Anki values

    static func ankiNoteType(_ type: NoteType, id: Int64, deckID: (DeckSchemaV2.Deck?) -> Int64) -> AnkiNoteType {
        let fields = type.fields.sorted { $0.ordinal < $1.ordinal }
        let templates = type.templates.sorted { $0.ordinal < $1.ordinal }
        return AnkiNoteType(
            id: id, name: type.name, kind: type.kind == .cloze ? .cloze : .standard,
            fields: fields.enumerated().map { ordinal, field in
                AnkiNoteType.Field(name: field.name, ordinal: ordinal, font: field.font, fontSize: field.fontSize,
                                   rightToLeft: field.rightToLeft, sticky: field.sticky, plainText: field.plainText,
                                   collapsed: field.collapsed, excludeFromSearch: field.excludeFromSearch,
                                   description: field.fieldDescription, id: field.ankiID, options: field.ankiOptions)
            },
            templates: templates.enumerated().map { ordinal, template in
                AnkiNoteType.Template(name: template.name, ordinal: ordinal, questionFormat: template.questionFormat,
                                      answerFormat: template.answerFormat, browserQuestionFormat: template.browserQuestionFormat,
                                      browserAnswerFormat: template.browserAnswerFormat, browserFont: template.browserFont,
                                      browserFontSize: template.browserFontSize, targetDeckID: deckID(template.targetDeck),
                                      modified: seconds(template.modified), id: template.ankiID, options: template.ankiOptions)
            },
            css: type.css, sortFieldIndex: fields.isEmpty ? 0 : min(max(type.sortField, 0), fields.count - 1),
            stockKind: AnkiNoteType.StockKind(rawValue: type.stockKind?.rawValue ?? 0),
            latexPre: type.latexPre, latexPost: type.latexPost, latexSVG: type.latexSVG,
            modified: seconds(type.modified), options: type.ankiOptions)
    }

    static func ankiDeck(_ deck: DeckSchemaV2.Deck, id: Int64, presetID: Int64, deck url: URL) throws -> AnkiDeck {
        let terms: [[String: Any]] = try stored(deck.filterTerms, as: [[String: Any]].self,
                                                naming: "Deck \(deck.name).filterTerms", in: url)
        return AnkiDeck(
            id: id, name: deck.name, description: deck.deckDescription, isFiltered: deck.kind == .filtered, presetID: presetID,
            markdownDescription: deck.markdownDescription, collapsed: deck.collapsed,
            filterTerms: terms.map {
                AnkiDeck.FilterTerm(search: $0["search"] as? String ?? "", limit: ($0["limit"] as? NSNumber)?.intValue ?? 100,
                                    order: ($0["order"] as? NSNumber)?.intValue ?? 0)
            },
            reschedules: deck.reschedules, modified: seconds(deck.modified), options: deck.ankiOptions)
    }

    static func ankiPreset(_ preset: DeckSchemaV2.Preset, id: Int64, deck url: URL) throws -> AnkiPreset {
        func numbers(_ json: String, _ column: String) throws -> [Double] {
            try stored(json, as: [NSNumber].self, naming: "Preset \(preset.name).\(column)", in: url).map(\.doubleValue)
        }
        return try AnkiPreset(
            id: id, name: preset.name, modified: seconds(preset.modified), newPerDay: preset.newPerDay,
            reviewsPerDay: preset.reviewsPerDay, learningSteps: numbers(preset.learningSteps, "learningSteps"),
            relearningSteps: numbers(preset.relearningSteps, "relearningSteps"), maximumInterval: preset.maximumInterval,
            fsrsParameters: numbers(preset.fsrsParameters, "fsrsParameters"), desiredRetention: preset.desiredRetention,
            startingEase: preset.startingEase, graduatingInterval: preset.graduatingInterval, easyInterval: preset.easyInterval,
            easyBonus: preset.easyBonus, hardMultiplier: preset.hardMultiplier, intervalMultiplier: preset.intervalMultiplier,
            lapseMultiplier: preset.lapseMultiplier, minimumLapseInterval: preset.minimumLapseInterval,
            leechThreshold: preset.leechThreshold, buryNewSiblings: preset.buryNewSiblings,
            buryReviewSiblings: preset.buryReviewSiblings, buryInterdaySiblings: preset.buryInterdaySiblings,
            options: preset.ankiOptions)
    }

    // MARK: Helpers

    /// A JSON column of the deck read as `T`: an empty text is none, anything else that isn't
    /// JSON of that shape refuses the export (exit 65 naming the row and column) rather than
    /// leaving the value out of the package.
    static func stored<T>(_ text: String, as type: T.Type, naming column: String, in url: URL) throws -> T
    where T: RangeReplaceableCollection {
        guard !text.isEmpty else { return T() }
        guard let value = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? T else {
            throw DeckError(path: url.path, reason: "\(column) is not the JSON its column holds", kind: .corrupt)
        }
        return value
    }

    static func seconds(_ date: Date) -> Int64 {
        Int64(saturating: date.timeIntervalSince1970, rounding: .down)
    }

    /// A JSON object's text as a tree, nil when it isn't one.
    static func object(_ text: String?) -> [String: Any]? {
        guard let text, !text.isEmpty else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    static func json(_ object: [String: Any]) -> String {
        guard JSONSerialization.isValidJSONObject(object),
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Tags as Anki spells them: no spaces (each run becomes `_`), no empties.
    static func ankiTags(_ tags: [String]) -> [String] {
        // Fast path: tags of plain ASCII without spaces (nearly all) go as they are.
        if tags.allSatisfy({ tag in !tag.isEmpty && tag.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } }) { return tags }
        return tags.map { $0.split(whereSeparator: \.isWhitespace).joined(separator: "_") }.filter { !$0.isEmpty }
    }
}

/// What an Anki export wrote.
public struct AnkiExportReport: Sendable, Hashable, Codable {
    /// Notes written.
    public var notes = 0
    /// Anki cards written (every card of every note).
    public var cards = 0
    /// Media names written (a file under two names counts twice).
    public var media = 0
    /// Review-history rows written.
    public var reviews = 0
    /// Note types written.
    public var noteTypes = 0
    /// Decks written.
    public var decks = 0
    /// Presets (deck configs) written.
    public var presets = 0

    /// Creates an empty report.
    public init() {}
}
