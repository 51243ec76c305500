/// The description of an Anki-style text file (Anki 2.1.54 and later): its separator, whether
/// fields are HTML, tags and note type and deck for every note, and which column holds what.
///
/// A ``TextImportReader`` starts from the settings it is given and lets the file's header
/// lines override them (`#separator:tab`, `#html:true`, `#tags:a b`, `#columns:…`,
/// `#notetype:…`, `#deck:…`, `#tags column:N`, `#guid column:N`, `#notetype column:N`,
/// `#deck column:N`); ``TextImportReader/settings`` then holds the result. A
/// ``TextExportWriter`` writes them out as header lines.
///
/// Column numbers are 1-based, as in Anki's headers.
public struct TextImportSettings: Hashable, Sendable {
    /// Whether the first record names the columns, for files without `#columns:`.
    public enum HeaderRow: Hashable, Sendable {
        /// Treat the first record as a header when it looks like one: every cell a short,
        /// distinct, non-empty label and at least two of them (or the only one) naming a role
        /// (`front,back,tags`, `Question;Answer`, in any case). The default.
        case detect
        /// The first record is always a header (and is skipped even when ``columns`` is
        /// given, in which case those labels are used instead).
        case present
        /// The first record is always data.
        case absent
    }

    /// The field separator; `nil` means guess it from the first data line, as Anki does
    /// (the first of tab, pipe, semicolon, colon, comma, space found on that line).
    public var separator: CSVSeparator?
    /// Whether fields are HTML (`#html:`); `nil` when the file does not say.
    public var isHTML: Bool?
    /// Tags for every note (`#tags:`).
    public var tags: [String]
    /// The column labels (`#columns:` or a header row), if the file names its columns.
    public var columns: [String]?
    /// The note type of every note (`#notetype:`), unless a notetype column names one.
    public var notetype: String?
    /// The deck of every note (`#deck:`), unless a deck column names one.
    public var deck: String?
    /// The column of tags (`#tags column:`).
    public var tagsColumn: Int?
    /// The column of GUIDs (`#guid column:`).
    public var guidColumn: Int?
    /// The column of note type names (`#notetype column:`).
    public var notetypeColumn: Int?
    /// The column of deck names (`#deck column:`).
    public var deckColumn: Int?
    /// How to treat the first record when the file has no `#columns:` line.
    public var headerRow: HeaderRow
    /// The fields of the note type the rows are for (`["Front", "Back"]` for Basic), when the
    /// caller knows it. A header row is then also recognised from these names (in any case),
    /// and a column that goes to none of them, nor to the tags, GUID, deck or note type, is an
    /// error (``CSVError/Reason/unmappedColumn(column:label:fields:)``) unless
    /// ``ignoresExtraColumns``. `nil` (the default): every other column is an extra field.
    public var fieldNames: [String]?
    /// Whether values in columns with no field to go to are dropped (each row that loses one
    /// is counted in ``TextImportReader/diagnostics``) instead of being an error.
    public var ignoresExtraColumns: Bool
    /// The file's encoding; `nil` reads UTF-8, or UTF-16 when the file starts with its byte
    /// order mark.
    public var encoding: CSVEncoding?
    /// Whether a tab-separated file without Anki header lines uses TSV's backslash escapes
    /// (`\n`, `\t`, `\r`, `\\`, as `deck list --format tsv` writes them). Files with header
    /// lines are Anki's and never do (Anki quotes instead). Default: `false`.
    public var backslashEscapes: Bool
    /// The separator the file's name suggests (comma for `.csv`, tab for `.tsv`): when no
    /// header line names one, the guess takes it whenever the first lines fit it as well as
    /// any other. `nil`: Anki's preference (tab, pipe, semicolon, comma).
    public var likelySeparator: CSVSeparator?
    /// What the caller asks for regardless of the file's header lines (a command's options).
    public var overrides: TextImportOverrides

    /// Creates settings; by default everything is left to the file (or guessed).
    public init(
        separator: CSVSeparator? = nil,
        isHTML: Bool? = nil,
        tags: [String] = [],
        columns: [String]? = nil,
        notetype: String? = nil,
        deck: String? = nil,
        tagsColumn: Int? = nil,
        guidColumn: Int? = nil,
        notetypeColumn: Int? = nil,
        deckColumn: Int? = nil,
        headerRow: HeaderRow = .detect,
        fieldNames: [String]? = nil,
        ignoresExtraColumns: Bool = false,
        encoding: CSVEncoding? = nil,
        backslashEscapes: Bool = false,
        likelySeparator: CSVSeparator? = nil,
        overrides: TextImportOverrides = TextImportOverrides()
    ) {
        self.separator = separator
        self.isHTML = isHTML
        self.tags = tags
        self.columns = columns
        self.notetype = notetype
        self.deck = deck
        self.tagsColumn = tagsColumn
        self.guidColumn = guidColumn
        self.notetypeColumn = notetypeColumn
        self.deckColumn = deckColumn
        self.headerRow = headerRow
        self.fieldNames = fieldNames
        self.ignoresExtraColumns = ignoresExtraColumns
        self.encoding = encoding
        self.backslashEscapes = backslashEscapes
        self.likelySeparator = likelySeparator
        self.overrides = overrides
    }

    /// The settings of the files ``TextExportWriter`` writes by default, matching Anki's own
    /// notes export: tab-separated, HTML.
    public static let ankiExport = TextImportSettings(separator: .tab, isHTML: true, headerRow: .absent)
}

/// Settings that win over a text file's header lines: what a user asks for on the command
/// line (`--separator`, `--columns`, `--notetype`, `--deck`, `--tags`).
public struct TextImportOverrides: Hashable, Sendable {
    /// The separator, instead of `#separator:` and guessing.
    public var separator: CSVSeparator?
    /// The column labels, instead of `#columns:` and a header row.
    public var columns: [String]?
    /// The note type of every note, instead of `#notetype:` (a notetype column still wins).
    public var notetype: String?
    /// The deck of every note, instead of `#deck:` (a deck column still wins).
    public var deck: String?
    /// Tags added to every note, after the file's own.
    public var tags: [String]

    /// Creates overrides; by default nothing is overridden.
    public init(separator: CSVSeparator? = nil, columns: [String]? = nil, notetype: String? = nil,
                deck: String? = nil, tags: [String] = []) {
        self.separator = separator
        self.columns = columns
        self.notetype = notetype
        self.deck = deck
        self.tags = tags
    }
}
