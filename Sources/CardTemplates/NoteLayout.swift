/// A note type as the template language sees it: its kind, field names, card templates and CSS.
///
/// This is a plain value, independent of any store: build one from a deck's note type (or from
/// an Anki note type) and ask it which cards a note makes (``cardOrdinals(fieldValues:tags:existing:)``)
/// and what they look like (``render(ordinal:fieldValues:context:)``).
///
/// ```swift
/// let basic = NoteLayout(name: "Basic", kind: .standard, fieldNames: ["Front", "Back"],
///                        templates: [CardLayout(name: "Card 1", questionFormat: "{{Front}}",
///                                               answerFormat: "{{FrontSide}}<hr id=answer>{{Back}}")])
/// basic.cardOrdinals(fieldValues: ["chat", "cat"])                 // [0]
/// basic.render(ordinal: 0, fieldValues: ["chat", "cat"]).answer    // "chat<hr id=answer>cat"
/// ```
public struct NoteLayout: Sendable, Hashable {
    /// How a note type makes cards.
    public enum Kind: Sendable, Hashable {
        /// One card per template whose question renders non-empty.
        case standard
        /// One card per cloze number (image occlusion is a cloze type too); only the first
        /// template is used.
        case cloze
    }

    /// The note type's name (`{{Type}}`).
    public var name: String
    /// Whether notes make a card per template or per cloze number.
    public var kind: Kind
    /// Field names in order; a note's field values are given in the same order.
    public var fieldNames: [String] {
        didSet { plans = Self.plans(parsed, fieldNames) }
    }
    /// Card templates in ordinal order. They are parsed once, when set, so generating and
    /// rendering many notes of one layout parses nothing.
    public var templates: [CardLayout] {
        didSet {
            parsed = templates.map(ParsedSides.init)
            plans = Self.plans(parsed, fieldNames)
        }
    }
    /// The note type's CSS, returned with every rendered card.
    public var css: String

    /// The templates' question and answer formats, parsed (or the parse error).
    private(set) var parsed: [ParsedSides]
    /// Each question with its keys resolved against the fields, for card generation (nil when
    /// the question does not parse).
    private(set) var plans: [GenerationPlan?]

    struct ParsedSides: Sendable {
        let question: Result<ParsedTemplate, TemplateError>
        let answer: Result<ParsedTemplate, TemplateError>

        init(_ template: CardLayout) {
            question = Result { () throws(TemplateError) in try ParsedTemplate(template.questionFormat) }
            answer = Result { () throws(TemplateError) in try ParsedTemplate(template.answerFormat) }
        }
    }

    /// A note type from its parts (templates in ordinal order, fields in note order).
    public init(name: String, kind: Kind, fieldNames: [String], templates: [CardLayout], css: String = "") {
        self.name = name
        self.kind = kind
        self.fieldNames = fieldNames
        self.templates = templates
        self.css = css
        parsed = templates.map(ParsedSides.init)
        plans = Self.plans(parsed, fieldNames)
    }

    private static func plans(_ parsed: [ParsedSides], _ fieldNames: [String]) -> [GenerationPlan?] {
        parsed.map { sides in
            guard case .success(let question) = sides.question else { return nil }
            return GenerationPlan(question, fieldNames: fieldNames)
        }
    }

    public static func == (lhs: NoteLayout, rhs: NoteLayout) -> Bool {
        lhs.name == rhs.name && lhs.kind == rhs.kind && lhs.fieldNames == rhs.fieldNames
            && lhs.templates == rhs.templates && lhs.css == rhs.css
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(kind)
        hasher.combine(fieldNames)
        hasher.combine(templates)
        hasher.combine(css)
    }
}

/// One card template: the question and answer formats, and optional browser formats.
public struct CardLayout: Sendable, Hashable {
    /// The template's name (`{{Card}}`), e.g. `Card 1`.
    public var name: String
    /// The question format (Anki's `qfmt`), in the template language of ``ParsedTemplate``.
    public var questionFormat: String
    /// The answer format (`afmt`); `{{FrontSide}}` in it is the rendered question.
    public var answerFormat: String
    /// The question format for one-line lists (Anki's browser appearance); empty for none.
    public var browserQuestionFormat: String
    /// The answer format for one-line lists; empty for none.
    public var browserAnswerFormat: String

    /// A card template; browser formats default to none.
    public init(name: String, questionFormat: String, answerFormat: String,
                browserQuestionFormat: String = "", browserAnswerFormat: String = "") {
        self.name = name
        self.questionFormat = questionFormat
        self.answerFormat = answerFormat
        self.browserQuestionFormat = browserQuestionFormat
        self.browserAnswerFormat = browserAnswerFormat
    }
}

/// What a card knows beyond its note's fields: the values of Anki's special fields.
public struct CardContext: Sendable, Hashable {
    /// The note's tags (`{{Tags}}` joins them with spaces).
    public var tags: [String]
    /// The card's deck, levels separated by `::` (`{{Deck}}`; `{{Subdeck}}` is the last level).
    /// For a card in a filtered deck, Anki uses the original deck. Anki shows `(Deck)` when the
    /// deck is missing, the default here.
    public var deckName: String
    /// The card's flag, 0 (none) to 7 (`{{CardFlag}}` is `flag0` … `flag7`).
    public var flag: Int
    /// The card's id (`{{CardID}}`); 0 for a card not yet stored, as Anki shows it.
    public var cardID: Int64

    /// The context of one card; the defaults are what Anki shows for a card not yet added.
    public init(tags: [String] = [], deckName: String = "(Deck)", flag: Int = 0, cardID: Int64 = 0) {
        self.tags = tags
        self.deckName = deckName
        self.flag = flag
        self.cardID = cardID
    }
}

/// A rendered card: question and answer HTML and the note type's CSS.
public struct RenderedCard: Sendable, Hashable {
    /// The question HTML. Anki's `card.question()` is `<style>` + ``css`` + `</style>` followed
    /// by this text (with sound tags replaced by play tags, see
    /// ``NoteLayout/render(ordinal:fieldValues:context:browser:ankiPlayTags:)``).
    public var question: String
    /// The answer HTML; `{{FrontSide}}` in the answer format is the question.
    public var answer: String
    /// The note type's CSS.
    public var css: String
    /// True when Anki would call the card blank: a standard card whose question renders empty, or
    /// a cloze card whose number no field holds. Both sides then carry Anki's explanation.
    public var isEmpty: Bool
    /// The template problem when a template does not parse or names a missing field; both sides
    /// then hold Anki's error text (``TemplateError/html(side:browser:)``).
    public var error: TemplateError?

    /// A rendered card (``NoteLayout/render(ordinal:fieldValues:context:browser:ankiPlayTags:)``
    /// makes them; this initializer is for callers that cache or fake renders).
    public init(question: String, answer: String, css: String, isEmpty: Bool = false, error: TemplateError? = nil) {
        self.question = question
        self.answer = answer
        self.css = css
        self.isEmpty = isEmpty
        self.error = error
    }
}
