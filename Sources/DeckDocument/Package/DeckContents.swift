import Foundation

/// Everything of a version 2 deck but its notes, as plain values column for column (the
/// lossless JSON export's header; see ``DeckDocument/contents()`` and
/// ``DeckDocument/forEachNoteRecord(_:)``). Dates are Unix seconds exactly as stored; `id`s
/// are the store's keys, which references (`preset`, `deck`, `noteType`, `targetDeck`) use.
/// The property names are the JSON export's keys.
public struct DeckContents: Sendable, Hashable {
    public var title: String
    public var description: String
    public var dayZero: Int64
    public var dayStartsAt: Int
    public var ankiConfig: String
    public var presets: [PresetRecord]
    public var decks: [DeckRecord]
    public var noteTypes: [NoteTypeRecord]
    public var tags: [TagRecord]
    public var media: [MediaRecord]
    /// Reviews whose card is gone (Anki keeps review rows of deleted cards).
    public var detachedReviews: [ReviewRecord]

    public init(title: String, description: String = "", dayZero: Int64 = 0, dayStartsAt: Int = 4, ankiConfig: String = "{}",
                presets: [PresetRecord] = [], decks: [DeckRecord] = [], noteTypes: [NoteTypeRecord] = [],
                tags: [TagRecord] = [], media: [MediaRecord] = [], detachedReviews: [ReviewRecord] = []) {
        self.title = title
        self.description = description
        self.dayZero = dayZero
        self.dayStartsAt = dayStartsAt
        self.ankiConfig = ankiConfig
        self.presets = presets
        self.decks = decks
        self.noteTypes = noteTypes
        self.tags = tags
        self.media = media
        self.detachedReviews = detachedReviews
    }
}

/// A preset (``DeckSchemaV2/Preset``) column for column.
public struct PresetRecord: Sendable, Hashable, Codable {
    public var id: Int64
    public var name: String
    public var newPerDay: Int
    public var reviewsPerDay: Int
    public var learningSteps: String
    public var relearningSteps: String
    public var maximumInterval: Int
    public var usesFSRS: Bool
    public var fsrsParameters: String
    public var desiredRetention: Double
    public var startingEase: Int
    public var graduatingInterval: Int
    public var easyInterval: Int
    public var easyBonus: Double
    public var hardMultiplier: Double
    public var intervalMultiplier: Double
    public var lapseMultiplier: Double
    public var minimumLapseInterval: Int
    public var leechThreshold: Int
    public var buryNewSiblings: Bool
    public var buryReviewSiblings: Bool
    public var buryInterdaySiblings: Bool
    public var modified: Double
    public var ankiID: Int64?
    public var ankiOptions: String

    public init(id: Int64, name: String, newPerDay: Int, reviewsPerDay: Int, learningSteps: String, relearningSteps: String, maximumInterval: Int, usesFSRS: Bool, fsrsParameters: String, desiredRetention: Double, startingEase: Int, graduatingInterval: Int, easyInterval: Int, easyBonus: Double, hardMultiplier: Double, intervalMultiplier: Double, lapseMultiplier: Double, minimumLapseInterval: Int, leechThreshold: Int, buryNewSiblings: Bool, buryReviewSiblings: Bool, buryInterdaySiblings: Bool, modified: Double, ankiID: Int64? = nil, ankiOptions: String) {
        self.id = id
        self.name = name
        self.newPerDay = newPerDay
        self.reviewsPerDay = reviewsPerDay
        self.learningSteps = learningSteps
        self.relearningSteps = relearningSteps
        self.maximumInterval = maximumInterval
        self.usesFSRS = usesFSRS
        self.fsrsParameters = fsrsParameters
        self.desiredRetention = desiredRetention
        self.startingEase = startingEase
        self.graduatingInterval = graduatingInterval
        self.easyInterval = easyInterval
        self.easyBonus = easyBonus
        self.hardMultiplier = hardMultiplier
        self.intervalMultiplier = intervalMultiplier
        self.lapseMultiplier = lapseMultiplier
        self.minimumLapseInterval = minimumLapseInterval
        self.leechThreshold = leechThreshold
        self.buryNewSiblings = buryNewSiblings
        self.buryReviewSiblings = buryReviewSiblings
        self.buryInterdaySiblings = buryInterdaySiblings
        self.modified = modified
        self.ankiID = ankiID
        self.ankiOptions = ankiOptions
    }
}

/// A deck of the tree (``DeckSchemaV2/Deck``) column for column; `preset` is a preset's `id`.
public struct DeckRecord: Sendable, Hashable, Codable {
    public var id: Int64
    public var name: String
    public var kind: Int
    public var description: String
    public var markdownDescription: Bool
    public var collapsed: Bool
    public var filterTerms: String
    public var reschedules: Bool
    public var modified: Double
    public var ankiID: Int64?
    public var ankiOptions: String
    public var preset: Int64?

    public init(id: Int64, name: String, kind: Int, description: String, markdownDescription: Bool, collapsed: Bool, filterTerms: String, reschedules: Bool, modified: Double, ankiID: Int64? = nil, ankiOptions: String, preset: Int64? = nil) {
        self.id = id
        self.name = name
        self.kind = kind
        self.description = description
        self.markdownDescription = markdownDescription
        self.collapsed = collapsed
        self.filterTerms = filterTerms
        self.reschedules = reschedules
        self.modified = modified
        self.ankiID = ankiID
        self.ankiOptions = ankiOptions
        self.preset = preset
    }
}

/// A note type with its fields and templates, column for column.
public struct NoteTypeRecord: Sendable, Hashable, Codable {
    public var id: Int64
    public var name: String
    public var kind: Int
    public var stockKind: Int?
    public var css: String
    public var sortField: Int
    public var latexPre: String
    public var latexPost: String
    public var latexSVG: Bool
    public var modified: Double
    public var ankiID: Int64?
    public var ankiOptions: String
    public var fields: [FieldRecord]
    public var templates: [TemplateRecord]

    public init(id: Int64, name: String, kind: Int, stockKind: Int? = nil, css: String, sortField: Int, latexPre: String, latexPost: String, latexSVG: Bool, modified: Double, ankiID: Int64? = nil, ankiOptions: String, fields: [FieldRecord], templates: [TemplateRecord]) {
        self.id = id
        self.name = name
        self.kind = kind
        self.stockKind = stockKind
        self.css = css
        self.sortField = sortField
        self.latexPre = latexPre
        self.latexPost = latexPost
        self.latexSVG = latexSVG
        self.modified = modified
        self.ankiID = ankiID
        self.ankiOptions = ankiOptions
        self.fields = fields
        self.templates = templates
    }
}

/// One field of a note type.
public struct FieldRecord: Sendable, Hashable, Codable {
    public var ordinal: Int
    public var name: String
    public var font: String
    public var fontSize: Int
    public var rightToLeft: Bool
    public var sticky: Bool
    public var plainText: Bool
    public var collapsed: Bool
    public var excludeFromSearch: Bool
    public var description: String
    public var ankiID: Int64?
    public var ankiOptions: String

    public init(ordinal: Int, name: String, font: String, fontSize: Int, rightToLeft: Bool, sticky: Bool, plainText: Bool, collapsed: Bool, excludeFromSearch: Bool, description: String, ankiID: Int64? = nil, ankiOptions: String) {
        self.ordinal = ordinal
        self.name = name
        self.font = font
        self.fontSize = fontSize
        self.rightToLeft = rightToLeft
        self.sticky = sticky
        self.plainText = plainText
        self.collapsed = collapsed
        self.excludeFromSearch = excludeFromSearch
        self.description = description
        self.ankiID = ankiID
        self.ankiOptions = ankiOptions
    }
}

/// One card template of a note type; `targetDeck` is a deck's `id`.
public struct TemplateRecord: Sendable, Hashable, Codable {
    public var ordinal: Int
    public var name: String
    public var questionFormat: String
    public var answerFormat: String
    public var browserQuestionFormat: String
    public var browserAnswerFormat: String
    public var browserFont: String
    public var browserFontSize: Int
    public var modified: Double
    public var ankiID: Int64?
    public var ankiOptions: String
    public var targetDeck: Int64?

    public init(ordinal: Int, name: String, questionFormat: String, answerFormat: String, browserQuestionFormat: String, browserAnswerFormat: String, browserFont: String, browserFontSize: Int, modified: Double, ankiID: Int64? = nil, ankiOptions: String, targetDeck: Int64? = nil) {
        self.ordinal = ordinal
        self.name = name
        self.questionFormat = questionFormat
        self.answerFormat = answerFormat
        self.browserQuestionFormat = browserQuestionFormat
        self.browserAnswerFormat = browserAnswerFormat
        self.browserFont = browserFont
        self.browserFontSize = browserFontSize
        self.modified = modified
        self.ankiID = ankiID
        self.ankiOptions = ankiOptions
        self.targetDeck = targetDeck
    }
}

/// A tag.
public struct TagRecord: Sendable, Hashable, Codable {
    public var name: String
    public var collapsed: Bool

    public init(name: String, collapsed: Bool) {
        self.name = name
        self.collapsed = collapsed
    }
}

/// A media file with every name notes use for it.
public struct MediaRecord: Sendable, Hashable, Codable {
    public var fileName: String
    public var sha256: String
    public var sha1: String
    public var mime: String
    public var size: Int
    public var names: [String]

    public init(fileName: String, sha256: String, sha1: String, mime: String, size: Int, names: [String]) {
        self.fileName = fileName
        self.sha256 = sha256
        self.sha1 = sha1
        self.mime = mime
        self.size = size
        self.names = names
    }
}

/// A note with its cards: field values in the type's field order, tag and media names sorted.
public struct NoteRecord: Sendable, Hashable {
    public var id: Int64
    public var guid: String
    public var noteType: Int64
    public var fields: [String]
    public var sortText: String
    public var created: Double
    public var modified: Double
    public var ankiID: Int64?
    public var tags: [String]
    public var media: [String]
    public var cards: [CardRecord]

    public init(id: Int64, guid: String, noteType: Int64, fields: [String], sortText: String, created: Double, modified: Double,
                ankiID: Int64?, tags: [String], media: [String], cards: [CardRecord]) {
        self.id = id
        self.guid = guid
        self.noteType = noteType
        self.fields = fields
        self.sortText = sortText
        self.created = created
        self.modified = modified
        self.ankiID = ankiID
        self.tags = tags
        self.media = media
        self.cards = cards
    }
}

/// A card column for column (Anki's encodings: see ``DeckSchemaV2/Card``), with its reviews.
public struct CardRecord: Sendable, Hashable, Codable {
    public var id: Int64
    public var ordinal: Int
    public var deck: Int64?
    public var originalDeck: Int64?
    public var type: Int
    public var queue: Int
    public var due: Int64
    public var interval: Int
    public var easeFactor: Int
    public var repetitions: Int
    public var lapses: Int
    public var remainingSteps: Int
    public var originalDue: Int64
    public var flag: Int
    public var stability: Double?
    public var difficulty: Double?
    public var desiredRetention: Double?
    public var decay: Double?
    public var lastReview: Int64?
    public var originalPosition: Int64?
    public var customData: String
    public var created: Double
    public var modified: Double
    public var ankiID: Int64?
    public var ankiOptions: String
    public var reviews: [ReviewRecord]

    public init(id: Int64, ordinal: Int, deck: Int64? = nil, originalDeck: Int64? = nil, type: Int, queue: Int, due: Int64, interval: Int, easeFactor: Int, repetitions: Int, lapses: Int, remainingSteps: Int, originalDue: Int64, flag: Int, stability: Double? = nil, difficulty: Double? = nil, desiredRetention: Double? = nil, decay: Double? = nil, lastReview: Int64? = nil, originalPosition: Int64? = nil, customData: String, created: Double, modified: Double, ankiID: Int64? = nil, ankiOptions: String, reviews: [ReviewRecord]) {
        self.id = id
        self.ordinal = ordinal
        self.deck = deck
        self.originalDeck = originalDeck
        self.type = type
        self.queue = queue
        self.due = due
        self.interval = interval
        self.easeFactor = easeFactor
        self.repetitions = repetitions
        self.lapses = lapses
        self.remainingSteps = remainingSteps
        self.originalDue = originalDue
        self.flag = flag
        self.stability = stability
        self.difficulty = difficulty
        self.desiredRetention = desiredRetention
        self.decay = decay
        self.lastReview = lastReview
        self.originalPosition = originalPosition
        self.customData = customData
        self.created = created
        self.modified = modified
        self.ankiID = ankiID
        self.ankiOptions = ankiOptions
        self.reviews = reviews
    }
}

/// A review-log row (``DeckSchemaV2/Review``).
public struct ReviewRecord: Sendable, Hashable, Codable {
    public var time: Int64
    public var rating: Int
    public var interval: Int
    public var lastInterval: Int
    public var easeFactor: Int
    public var duration: Int
    public var kind: Int
    public var ankiID: Int64?

    public init(time: Int64, rating: Int, interval: Int, lastInterval: Int, easeFactor: Int, duration: Int, kind: Int, ankiID: Int64? = nil) {
        self.time = time
        self.rating = rating
        self.interval = interval
        self.lastInterval = lastInterval
        self.easeFactor = easeFactor
        self.duration = duration
        self.kind = kind
        self.ankiID = ankiID
    }
}

/// What ``DeckDocument/restore(_:notes:mediaData:adoptsTitle:)`` did.
public struct RestoreReport: Sendable, Hashable {
    /// Whether the deck was empty and took the contents with their ids.
    public var restoredInPlace = false
    public var notesAdded = 0
    public var cardsAdded = 0
    /// Notes repeated in the contents (never: contents are checked for unique GUIDs first).
    public var duplicatesSkipped = 0
    /// Notes whose GUID was in the deck (a merge): updated, unchanged or skipped, and what became
    /// of the note types.
    public var updates = ImportUpdateCounts()
    public var reviews = 0
    public var mediaFiles = 0
    /// Media files whose bytes were neither given nor found.
    public var missingMedia = 0
    public init() {}
}
