/// How a CSV or TSV file is laid out: its separator, its quote character, its header row,
/// comment lines and line endings.
///
/// The defaults follow RFC 4180 (comma, double quote, no header); ``tsv`` is the same with a
/// tab. Readers accept CRLF, LF and lone CR line endings whatever ``lineEnding`` says;
/// writers use ``lineEnding``.
///
/// ```swift
/// var dialect = CSVDialect.csv
/// dialect.separator = .semicolon
/// dialect.header = .firstRow
/// ```
public struct CSVDialect: Hashable, Sendable {
    /// Whether the first record of a file names the columns.
    public enum Header: Hashable, Sendable {
        /// Every record is data.
        case none
        /// The first record names the columns; ``CSVReader/header`` holds it and
        /// ``CSVReader/next()`` starts with the second record.
        case firstRow
    }

    /// The line ending a writer puts after each record.
    public enum LineEnding: String, Hashable, Sendable {
        /// `\r\n`, as RFC 4180 specifies.
        case crlf = "\r\n"
        /// `\n`, as Unix tools and Anki write.
        case lf = "\n"
    }

    /// The byte between fields. Default: comma.
    public var separator: CSVSeparator
    /// The character that quotes fields, doubled inside a quoted field; `nil` turns quoting
    /// off (every quote is then literal, and a writer refuses fields that would need quotes).
    /// It must be ASCII and differ from the separator and from line breaks; a reader reports
    /// a bad quote as ``CSVError/Reason/invalidDialect(_:)`` on its first read. Default: `"`.
    public var quote: Unicode.Scalar?
    /// Whether the first record is a header. Default: ``Header/none``.
    public var header: Header
    /// A byte that, at the start of a record, makes the whole line a comment the reader skips
    /// (Anki uses `#`). A writer quotes a first field that starts with it. Default: `nil`.
    public var commentPrefix: Unicode.Scalar?
    /// Whether the reader skips empty lines (`true`, the default, as Anki and most tools do)
    /// or returns them as records with one empty field (`false`, as RFC 4180 reads them).
    public var skipsEmptyLines: Bool
    /// The line ending a writer uses. Default: ``LineEnding/crlf`` (RFC 4180).
    public var lineEnding: LineEnding
    /// The largest record, in bytes, a reader accepts before it reports
    /// ``CSVError/Reason/recordTooLarge(limit:)``: this bounds the memory a malformed file
    /// (an unterminated quote at the top of a huge file) can make the reader use.
    /// Default: 64 MiB.
    public var maximumRecordSize: Int
    /// The character encoding of the input; `nil` (the default) reads UTF-8, or UTF-16 when
    /// the input starts with a UTF-16 byte order mark. Read when reading starts; writers
    /// always write UTF-8.
    public var encoding: CSVEncoding?
    /// Whether fields use TSV's backslash escapes (`\n`, `\r`, `\t`, `\\`, as
    /// `deck list --format tsv` and PostgreSQL's text format write them) instead of quotes for
    /// line breaks and tabs: a reader decodes them in unquoted fields, a writer writes them and
    /// quotes only for the quote and the comment prefix. Default: `false`.
    public var backslashEscapes: Bool

    /// Creates a dialect; every argument has the RFC 4180 default.
    public init(
        separator: CSVSeparator = .comma,
        quote: Unicode.Scalar? = "\"",
        header: Header = .none,
        commentPrefix: Unicode.Scalar? = nil,
        skipsEmptyLines: Bool = true,
        lineEnding: LineEnding = .crlf,
        maximumRecordSize: Int = 64 << 20,
        encoding: CSVEncoding? = nil,
        backslashEscapes: Bool = false
    ) {
        self.separator = separator
        self.quote = quote
        self.header = header
        self.commentPrefix = commentPrefix
        self.skipsEmptyLines = skipsEmptyLines
        self.lineEnding = lineEnding
        self.maximumRecordSize = maximumRecordSize
        self.encoding = encoding
        self.backslashEscapes = backslashEscapes
    }

    /// RFC 4180: comma, double quotes, CRLF.
    public static let csv = CSVDialect()
    /// Tab-separated values: tab, double quotes, LF.
    public static let tsv = CSVDialect(separator: .tab, lineEnding: .lf)

    /// The reason this dialect cannot be used, or `nil` when it can.
    var problem: String? {
        if let quote {
            guard quote.isASCII, quote != "\r", quote != "\n" else {
                return "the quote must be an ASCII character other than a line break"
            }
            if UInt8(quote.value) == separator.byte { return "the quote and the separator are the same character" }
        }
        if let commentPrefix {
            guard commentPrefix.isASCII, commentPrefix != "\r", commentPrefix != "\n" else {
                return "the comment prefix must be an ASCII character other than a line break"
            }
        }
        if maximumRecordSize < 1 { return "the maximum record size must be positive" }
        return nil
    }

    /// The quote as a byte, or a value no byte has when quoting is off.
    var quoteByte: Int { quote.map { Int($0.value) } ?? -1 }
    /// The comment prefix as a byte, or a value no byte has.
    var commentByte: Int { commentPrefix.map { Int($0.value) } ?? -1 }
}
