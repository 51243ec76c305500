import Foundation

/// A streaming CSV/TSV reader: RFC 4180 quoting, any separator, CRLF/LF/CR line endings, a
/// UTF-8 byte order mark skipped, constant memory.
///
/// The reader works on bytes read in 256 KiB chunks and decodes each field from UTF-8 once,
/// so memory stays at one chunk plus the longest record whatever the size of the file.
/// Invalid UTF-8 and an unterminated quote are reported as ``CSVError`` values that name the
/// file, the line and the field.
///
/// ```swift
/// var reader = try CSVReader(url: URL(fileURLWithPath: "verbs.csv"),
///                            dialect: CSVDialect(header: .firstRow))
/// while let record = try reader.next() {
///     print(record.line, record.fields)
/// }
/// ```
///
/// Beyond RFC 4180 the reader is lenient the way common tools are: records may have
/// different field counts, a quote inside an unquoted field is literal, and text between a
/// closing quote and the next separator is kept as is (`"ab"c` reads `abc`).
///
/// A `CSVReader` owns its input through a reference: copies of a reader share one position.
public struct CSVReader {
    private let parser: CSVParser
    private var headerRead = false

    /// The header row, when ``CSVDialect/header`` is ``CSVDialect/Header/firstRow`` and the
    /// first record has been read (by ``next()`` or ``readHeader()``).
    public private(set) var header: [String]?

    /// Reads the file at `url`.
    ///
    /// - Throws: ``CSVError`` with reason ``CSVError/Reason/io(_:)`` when the file cannot be
    ///   opened (missing, unreadable, a directory).
    public init(url: URL, dialect: CSVDialect = .csv) throws {
        parser = CSVParser(input: try CSVInput.file(at: url), dialect: dialect)
    }

    /// Reads an open file handle (a file, a pipe, a socket) until its end. The caller keeps
    /// ownership of the handle and closes it. `path` names the input in errors.
    public init(fileHandle: FileHandle, dialect: CSVDialect = .csv, path: String? = nil) {
        parser = CSVParser(input: CSVInput.handle(fileHandle, path: path), dialect: dialect)
    }

    /// Reads bytes already in memory.
    public init(data: Data, dialect: CSVDialect = .csv, path: String? = nil) {
        parser = CSVParser(input: CSVInput.memory([UInt8](data), path: path), dialect: dialect)
    }

    /// Reads a string (as its UTF-8 bytes).
    public init(string: String, dialect: CSVDialect = .csv) {
        parser = CSVParser(input: CSVInput.memory(Array(string.utf8), path: nil), dialect: dialect)
    }

    /// Reads standard input; errors name it `-`.
    public static func standardInput(dialect: CSVDialect = .csv) -> CSVReader {
        CSVReader(fileHandle: .standardInput, dialect: dialect, path: "-")
    }

    /// Wraps an existing parser (the text-import reader shares its parser with this reader).
    init(parser: CSVParser) {
        self.parser = parser
    }

    /// The dialect the reader parses with.
    public var dialect: CSVDialect { parser.dialect }

    /// The path named in errors, if any.
    public var path: String? { parser.path }

    /// How many bytes of the input have been consumed so far: for a progress indicator.
    public var bytesConsumed: Int { parser.bytesConsumed }

    /// Reads the header row if the dialect has one and it has not been read yet.
    ///
    /// - Returns: the header's fields, or `nil` when the dialect has no header or the input
    ///   is empty.
    /// - Throws: ``CSVError`` as ``next()`` does.
    @discardableResult
    public mutating func readHeader() throws -> [String]? {
        if !headerRead {
            try checkDialect()
            headerRead = true
            if parser.dialect.header == .firstRow {
                header = try parser.nextRecord()?.fields
            }
        }
        return header
    }

    /// Reads the next record, or returns `nil` at the end of the input.
    ///
    /// Cost: one scan of the record's bytes, one `String` per field; reading more input when
    /// the buffer runs out.
    /// - Throws: ``CSVError`` for invalid UTF-8 (with line and field), an unterminated quote
    ///   (with the line the quote opens on), a record past ``CSVDialect/maximumRecordSize``,
    ///   an unusable dialect, or a read error.
    public mutating func next() throws -> CSVRecord? {
        if !headerRead { try readHeader() }
        return try parser.nextRecord()
    }

    /// Reads every remaining record into an array. Meant for small inputs; prefer ``next()``
    /// or ``forEachRecord(_:)`` for files of unknown size.
    public mutating func readAll() throws -> [CSVRecord] {
        var records: [CSVRecord] = []
        while let record = try next() { records.append(record) }
        return records
    }

    /// Calls `body` with each remaining record, in order, in constant memory.
    /// - Throws: what ``next()`` or `body` throws.
    public mutating func forEachRecord(_ body: (CSVRecord) throws -> Void) throws {
        while let record = try next() { try body(record) }
    }

    private func checkDialect() throws {
        if let problem = parser.dialect.problem {
            throw CSVError(.invalidDialect(problem), path: parser.path)
        }
    }
}
