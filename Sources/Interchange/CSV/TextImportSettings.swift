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
        headerRow: HeaderRow = .detect
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
    }

    /// The settings of the files ``TextExportWriter`` writes by default, matching Anki's own
    /// notes export: tab-separated, HTML.
    public static let ankiExport = TextImportSettings(separator: .tab, isHTML: true, headerRow: .absent)
}
