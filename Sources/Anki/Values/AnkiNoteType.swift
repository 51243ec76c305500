/// An Anki note type ("model"): its fields, card templates and styling.
///
/// Read from `col.models` JSON (schema 11) or the `notetypes`/`fields`/`templates` tables
/// (schema 18); written as schema 11 JSON. ``basic(id:name:)``, ``basicAndReversed(id:name:)``
/// and ``cloze(id:name:)`` build Anki's stock types.
public struct AnkiNoteType: Sendable, Hashable, Identifiable {
    /// Standard (one card per template) or cloze (one card per cloze number).
    public enum Kind: Int, Sendable, Hashable, CaseIterable {
        /// One card per template whose question is non-empty.
        case standard = 0
        /// One card per `{{cN::…}}` deletion, from a single template.
        case cloze = 1
    }

    /// A field of a note type.
    public struct Field: Sendable, Hashable {
        /// The field's name, as templates refer to it (`{{Front}}`).
        public var name: String
        /// Its position, from 0.
        public var ordinal: Int

        /// Creates a field.
        public init(name: String, ordinal: Int) {
            self.name = name
            self.ordinal = ordinal
        }
    }

    /// A card template: one card per note (standard types) or per cloze number (cloze types).
    public struct Template: Sendable, Hashable {
        /// The template's name ("Card 1").
        public var name: String
        /// Its position, from 0; a card's ``AnkiCard/ordinal`` refers to it.
        public var ordinal: Int
        /// The question side (`qfmt`), e.g. `{{Front}}`.
        public var questionFormat: String
        /// The answer side (`afmt`), e.g. `{{FrontSide}}<hr id=answer>{{Back}}`.
        public var answerFormat: String

        /// Creates a template.
        public init(name: String, ordinal: Int, questionFormat: String, answerFormat: String) {
            self.name = name
            self.ordinal = ordinal
            self.questionFormat = questionFormat
            self.answerFormat = answerFormat
        }
    }

    /// The note type's id (`mid` of its notes), usually a millisecond timestamp.
    public var id: Int64
    /// Its name, unique in a collection.
    public var name: String
    /// Standard or cloze.
    public var kind: Kind
    /// Its fields, in order.
    public var fields: [Field]
    /// Its card templates, in order.
    public var templates: [Template]
    /// The CSS shared by its cards.
    public var css: String
    /// The index into ``fields`` of the field the browser sorts by (`sortf`).
    public var sortFieldIndex: Int

    /// Creates a note type. Field and template ordinals are taken as given.
    public init(id: Int64, name: String, kind: Kind = .standard, fields: [Field], templates: [Template],
                css: String = AnkiNoteType.defaultCSS, sortFieldIndex: Int = 0) {
        self.id = id
        self.name = name
        self.kind = kind
        self.fields = fields
        self.templates = templates
        self.css = css
        self.sortFieldIndex = sortFieldIndex
    }

    /// The names of ``fields``, in order.
    public var fieldNames: [String] { fields.map(\.name) }
}

extension AnkiNoteType {
    /// The card CSS of Anki's stock note types.
    public static let defaultCSS = """
        .card {
            font-family: arial;
            font-size: 20px;
            line-height: 1.5;
            text-align: center;
            color: black;
            background-color: white;
        }

        """

    /// The extra CSS of Anki's stock cloze type (how a deletion is highlighted).
    public static let clozeCSS = defaultCSS + """
        .cloze {
            font-weight: bold;
            color: blue;
        }
        .nightMode .cloze {
            color: lightblue;
        }

        """

    /// Anki's stock "Basic": fields Front and Back, one card.
    public static func basic(id: Int64, name: String = "Basic") -> AnkiNoteType {
        AnkiNoteType(id: id, name: name, fields: fieldList("Front", "Back"), templates: [
            Template(name: "Card 1", ordinal: 0, questionFormat: "{{Front}}",
                     answerFormat: "{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}"),
        ])
    }

    /// Anki's stock "Basic (and reversed card)": fields Front and Back, a card each way.
    public static func basicAndReversed(id: Int64, name: String = "Basic (and reversed card)") -> AnkiNoteType {
        AnkiNoteType(id: id, name: name, fields: fieldList("Front", "Back"), templates: [
            Template(name: "Card 1", ordinal: 0, questionFormat: "{{Front}}",
                     answerFormat: "{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}"),
            Template(name: "Card 2", ordinal: 1, questionFormat: "{{Back}}",
                     answerFormat: "{{FrontSide}}\n\n<hr id=answer>\n\n{{Front}}"),
        ])
    }

    /// Anki's stock "Cloze": fields Text and Back Extra, one card per cloze number.
    public static func cloze(id: Int64, name: String = "Cloze") -> AnkiNoteType {
        AnkiNoteType(id: id, name: name, kind: .cloze, fields: fieldList("Text", "Back Extra"), templates: [
            Template(name: "Cloze", ordinal: 0, questionFormat: "{{cloze:Text}}",
                     answerFormat: "{{cloze:Text}}<br>\n{{Back Extra}}"),
        ], css: clozeCSS)
    }

    private static func fieldList(_ names: String...) -> [Field] {
        names.enumerated().map { Field(name: $1, ordinal: $0) }
    }
}
