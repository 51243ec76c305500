import Foundation
import Persistence
import PersistenceMacros

/// Format version 2 of the deck store: what real flash-card collections hold (docs/FORMAT.md).
///
/// Note types with ordered fields and card templates, notes with a stable GUID and ordered
/// field values, the cards each note generates with Anki's full scheduling state, a deck tree
/// with presets, the review log, hierarchical tags, and content-addressed media under every name.
/// Values follow Anki's own encodings (card type and queue numbers, `due` by queue, ease factor in
/// permille, review times in milliseconds), so a collection converts both ways without loss;
/// options this model does not name are kept verbatim as JSON text in the `ankiOptions` columns.
///
/// The models are declared with `@Model`, `@Attribute` and `@Relationship`, as a SwiftData app
/// declares its own (an inverse is named on one side only: naming it on both makes the macros
/// refer to each other, a circular reference, as in SwiftData). ``DeckStoreV2`` adds what the
/// macros don't declare (the search index, the partial indexes); `Schemas/store.sql` is the
/// resulting layout, checked against a new store's by `StoreSQLTests`.
///
/// Its revision is the store's `schemaVersion` (docs/FORMAT.md, "Revisions of format version 2"):
/// 2.1.0 since `Card`'s keys of `note` and `deck` lost their own indexes, which
/// `Card_note_ordinal` and `Card_deck_queue_due` serve; ``DeckSchemaV2_0`` is the 2.0.0 layout.
public enum DeckSchemaV2: VersionedSchema {
    public static let versionIdentifier = Schema.Version(2, 1, 0)
    public static var models: [any PersistentModel.Type] {
        [NoteType.self, NoteField.self, CardTemplate.self, Note.self, Card.self, Deck.self, Preset.self,
         Review.self, Tag.self, MediaFile.self, MediaName.self, DeckInfo.self]
    }
}

/// Revision 2.0.0 of format version 2: the same tables and columns as ``DeckSchemaV2``, plus the
/// indexes `Card_note` and `Card_deck` (``DeckStoreV2/version2_0Indexes``), which the 2.0 → 2.1
/// stage of ``DeckMigrationPlan`` drops.
public enum DeckSchemaV2_0: VersionedSchema {
    public static let versionIdentifier = Schema.Version(2, 0, 0)
    public static var models: [any PersistentModel.Type] { DeckSchemaV2.models }
}

extension DeckSchemaV2 {
    // MARK: Enumerations (Anki's numbers)

    /// Standard (a card per template whose question renders non-empty) or cloze (a card per cloze number).
    public enum NoteTypeKind: Int, Codable, Sendable, CaseIterable { case standard = 0, cloze = 1 }

    /// The stock note type a note type started as (Anki's `OriginalStockKind`).
    public enum StockKind: Int, Codable, Sendable, CaseIterable {
        case basic = 1, basicAndReversed = 2, basicOptionalReversed = 3, basicTyping = 4, cloze = 5, imageOcclusion = 6
    }

    /// A card's type (Anki `cards.type`).
    public enum CardType: Int, Codable, Sendable, CaseIterable { case new = 0, learning = 1, review = 2, relearning = 3 }

    /// A card's queue (Anki `cards.queue`); it says how `due` is read.
    public enum CardQueue: Int, Codable, Sendable, CaseIterable {
        case buriedManually = -3, buriedSibling = -2, suspended = -1
        /// `due` is a position among new cards.
        case new = 0
        /// `due` is a Unix time in seconds (intraday learning).
        case learning = 1
        /// `due` is a day number counted from ``DeckInfo/dayZero``.
        case review = 2
        /// `due` is a day number (learning steps of a day or more).
        case dayLearning = 3
        /// A card previewed in a filtered deck; `due` is a Unix time in seconds.
        case preview = 4
    }

    /// What kind of answer a review row records (Anki `revlog.type`).
    public enum ReviewKind: Int, Codable, Sendable, CaseIterable {
        case learn = 0, review = 1, relearn = 2, filtered = 3, manual = 4, rescheduled = 5
    }

    /// A normal deck (has a preset) or a filtered one (gathers cards by search terms).
    public enum DeckKind: Int, Codable, Sendable, CaseIterable { case normal = 0, filtered = 1 }

    // MARK: Note types

    /// A note type: its fields, card templates and styling (Anki's notetype).
    @Model public final class NoteType {
        @Attribute(.index)
        public var name: String = ""
        public var kind: NoteTypeKind = .standard
        /// The stock type it started as, nil for a type made from scratch.
        public var stockKind: StockKind? = nil
        public var css: String = ""
        /// The ordinal of the field notes are sorted by.
        public var sortField: Int = 0
        public var latexPre: String = ""
        public var latexPost: String = ""
        public var latexSVG: Bool = false
        public var modified: Date = Date()
        /// Anki's notetype id, kept so exports give Anki the same id.
        public var ankiID: Int64? = nil
        /// A JSON object of Anki's options this model does not name, verbatim.
        public var ankiOptions: String = "{}"
        @Relationship(deleteRule: .cascade, inverse: \NoteField.noteType)
        public var fields: [NoteField] = []
        @Relationship(deleteRule: .cascade, inverse: \CardTemplate.noteType)
        public var templates: [CardTemplate] = []
        @Relationship(deleteRule: .deny, inverse: \Note.noteType)
        public var notes: [Note] = []
        public init() {}
        public init(name: String, kind: NoteTypeKind, stockKind: StockKind? = nil, css: String = "") {
            self.name = name
            self.kind = kind
            self.stockKind = stockKind
            self.css = css
        }
    }

    /// One field of a note type, at its ordinal (0, 1, …).
    @Model public final class NoteField {
        public var ordinal: Int = 0
        public var name: String = ""
        public var font: String = "Arial"
        public var fontSize: Int = 20
        public var rightToLeft: Bool = false
        public var sticky: Bool = false
        /// The editor shows plain text rather than HTML.
        public var plainText: Bool = false
        public var collapsed: Bool = false
        public var excludeFromSearch: Bool = false
        public var fieldDescription: String = ""
        /// Anki's field id (schema 18), if any.
        public var ankiID: Int64? = nil
        public var ankiOptions: String = "{}"
        @Relationship
        public var noteType: NoteType? = nil
        public init() {}
        public init(ordinal: Int, name: String) {
            self.ordinal = ordinal
            self.name = name
        }
    }

    /// One card template of a note type, at its ordinal (a standard type's cards have the
    /// template's ordinal; a cloze type has one template).
    @Model public final class CardTemplate {
        public var ordinal: Int = 0
        public var name: String = ""
        public var questionFormat: String = ""
        public var answerFormat: String = ""
        public var browserQuestionFormat: String = ""
        public var browserAnswerFormat: String = ""
        public var browserFont: String = ""
        public var browserFontSize: Int = 0
        public var modified: Date = Date()
        public var ankiID: Int64? = nil
        public var ankiOptions: String = "{}"
        @Relationship
        public var noteType: NoteType? = nil
        /// The deck new cards of this template go to ("deck override"), nil for the note's deck.
        @Relationship
        public var targetDeck: Deck? = nil
        public init() {}
        public init(ordinal: Int, name: String, questionFormat: String, answerFormat: String) {
            self.ordinal = ordinal
            self.name = name
            self.questionFormat = questionFormat
            self.answerFormat = answerFormat
        }
    }

    // MARK: Notes and cards

    /// A note: field values in the order of its type's fields, tags, and the cards it generates.
    @Model public final class Note {
        /// Stable identity across exports (Anki's base91 GUID or any unique text); assigned once.
        @Attribute(.unique)
        public var guid: String = ""
        /// One value per field of the note type, in ordinal order (HTML).
        public var fields: [String] = []
        /// The sort field's text, HTML stripped (Anki's `sfld`).
        public var sortText: String = ""
        public var created: Date = Date()
        public var modified: Date = Date()
        public var ankiID: Int64? = nil
        @Relationship
        public var noteType: NoteType? = nil
        @Relationship(deleteRule: .cascade, inverse: \Card.note)
        public var cards: [Card] = []
        @Relationship(inverse: \Tag.notes)
        public var tags: [Tag] = []
        /// The media names the fields refer to.
        @Relationship
        public var media: [MediaName] = []
        public var id: Int64 { persistentModelID.primaryKey }
        public init() {}
        public init(guid: String, fields: [String], created: Date = Date()) {
            self.guid = guid
            self.fields = fields
            self.created = created
            self.modified = created
        }
    }

    /// A card: one template (or cloze number) of a note, with its scheduling state.
    @Model public final class Card {
        /// The template's ordinal (standard), or the cloze number minus one (cloze).
        public var ordinal: Int = 0
        public var type: CardType = .new
        public var queue: CardQueue = .new
        /// Read by ``queue``: a new-card position, a Unix time in seconds, or a day number.
        public var due: Int64 = 0
        /// Days (review cards); 0 for new and learning cards.
        public var interval: Int = 0
        /// Ease factor in permille (2500 = 250 %); 0 for new cards and under FSRS.
        public var easeFactor: Int = 0
        public var repetitions: Int = 0
        public var lapses: Int = 0
        /// Anki's `left`: learning steps remaining (today's count × 1000 + total, as Anki writes it).
        public var remainingSteps: Int = 0
        /// While in a filtered deck: the due value in the original deck, else 0.
        public var originalDue: Int64 = 0
        /// 0 (none) to 7.
        public var flag: Int = 0
        /// FSRS memory state, nil until the card has one.
        public var stability: Double? = nil
        public var difficulty: Double? = nil
        /// The desired retention the card was last scheduled with, nil for the preset's.
        public var desiredRetention: Double? = nil
        /// FSRS-6 decay of the card's memory state, when Anki recorded one.
        public var decay: Double? = nil
        /// When the card was last reviewed (Unix seconds), when known.
        public var lastReview: Int64? = nil
        /// The position a new card had before it was rescheduled, when known (Anki's `pos`).
        public var originalPosition: Int64? = nil
        /// Custom scheduling data: a JSON object of short keys and values (Anki's `cd`), verbatim.
        public var customData: String = ""
        public var created: Date = Date()
        public var modified: Date = Date()
        public var ankiID: Int64? = nil
        /// Other keys of Anki's card `data` JSON, verbatim.
        public var ankiOptions: String = "{}"
        @Relationship
        public var note: Note? = nil
        @Relationship
        public var deck: Deck? = nil
        /// The deck the card came from while it sits in a filtered deck.
        @Relationship
        public var originalDeck: Deck? = nil
        @Relationship(deleteRule: .cascade, inverse: \Review.card)
        public var reviews: [Review] = []
        public var id: Int64 { persistentModelID.primaryKey }
        // One card per template (or cloze number) of a note; it also serves the lookups of a
        // note's cards (so `note` has no index of its own).
        #UniqueIndex<Card>([\.note, \.ordinal])
        // The study queue: a deck's cards by queue and due (Anki's ix_cards_sched); it also
        // serves the lookups of a deck's cards.
        #Index<Card>([\.deck, \.queue, \.due])
        public init() {}
        public init(ordinal: Int, created: Date = Date()) {
            self.ordinal = ordinal
            self.created = created
            self.modified = created
        }
    }

    // MARK: Decks and presets

    /// A deck of the tree; `name` is the full path, levels separated by `::`.
    @Model public final class Deck {
        @Attribute(.unique)
        public var name: String = ""
        public var kind: DeckKind = .normal
        public var deckDescription: String = ""
        /// The description is Markdown rather than HTML.
        public var markdownDescription: Bool = false
        public var collapsed: Bool = false
        /// Filtered decks: a JSON array of `{"search": text, "limit": n, "order": n}` (Anki's terms).
        public var filterTerms: String = "[]"
        /// Filtered decks: answers reschedule the cards (Anki's `resched`).
        public var reschedules: Bool = true
        public var modified: Date = Date()
        public var ankiID: Int64? = nil
        public var ankiOptions: String = "{}"
        @Relationship
        public var preset: Preset? = nil
        @Relationship(deleteRule: .deny, inverse: \Card.deck)
        public var cards: [Card] = []
        public init() {}
        public init(name: String) { self.name = name }
    }

    /// Study options shared by decks (Anki's deck config).
    @Model public final class Preset {
        public var name: String = ""
        public var newPerDay: Int = 20
        public var reviewsPerDay: Int = 200
        /// Learning steps in minutes, a JSON array of numbers.
        public var learningSteps: String = "[1,10]"
        /// Relearning steps in minutes, a JSON array of numbers.
        public var relearningSteps: String = "[10]"
        public var maximumInterval: Int = 36_500
        /// FSRS schedules this preset's cards; false for SM-2.
        public var usesFSRS: Bool = true
        /// The FSRS parameters, a JSON array of numbers (21 for FSRS-6); `[]` for the defaults.
        public var fsrsParameters: String = "[]"
        public var desiredRetention: Double = 0.9
        // SM-2 (Anki's names in docs/FORMAT.md).
        public var startingEase: Int = 2500
        public var graduatingInterval: Int = 1
        public var easyInterval: Int = 4
        public var easyBonus: Double = 1.3
        public var hardMultiplier: Double = 1.2
        public var intervalMultiplier: Double = 1.0
        public var lapseMultiplier: Double = 0.0
        public var minimumLapseInterval: Int = 1
        public var leechThreshold: Int = 8
        public var buryNewSiblings: Bool = false
        public var buryReviewSiblings: Bool = false
        public var buryInterdaySiblings: Bool = false
        public var modified: Date = Date()
        public var ankiID: Int64? = nil
        public var ankiOptions: String = "{}"
        @Relationship(inverse: \Deck.preset)
        public var decks: [Deck] = []
        public init() {}
        public init(name: String) { self.name = name }
    }

    // MARK: Reviews, tags, media, the deck's own row

    /// One answer of a card (Anki's revlog row).
    @Model public final class Review {
        /// When, in milliseconds since 1970 (Anki's revlog id).
        @Attribute(.index)
        public var time: Int64 = 0
        /// 1 again, 2 hard, 3 good, 4 easy; 0 for manual entries.
        public var rating: Int = 0
        /// The interval after the answer: days when positive, seconds when negative.
        public var interval: Int = 0
        public var lastInterval: Int = 0
        /// Ease factor in permille after the answer (under FSRS, difficulty × 100 + 100 as Anki writes it).
        public var easeFactor: Int = 0
        /// Milliseconds spent answering.
        public var duration: Int = 0
        public var kind: ReviewKind = .review
        public var ankiID: Int64? = nil
        @Relationship
        public var card: Card? = nil
        public init() {}
        public init(time: Int64, rating: Int, interval: Int, lastInterval: Int, easeFactor: Int, duration: Int, kind: ReviewKind) {
            self.time = time
            self.rating = rating
            self.interval = interval
            self.lastInterval = lastInterval
            self.easeFactor = easeFactor
            self.duration = duration
            self.kind = kind
        }
    }

    /// A tag; `::` separates levels (`lang::fr`). Names are unique.
    @Model public final class Tag {
        @Attribute(.unique)
        public var name: String = ""
        public var collapsed: Bool = false
        @Relationship
        public var notes: [Note] = []
        public init() {}
        public init(name: String) { self.name = name }
    }

    /// The bytes of one media file: `Media/<sha256>.<ext>`.
    @Model public final class MediaFile {
        @Attribute(.unique)
        public var fileName: String = ""
        @Attribute(.index)
        public var sha256: String = ""
        public var sha1: String = ""
        public var mime: String = "application/octet-stream"
        public var size: Int = 0
        @Relationship(deleteRule: .cascade, inverse: \MediaName.file)
        public var names: [MediaName] = []
        public init() {}
    }

    /// A name note text uses for a media file (`<img src="cat.jpg">`); two names may share one file.
    @Model public final class MediaName {
        @Attribute(.unique)
        public var name: String = ""
        @Relationship
        public var file: MediaFile? = nil
        public init() {}
        public init(name: String) { self.name = name }
    }

    /// The deck's own row (exactly one): title, description and collection-level values.
    @Model public final class DeckInfo {
        public var title: String = ""
        @Attribute(originalName: "description")
        public var deckDescription: String = ""
        /// The Unix time (seconds) at which day 0 of day-numbered `due` values starts (Anki's `col.crt`).
        public var dayZero: Int64 = 0
        /// The hour (0–23, local time) at which a new study day starts (Anki's `rollover`, 4 by default).
        public var dayStartsAt: Int = 4
        /// Anki's collection configuration (the `config` table as a JSON object), verbatim.
        public var ankiConfig: String = "{}"
        public init() {}
        public init(title: String) { self.title = title }
    }
}
