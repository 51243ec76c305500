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

    /// The stock note type a note type started as (Anki's `OriginalStockKind`, schema 18's
    /// `originalStockKind`). Unknown raw values are kept as they are.
    public struct StockKind: RawRepresentable, Sendable, Hashable {
        /// The value stored in the collection.
        public var rawValue: Int
        /// Wraps a stored value, known or not.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Not recorded (made from scratch, or by an Anki that did not record it).
        public static let unknown = StockKind(rawValue: 0)
        /// "Basic".
        public static let basic = StockKind(rawValue: 1)
        /// "Basic (and reversed card)".
        public static let basicAndReversed = StockKind(rawValue: 2)
        /// "Basic (optional reversed card)".
        public static let basicOptionalReversed = StockKind(rawValue: 3)
        /// "Basic (type in the answer)".
        public static let basicTyping = StockKind(rawValue: 4)
        /// "Cloze".
        public static let cloze = StockKind(rawValue: 5)
        /// "Image Occlusion": a cloze-kind type whose occlusions are cloze deletions.
        public static let imageOcclusion = StockKind(rawValue: 6)
    }

    /// A field of a note type, with the editor options Anki keeps for it.
    public struct Field: Sendable, Hashable {
        /// The field's name, as templates refer to it (`{{Front}}`).
        public var name: String
        /// Its position, from 0.
        public var ordinal: Int
        /// The editor's font (`font`).
        public var font: String
        /// The editor's font size (`size`).
        public var fontSize: Int
        /// Right-to-left text (`rtl`).
        public var rightToLeft: Bool
        /// The value is kept for the next note added (`sticky`).
        public var sticky: Bool
        /// The editor shows plain text rather than HTML (`plainText`).
        public var plainText: Bool
        /// The editor shows the field collapsed (`collapsed`).
        public var collapsed: Bool
        /// Searches without a field name skip it (`excludeFromSearch`).
        public var excludeFromSearch: Bool
        /// The editor's placeholder text (`description`).
        public var description: String
        /// Anki's field id (schema 18 `Field.Config.id`), nil when none.
        public var id: Int64?
        /// Options not named above, as the text of a JSON object under their schema-11 keys
        /// (`media`, `tag`, `preventDeletion`, …), verbatim; `"{}"` for none.
        public var options: String

        /// Creates a field; the options default to Anki's for a new field.
        public init(name: String, ordinal: Int, font: String = "Arial", fontSize: Int = 20,
                    rightToLeft: Bool = false, sticky: Bool = false, plainText: Bool = false,
                    collapsed: Bool = false, excludeFromSearch: Bool = false, description: String = "",
                    id: Int64? = nil, options: String = "{}") {
            self.name = name
            self.ordinal = ordinal
            self.font = font
            self.fontSize = fontSize
            self.rightToLeft = rightToLeft
            self.sticky = sticky
            self.plainText = plainText
            self.collapsed = collapsed
            self.excludeFromSearch = excludeFromSearch
            self.description = description
            self.id = id
            self.options = options
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
        /// The browser's question column (`bqfmt`); empty: the question format.
        public var browserQuestionFormat: String
        /// The browser's answer column (`bafmt`); empty: the answer format.
        public var browserAnswerFormat: String
        /// The browser's font (`bfont`).
        public var browserFont: String
        /// The browser's font size (`bsize`).
        public var browserFontSize: Int
        /// The deck new cards of this template go to (`did`, "deck override"); 0 for none.
        public var targetDeckID: Int64
        /// Last modification, in seconds since 1970 (schema 18 `templates.mtime_secs`; 0 unknown).
        public var modified: Int64
        /// Anki's template id (schema 18 `Template.Config.id`), nil when none.
        public var id: Int64?
        /// Options not named above, as the text of a JSON object under their schema-11 keys, verbatim.
        public var options: String

        /// Creates a template.
        public init(name: String, ordinal: Int, questionFormat: String, answerFormat: String,
                    browserQuestionFormat: String = "", browserAnswerFormat: String = "",
                    browserFont: String = "", browserFontSize: Int = 0, targetDeckID: Int64 = 0,
                    modified: Int64 = 0, id: Int64? = nil, options: String = "{}") {
            self.name = name
            self.ordinal = ordinal
            self.questionFormat = questionFormat
            self.answerFormat = answerFormat
            self.browserQuestionFormat = browserQuestionFormat
            self.browserAnswerFormat = browserAnswerFormat
            self.browserFont = browserFont
            self.browserFontSize = browserFontSize
            self.targetDeckID = targetDeckID
            self.modified = modified
            self.id = id
            self.options = options
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
    /// The stock type it started as (`originalStockKind`); image occlusion is a ``Kind/cloze``
    /// type of stock kind ``StockKind/imageOcclusion``.
    public var stockKind: StockKind
    /// The LaTeX header (`latexPre`).
    public var latexPre: String
    /// The LaTeX footer (`latexPost`).
    public var latexPost: String
    /// LaTeX renders to SVG (`latexsvg`).
    public var latexSVG: Bool
    /// Last modification, in seconds since 1970 (`mod`; 0 unknown).
    public var modified: Int64
    /// Options not named above, as the text of a JSON object under their schema-11 keys
    /// (`did`, `req`, `usn`, `vers`, `tags`, `originalId`, …), verbatim; `"{}"` for none.
    public var options: String

    /// Creates a note type. Field and template ordinals are taken as given.
    public init(id: Int64, name: String, kind: Kind = .standard, fields: [Field], templates: [Template],
                css: String = AnkiNoteType.defaultCSS, sortFieldIndex: Int = 0, stockKind: StockKind = .unknown,
                latexPre: String = AnkiNoteType.defaultLatexPre, latexPost: String = AnkiNoteType.defaultLatexPost,
                latexSVG: Bool = false, modified: Int64 = 0, options: String = "{}") {
        self.id = id
        self.name = name
        self.kind = kind
        self.fields = fields
        self.templates = templates
        self.css = css
        self.sortFieldIndex = sortFieldIndex
        self.stockKind = stockKind
        self.latexPre = latexPre
        self.latexPost = latexPost
        self.latexSVG = latexSVG
        self.modified = modified
        self.options = options
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

    /// The LaTeX header of a new Anki note type.
    public static let defaultLatexPre = """
        \\documentclass[12pt]{article}
        \\special{papersize=3in,5in}
        \\usepackage[utf8]{inputenc}
        \\usepackage{amssymb,amsmath}
        \\pagestyle{empty}
        \\setlength{\\parindent}{0in}
        \\begin{document}

        """

    /// The LaTeX footer of a new Anki note type.
    public static let defaultLatexPost = "\\end{document}"

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
