import Anki
import DeckDocument
import Foundation

/// The values of an Anki package checked against the ranges Anki writes and converted to the
/// deck's records (docs/FORMAT.md). A value out of range is refused with ``InterchangeError``
/// `malformed`, naming the package and the column (`cards.due of card 17 is out of range`):
/// the package is untrusted, and nothing of it is added then.
struct AnkiValueCheck {
    /// The package's path, for errors.
    let path: String

    static let int32Range = Int64(Int32.min) ... Int64(Int32.max)
    static let countRange = 0 ... Int64(Int32.max)
    static let factorRange: ClosedRange<Int64> = 0 ... 100_000
    static let secondsRange = Int64(CardValueLimits.dates.lowerBound) ... AnkiCollection.maximumTime
    static let millisecondsRange = Int64(CardValueLimits.dates.lowerBound) * 1000 ... AnkiCollection.maximumTime * 1000 + 999
    static let answerTimeRange: ClosedRange<Int64> = 0 ... 86_400_000
    /// Anki's card ordinals: templates, or cloze numbers 1–500 minus one.
    static let ordinalRange = 0 ... 499

    /// What a refusal names (`card 17`): made into text only when there is one (every note,
    /// card and review of a package is checked; the text of each was 1.5 % of an import).
    struct Subject: CustomStringConvertible {
        let kind: String
        let id: Int64
        var description: String { "\(kind) \(id)" }
    }

    func refuse(_ column: String, _ what: Subject) -> InterchangeError {
        InterchangeError(.malformed, path: path, reason: "\(column) of \(what) is out of range")
    }

    /// A date of Anki's seconds, checked.
    func date(_ seconds: Int64, _ column: String, _ what: Subject) throws -> Date {
        guard Self.secondsRange.contains(seconds) else { throw refuse(column, what) }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    static func json(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: Presets, decks, note types

    func preset(_ preset: AnkiPreset, usesFSRS: Bool) throws -> ImportPreset {
        let what = Subject(kind: "preset", id: preset.id)
        var record = ImportPreset(name: preset.name)
        func count(_ value: Int, _ column: String) throws -> Int {
            guard Self.countRange.contains(Int64(value)) else { throw refuse("deck_config.\(column)", what) }
            return value
        }
        func steps(_ values: [Double], _ column: String) throws -> String {
            guard values.allSatisfy({ $0.isFinite && $0 > 0 && $0 < 1e9 }) else { throw refuse("deck_config.\(column)", what) }
            return Self.json(values)
        }
        func factor(_ value: Double, _ column: String) throws -> Double {
            guard value.isFinite, (0...1000).contains(value) else { throw refuse("deck_config.\(column)", what) }
            return value
        }
        record.newPerDay = try count(preset.newPerDay, "new.perDay")
        record.reviewsPerDay = try count(preset.reviewsPerDay, "rev.perDay")
        record.learningSteps = try steps(preset.learningSteps, "new.delays")
        record.relearningSteps = try steps(preset.relearningSteps, "lapse.delays")
        record.maximumInterval = max(1, try count(preset.maximumInterval, "rev.maxIvl"))
        record.usesFSRS = usesFSRS
        guard preset.fsrsParameters.allSatisfy(\.isFinite), preset.fsrsParameters.count <= 64 else {
            throw refuse("deck_config.fsrsParams", what)
        }
        record.fsrsParameters = Self.json(preset.fsrsParameters)
        guard preset.desiredRetention > 0, preset.desiredRetention < 1 else { throw refuse("deck_config.desiredRetention", what) }
        record.desiredRetention = preset.desiredRetention
        // An ease in permille, as a card's (`cards.factor`): the scheduler gives it to new cards.
        guard AnkiScheduling.factorRange.contains(Int64(preset.startingEase)) else { throw refuse("deck_config.new.initialFactor", what) }
        record.startingEase = preset.startingEase
        record.graduatingInterval = try count(preset.graduatingInterval, "new.ints")
        record.easyInterval = try count(preset.easyInterval, "new.ints")
        record.easyBonus = try factor(preset.easyBonus, "rev.ease4")
        record.hardMultiplier = try factor(preset.hardMultiplier, "rev.hardFactor")
        record.intervalMultiplier = try factor(preset.intervalMultiplier, "rev.ivlFct")
        record.lapseMultiplier = try factor(preset.lapseMultiplier, "lapse.mult")
        record.minimumLapseInterval = try count(preset.minimumLapseInterval, "lapse.minInt")
        record.leechThreshold = try count(preset.leechThreshold, "lapse.leechFails")
        record.buryNewSiblings = preset.buryNewSiblings
        record.buryReviewSiblings = preset.buryReviewSiblings
        record.buryInterdaySiblings = preset.buryInterdaySiblings
        record.modified = try date(preset.modified, "deck_config.mod", what)
        record.ankiID = preset.id
        record.options = preset.options
        return record
    }

    func deck(_ deck: AnkiDeck) throws -> ImportDeck {
        let what = Subject(kind: "deck", id: deck.id)
        var record = ImportDeck(name: deck.name)
        record.kind = deck.isFiltered ? .filtered : .normal
        record.description = deck.description
        record.markdownDescription = deck.markdownDescription
        record.collapsed = deck.collapsed
        if deck.isFiltered {
            guard deck.filterTerms.allSatisfy({ Self.countRange.contains(Int64($0.limit)) && (0...100).contains($0.order) }) else {
                throw refuse("decks.terms", what)
            }
            record.filterTerms = Self.json(deck.filterTerms.map { ["search": $0.search, "limit": $0.limit, "order": $0.order] as [String: Any] })
        }
        record.reschedules = deck.reschedules
        record.modified = try date(deck.modified, "decks.mod", what)
        record.ankiID = deck.id
        record.options = deck.options
        return record
    }

    func noteType(_ type: AnkiNoteType) throws -> ImportNoteType {
        let what = Subject(kind: "note type", id: type.id)
        guard !type.fields.isEmpty else { throw refuse("notetypes.flds (no fields)", what) }
        guard !type.templates.isEmpty else { throw refuse("notetypes.tmpls (no templates)", what) }
        guard type.fields.count <= 1000, type.templates.count <= 1000 else { throw refuse("notetypes.flds", what) }
        var record = ImportNoteType(name: type.name, kind: type.kind == .cloze ? .cloze : .standard, fields: [], templates: [])
        if type.stockKind != .unknown {
            guard let stock = DeckSchemaV2.StockKind(rawValue: type.stockKind.rawValue) else { throw refuse("notetypes.originalStockKind", what) }
            record.stockKind = stock
        } else {
            record.stockKind = Self.stockKind(byStructure: type)
        }
        record.css = type.css
        guard type.fields.indices.contains(type.sortFieldIndex) else { throw refuse("notetypes.sortf", what) }
        record.sortField = type.sortFieldIndex
        record.latexPre = type.latexPre
        record.latexPost = type.latexPost
        record.latexSVG = type.latexSVG
        record.modified = try date(type.modified, "notetypes.mod", what)
        record.ankiID = type.id
        record.options = type.options
        for field in type.fields {
            guard !field.name.isEmpty else { throw refuse("fields.name (empty)", what) }
            guard (0...10_000).contains(field.fontSize) else { throw refuse("fields.size", what) }
            var made = ImportNoteType.Field(name: field.name)
            made.font = field.font
            made.fontSize = field.fontSize
            made.rightToLeft = field.rightToLeft
            made.sticky = field.sticky
            made.plainText = field.plainText
            made.collapsed = field.collapsed
            made.excludeFromSearch = field.excludeFromSearch
            made.description = field.description
            made.ankiID = field.id
            made.options = field.options
            record.fields.append(made)
        }
        for template in type.templates {
            guard (0...10_000).contains(template.browserFontSize) else { throw refuse("templates.bsize", what) }
            var made = ImportNoteType.Template(name: template.name, questionFormat: template.questionFormat,
                                               answerFormat: template.answerFormat)
            made.browserQuestionFormat = template.browserQuestionFormat
            made.browserAnswerFormat = template.browserAnswerFormat
            made.browserFont = template.browserFont
            made.browserFontSize = template.browserFontSize
            made.modified = try date(template.modified, "templates.mod", what)
            made.ankiID = template.id
            made.options = template.options
            record.templates.append(made)
        }
        return record
    }

    /// The stock kind of a type that doesn't record one (schema-11 packages of Anki before
    /// 2.1.64, genanki), from its structure as Anki's stock types have it: a cloze type is
    /// Cloze; two fields with one template asking the first, Basic; two templates asking the
    /// first then the second, Basic (and reversed card); anything else, none.
    static func stockKind(byStructure type: AnkiNoteType) -> DeckSchemaV2.StockKind? {
        if type.kind == .cloze { return .cloze }
        guard type.fields.count == 2 else { return nil }
        let first = type.fields[0].name, second = type.fields[1].name
        if type.templates.count == 1, asks(type.templates[0].questionFormat, for: first) { return .basic }
        if type.templates.count == 2, asks(type.templates[0].questionFormat, for: first),
           asks(type.templates[1].questionFormat, for: second) { return .basicAndReversed }
        return nil
    }

    /// Whether a question template shows `field` (`{{Front}}`, `{{ Front }}`, `{{text:Front}}`).
    static func asks(_ template: String, for field: String) -> Bool {
        var rest = Substring(template)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { return false }
            var name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            if let colon = name.lastIndex(of: ":") { name = String(name[name.index(after: colon)...]) }
            if name == field { return true }
            rest = rest[close.upperBound...]
        }
        return false
    }

    // MARK: Notes, cards, reviews

    /// Whether `guid` is one the format stores: 1–64 printable ASCII characters other than space.
    static func isStorable(guid: String) -> Bool {
        !guid.isEmpty && guid.utf8.count <= 64 && guid.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    func note(_ note: AnkiNote, fields: [String], type: AnkiNoteType, typeKey: Int64) throws -> ImportNote {
        let what = Subject(kind: "note", id: note.id)
        let guid = note.guid.isEmpty ? AnkiNote.newGUID() : note.guid
        guard Self.isStorable(guid: guid) else { throw refuse("notes.guid", what) }
        // More values than the type has fields (a type edited without its notes): the extra
        // ones are kept, appended to the last field with "; " between (nothing is dropped).
        var values = fields
        if values.count > type.fields.count {
            let extra = values[(type.fields.count - 1)...].filter { !$0.isEmpty }
            values = Array(values.prefix(type.fields.count - 1)) + [extra.joined(separator: "; ")]
        }
        let modified = try date(note.modified, "notes.mod", what)
        var record = ImportNote(noteType: typeKey, guid: guid, fields: values,
                                created: Self.creationDate(id: note.id, fallback: modified), modified: modified)
        record.ankiID = note.id
        record.tags = note.tags
        return record
    }

    /// A millisecond id's date when it is a plausible time (after 2001), else `fallback`.
    static func creationDate(id: Int64, fallback: Date) -> Date {
        if id > 978_307_200_000, id < 32_503_680_000_000 { return Date(timeIntervalSince1970: TimeInterval(id) / 1000) }
        return fallback
    }

    /// Whether a `due` (or `odue`) of a card in `queue` with `type` is a day number: review and
    /// interday-learning queues, and cards set aside (suspended, buried) or in a filtered deck's
    /// original deck whose type is review, or learning with a due too small for a Unix time.
    static func isDayNumber(due: Int64, queue: Int, type: Int) -> Bool {
        switch queue {
        case 2, 3: return true
        case 0, 1, 4: return false
        default:
            switch type {
            case 2: return true
            case 1, 3: return due < 1_000_000_000
            default: return false
            }
        }
    }

    func card(_ card: AnkiCard, of type: AnkiNoteType, note: AnkiNote, dayShift: Int64, deck: Int64,
              originalDeck: Int64?) throws -> ImportCard {
        let what = Subject(kind: "card", id: card.id)
        guard Self.int32Range.contains(card.interval) else { throw refuse("cards.ivl", what) }
        guard Self.int32Range.contains(card.due) else { throw refuse("cards.due", what) }
        guard Self.int32Range.contains(card.originalDue) else { throw refuse("cards.odue", what) }
        guard Self.factorRange.contains(card.factor) else { throw refuse("cards.factor", what) }
        guard Self.countRange.contains(card.reps) else { throw refuse("cards.reps", what) }
        guard Self.countRange.contains(card.lapses) else { throw refuse("cards.lapses", what) }
        guard Self.int32Range.contains(card.left) else { throw refuse("cards.left", what) }
        guard (0...7).contains(card.flags) else { throw refuse("cards.flags", what) }
        guard let cardType = DeckSchemaV2.CardType(rawValue: card.type.rawValue) else { throw refuse("cards.type", what) }
        guard let queue = DeckSchemaV2.CardQueue(rawValue: card.queue.rawValue) else { throw refuse("cards.queue", what) }
        let ordinals = type.kind == .cloze ? Self.ordinalRange : 0 ... type.templates.count - 1
        guard ordinals.contains(card.ordinal) else { throw refuse("cards.ord", what) }
        if let stability = card.stability, !(stability.isFinite && stability > 0 && stability < 1e12) { throw refuse("cards.data (s)", what) }
        if let difficulty = card.difficulty, !(1...10).contains(difficulty) { throw refuse("cards.data (d)", what) }
        if let retention = card.desiredRetention, !(retention > 0 && retention < 1) { throw refuse("cards.data (dr)", what) }
        if let decay = card.decay, !decay.isFinite { throw refuse("cards.data (decay)", what) }
        if let last = card.lastReview, !Self.secondsRange.contains(last) { throw refuse("cards.data (lrt)", what) }
        if let position = card.originalPosition, !Self.countRange.contains(position) { throw refuse("cards.data (pos)", what) }
        let modified = try date(card.modified, "cards.mod", what)
        // A learning card's due is a Unix time: it must be a date.
        if !Self.isDayNumber(due: card.due, queue: card.queue.rawValue, type: card.type.rawValue),
           queue == .learning || queue == .preview, !Self.secondsRange.contains(card.due) { throw refuse("cards.due", what) }

        var record = ImportCard(ordinal: card.ordinal, deck: deck, created: Self.creationDate(id: card.id, fallback: modified),
                                modified: modified)
        record.originalDeck = originalDeck
        record.type = cardType
        record.queue = queue
        // In a filtered deck, `due` is the filtered deck's (often a negative position) and
        // `odue` the original deck's, read by the card's type.
        let filtered = card.originalDeckID != 0
        record.due = !filtered && Self.isDayNumber(due: card.due, queue: card.queue.rawValue, type: card.type.rawValue)
            ? card.due + dayShift : card.due
        if filtered, card.originalDue != 0,
           Self.isDayNumber(due: card.originalDue, queue: card.type.rawValue == 2 ? 2 : -1, type: card.type.rawValue) {
            record.originalDue = card.originalDue + dayShift
        } else {
            record.originalDue = card.originalDue
        }
        record.interval = Int(max(0, card.interval))
        record.easeFactor = Int(card.factor)
        record.repetitions = Int(card.reps)
        record.lapses = Int(card.lapses)
        record.remainingSteps = Int(max(0, card.left))
        record.flag = card.flags
        record.stability = card.stability
        record.difficulty = card.difficulty
        record.desiredRetention = card.desiredRetention
        record.decay = card.decay
        record.lastReview = card.lastReview
        record.originalPosition = card.originalPosition
        if !card.customData.isEmpty {
            guard (try? JSONSerialization.jsonObject(with: Data(card.customData.utf8))) is [String: Any] else {
                throw refuse("cards.data (cd)", what)
            }
        }
        record.customData = card.customData
        record.ankiID = card.id
        record.options = card.otherData
        return record
    }

    func review(_ review: AnkiReview) throws -> ImportReview {
        let what = Subject(kind: "review", id: review.id)
        guard Self.millisecondsRange.contains(review.id) else { throw refuse("revlog.id", what) }
        guard CardValueLimits.answers.contains(review.ease) else { throw refuse("revlog.ease", what) }
        guard Self.int32Range.contains(review.interval) else { throw refuse("revlog.ivl", what) }
        guard Self.int32Range.contains(review.lastInterval) else { throw refuse("revlog.lastIvl", what) }
        guard Self.int32Range.contains(review.factor) else { throw refuse("revlog.factor", what) }
        guard Self.answerTimeRange.contains(review.timeTaken) else { throw refuse("revlog.time", what) }
        guard let kind = DeckSchemaV2.ReviewKind(rawValue: review.kind.rawValue) else { throw refuse("revlog.type", what) }
        return ImportReview(time: review.id, rating: review.ease, interval: Int(review.interval),
                            lastInterval: Int(review.lastInterval), easeFactor: Int(review.factor),
                            duration: Int(review.timeTaken), kind: kind)
    }
}
