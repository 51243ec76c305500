import Anki
import DeckDocument
import Foundation

/// Exports a deck as a legacy Anki package (`.apkg`) that current Anki imports.
///
/// | card kind | Anki note type | fields |
/// | --- | --- | --- |
/// | basic | Basic | Front = front, Back = back |
/// | reversible | Basic (and reversed card) | Front = front, Back = back |
/// | cloze | Cloze | Text = cloze text, Back Extra = back |
///
/// Tags go as Anki tags (spaces become `_`), ``Card/deckPath`` as the Anki deck (the deck's
/// title when a card has none), media files under their original names, and a scheduled card
/// as a review card (due day, interval, ease, repetitions, lapses) with its review history on
/// its first Anki card. A card's ``Card/ankiGUID`` is kept, so a deck that came from Anki goes
/// back as the same notes.
///
/// Cost: one pass over the cards (see ``DeckDocument/forEachCardSnapshot(_:)``), media files
/// streamed into the zip; the package appears at its destination only when complete.
public struct AnkiExporter: Sendable {
    /// The package layout and compression.
    public var options: AnkiPackageWriter.Options

    /// Creates an exporter.
    public init(options: AnkiPackageWriter.Options = .init()) {
        self.options = options
    }

    /// The ids of the three note types written (stable, so Anki recognises them on a second import).
    static let basicTypeID: Int64 = 1_735_689_600_001
    static let reversibleTypeID: Int64 = 1_735_689_600_002
    static let clozeTypeID: Int64 = 1_735_689_600_003

    /// Writes the saved cards of `document` to `url`.
    /// - Throws: `AnkiError` when the package can't be written (nothing is left at `url`);
    ///   the store's error when reading fails.
    @discardableResult
    public func export(_ document: DeckDocument, to url: URL) throws -> AnkiExportReport {
        let writer = try AnkiPackageWriter(url: url, options: options)
        var finished = false
        defer { if !finished { writer.cancel() } }
        try writer.addNoteType(.basic(id: Self.basicTypeID, name: "Basic"))
        try writer.addNoteType(.basicAndReversed(id: Self.reversibleTypeID))
        try writer.addNoteType(.cloze(id: Self.clozeTypeID))
        var report = AnkiExportReport()

        // Media under their original names (made unique), streamed from the package.
        var usedNames: Set<String> = []
        for media in try document.allMedia() {
            var name = MediaNames.sanitized(media.originalName.isEmpty ? media.fileName : media.originalName)
            if usedNames.contains(name) {
                let ext = (name as NSString).pathExtension
                let stem = (name as NSString).deletingPathExtension
                name = "\(stem)-\(media.sha256.prefix(8))" + (ext.isEmpty ? "" : ".\(ext)")
            }
            usedNames.insert(name)
            try writer.addMedia(name: name, contentsOf: document.verifiedMediaFileURL(named: media.fileName))
            report.media += 1
        }

        let title = document.manifest.title.isEmpty ? "Default" : document.manifest.title
        var deckIDs: [String: Int64] = [:]
        var deckIDsByPath: [String?: Int64] = [:]
        var nextDeckID = options.creationTime * 1000 + 1
        func deckID(for path: String?) throws -> Int64 {
            if let id = deckIDsByPath[path] { return id }
            let name = Self.deckName(path ?? title)
            if let id = deckIDs[name] {
                deckIDsByPath[path] = id
                return id
            }
            let id = nextDeckID
            nextDeckID += 1
            try writer.addDeck(AnkiDeck(id: id, name: name, description: path == nil ? (try document.deckDescription()) : ""))
            deckIDs[name] = id
            deckIDsByPath[path] = id
            return id
        }

        var reviewIDs: Set<Int64> = []
        try document.forEachCardSnapshot { card in
            let deck = try deckID(for: card.deckPath)
            let typeID: Int64
            let fields: [String]
            switch card.kind {
            case .basic: (typeID, fields) = (Self.basicTypeID, [card.front, card.back])
            case .reversible: (typeID, fields) = (Self.reversibleTypeID, [card.front, card.back])
            case .cloze: (typeID, fields) = (Self.clozeTypeID, [card.text ?? card.front, card.back])
            }
            let note = AnkiNote(id: 0, guid: card.ankiGUID ?? "", noteTypeID: typeID,
                                modified: Int64(saturating: card.modified.timeIntervalSince1970, rounding: .down),
                                tags: Self.ankiTags(card.tags), fields: fields)
            report.notes += 1
            if card.due == nil && card.reviews.isEmpty && card.repetitions == 0 {
                report.cards += try writer.addNote(note, generatingCardsIn: deck).cards.count
                return
            }
            let written = try writer.addNote(note)
            let ordinals: [Int] = switch card.kind {
            case .basic: [0]
            case .reversible: [0, 1]
            case .cloze: Self.clozeOrdinals(in: fields[0])
            }
            var firstCardID: Int64 = 0
            for ordinal in ordinals {
                let template = ordinal == ordinals[0]
                    ? AnkiScheduling.ankiCard(for: card, id: 0, noteID: written.id, deckID: deck, ordinal: ordinal,
                                              collectionCreation: options.creationTime)
                    : AnkiCard(id: 0, noteID: written.id, deckID: deck, ordinal: ordinal)
                let added = try writer.addCard(template)
                if firstCardID == 0 { firstCardID = added.id }
                report.cards += 1
            }
            var previous = 0
            let factor = Int64(saturating: card.ease * 1000)
            for review in card.reviews {
                var entry = AnkiScheduling.ankiReview(review, cardID: firstCardID, previousInterval: previous, factor: factor)
                while !reviewIDs.insert(entry.id).inserted { entry.id += 1 }
                try writer.addReview(entry)
                previous = review.interval
                report.reviews += 1
            }
        }
        try writer.finish()
        finished = true
        return report
    }

    /// A deck path as an Anki deck name: empty parts dropped, "Default" when nothing is left.
    static func deckName(_ path: String) -> String {
        let parts = path.components(separatedBy: "::").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return parts.isEmpty ? "Default" : parts.joined(separator: "::")
    }

    /// Tags as Anki spells them: no spaces (each run becomes `_`), no empties.
    static func ankiTags(_ tags: [String]) -> [String] {
        // Fast path: tags of plain ASCII without spaces (nearly all) go as they are.
        if tags.allSatisfy({ tag in !tag.isEmpty && tag.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } }) { return tags }
        return tags.map { $0.split(whereSeparator: \.isWhitespace).joined(separator: "_") }.filter { !$0.isEmpty }
    }

    /// The card ordinals of a cloze text: cloze number minus one, sorted; `[0]` when there is none.
    static func clozeOrdinals(in text: String) -> [Int] {
        var numbers: Set<Int> = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{c") {
            let digits = rest[open.upperBound...].prefix { $0.isASCII && $0.isNumber }
            let after = rest[open.upperBound...].dropFirst(digits.count)
            if let number = Int(digits), number > 0, number < 500, after.hasPrefix("::") { numbers.insert(number - 1) }
            rest = rest[open.upperBound...]
        }
        return numbers.isEmpty ? [0] : numbers.sorted()
    }
}

/// What an Anki export wrote.
public struct AnkiExportReport: Sendable, Hashable, Codable {
    /// Notes written (one per card of the deck).
    public var notes = 0
    /// Anki cards written (two for a reversible card, one per cloze number).
    public var cards = 0
    /// Media files written.
    public var media = 0
    /// Review-history entries written.
    public var reviews = 0

    /// Creates an empty report.
    public init() {}
}
