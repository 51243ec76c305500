/// A CSV or TSV file that cannot be read or written, with the file and the line at fault.
///
/// ```swift
/// do { while let record = try reader.next() { … } }
/// catch let error as CSVError where error.reason == .unterminatedQuote {
///     print(error)   // "cards.csv:12: unterminated quoted field (the quote opens on this line)"
/// }
/// ```
public struct CSVError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Hashable, Sendable {
        /// A field holds bytes that are not UTF-8; `field` is 1-based.
        case invalidUTF8(field: Int)
        /// A quoted field is still open at the end of the input; the error's line is the
        /// line on which its opening quote stands.
        case unterminatedQuote
        /// A record is longer than ``CSVDialect/maximumRecordSize``.
        case recordTooLarge(limit: Int)
        /// The dialect cannot be used (for example the quote equals the separator).
        case invalidDialect(String)
        /// A field cannot be written: quoting is off and it holds a separator, a line break
        /// or the comment prefix. `field` is 1-based.
        case unquotableField(field: Int)
        /// The input is not valid in its encoding (an unpaired UTF-16 surrogate, a file that
        /// ends inside a character).
        case undecodable(String)
        /// A column has no note field to go to: `column` is 1-based, `label` its name in the
        /// file's header row or `#columns:` line, `fields` the note type's fields.
        case unmappedColumn(column: Int, label: String?, fields: [String])
        /// The operating system refused to open, read or write the file.
        case io(String)
    }

    /// What went wrong.
    public var reason: Reason
    /// The file, when the input or output is a file (`-` for standard input or output).
    public var path: String?
    /// The 1-based line the problem is on, when it is in the content.
    public var line: Int?

    /// Creates an error.
    public init(_ reason: Reason, path: String? = nil, line: Int? = nil) {
        self.reason = reason
        self.path = path
        self.line = line
    }

    /// `path:line: reason`, e.g. `verbs.csv:7: invalid UTF-8 in field 2`.
    public var description: String {
        var location = path ?? "<input>"
        if let line { location += ":\(line)" }
        return "\(location): \(message)"
    }

    /// The reason in words, without the location.
    public var message: String {
        switch reason {
        case .invalidUTF8(let field): "invalid UTF-8 in field \(field)"
        case .unterminatedQuote: "unterminated quoted field (the quote opens on this line)"
        case .recordTooLarge(let limit): "record longer than \(limit) bytes (is a quote left open?)"
        case .invalidDialect(let why): "invalid CSV dialect: \(why)"
        case .unquotableField(let field): "field \(field) needs quotes but quoting is off"
        case .undecodable(let why): why
        case .unmappedColumn(let column, let label, let fields):
            "column \(column)\(label.map { " (\"\($0)\")" } ?? "") has no field to go to (the note type's fields: "
                + "\(fields.joined(separator: ", ")); also Tags, GUID, Deck, Notetype)"
        case .io(let why): why
        }
    }
}
