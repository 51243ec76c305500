import ArgumentParsing
import Foundation
import Interchange

/// The options of `deck import` for CSV and TSV files: how to read a spreadsheet's file when
/// it does not say itself (separator, header row, columns, encoding) and what to add to
/// every note. They win over the file's Anki header lines.
struct TextImportOptions: ParsableArguments {
    @Option(help: ArgumentHelp("CSV/TSV: the field separator, a name (comma, semicolon, tab, pipe, colon, space) or one character (default: the file's #separator: line, else guessed from the first lines).",
                               valueName: "separator"))
    var separator: String?

    @Flag(help: "CSV/TSV: the first row names the columns, whatever it holds.") var header = false
    @Flag(name: .customLong("no-header"), help: "CSV/TSV: the first row is a note, even if it reads like column names.") var noHeader = false

    @Option(help: ArgumentHelp("CSV/TSV: the columns, in order, comma-separated: field names of the note type (Front, Back; Text, Back Extra for Cloze), Tags, GUID, Deck, Notetype (default: the file's #columns: line or header row, else front, back, tags).",
                               valueName: "names"))
    var columns: String?

    @Option(help: ArgumentHelp("CSV/TSV: the note type of every note: Basic, Basic (and reversed card) or Cloze (default: the file's #notetype: line, else Basic).",
                               valueName: "name"))
    var notetype: String?

    @Option(name: .customLong("deck"), help: ArgumentHelp("CSV/TSV: the deck path of every note, e.g. French::Verbs (default: the file's #deck: line or deck column).",
                                                          valueName: "path"))
    var deckPath: String?

    @Option(help: ArgumentHelp("CSV/TSV: tags added to every note, comma-separated.", valueName: "tags"))
    var tags: String?

    @Option(help: ArgumentHelp("CSV/TSV: the file's encoding: utf-8, utf-16 (also utf-16le, utf-16be), latin-1 or windows-1252 (default: UTF-8, or UTF-16 when the file starts with its byte order mark).",
                                valueName: "encoding"))
    var encoding: String?

    @Flag(name: .customLong("ignore-extra-columns"), help: "CSV/TSV: drop values in columns with no field to go to (counted in the report) instead of failing.")
    var ignoreExtraColumns = false

    init() {}

    mutating func validate() throws {
        if header && noHeader { throw ValidationError("--header and --no-header cannot be used together") }
        if let separator, CSVSeparator(ankiName: separator) == nil {
            throw ValidationError("--separator: '\(separator)' is not a separator (comma, semicolon, tab, pipe, colon, space or one printable character)")
        }
        if let encoding, CSVEncoding(name: encoding) == nil {
            throw ValidationError("--encoding: '\(encoding)' is not supported (utf-8, utf-16, utf-16le, utf-16be, latin-1, windows-1252)")
        }
        if let columns {
            let labels = Self.list(columns)
            if labels.isEmpty { throw ValidationError("--columns: no column names") }
            let keys = labels.map { $0.lowercased() }
            if let repeated = keys.first(where: { key in keys.filter { $0 == key }.count > 1 }) {
                throw ValidationError("--columns: '\(repeated)' is named twice")
            }
        }
        if let notetype, notetype.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--notetype: empty name") }
        if let deckPath, deckPath.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--deck: empty path") }
    }

    /// Whether any option of this group was given (they apply to CSV and TSV files only).
    var isAnyGiven: Bool {
        separator != nil || header || noHeader || columns != nil || notetype != nil || deckPath != nil || tags != nil
            || encoding != nil || ignoreExtraColumns
    }

    /// The field names of a stock note type, by the name Anki gives it.
    static func fieldNames(ofNotetype name: String?) -> [String] {
        guard let name = name?.lowercased() else { return ["Front", "Back"] }
        return name.contains("cloze") ? ["Text", "Back Extra"] : ["Front", "Back"]
    }

    /// The reader's settings for a file of `format` (`nil`: CSV/TSV guessed; `.tsv` from a
    /// `.tsv` name or `--format tsv` reads TSV's backslash escapes when the file has no Anki
    /// header lines).
    func settings(format: InterchangeFormat?, file: String) -> TextImportSettings {
        var settings = TextImportSettings()
        // The name suggests the separator; the first lines decide (a .csv from a spreadsheet
        // is often semicolon-separated).
        if format == .csv { settings.likelySeparator = .comma }
        if format == .tsv { settings.likelySeparator = .tab }
        settings.backslashEscapes = format == .tsv && !file.lowercased().hasSuffix(".txt")
        settings.headerRow = header ? .present : noHeader ? .absent : .detect
        settings.fieldNames = Self.fieldNames(ofNotetype: notetype)
        settings.ignoresExtraColumns = ignoreExtraColumns
        settings.encoding = encoding.flatMap(CSVEncoding.init(name:))
        settings.overrides = TextImportOverrides(
            separator: separator.flatMap(CSVSeparator.init(ankiName:)),
            columns: columns.map(Self.list),
            notetype: notetype?.trimmingCharacters(in: .whitespaces),
            deck: deckPath?.trimmingCharacters(in: .whitespaces),
            tags: tags.map { Self.list($0).flatMap { $0.split(whereSeparator: \.isWhitespace).map(String.init) } } ?? [])
        return settings
    }

    /// A comma-separated list, items trimmed, empty ones dropped.
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
