import Foundation

/// Reads an Anki-style text file (or any CSV/TSV of cards) note by note: header lines,
/// separator guessing, an optional header row, and columns sorted into roles.
///
/// The reader reads the header lines at the top of the file (see ``TextImportSettings``),
/// guesses the separator when no `#separator:` line gives it, takes a first record such as
/// `front,back,tags` as column labels (``TextImportSettings/HeaderRow``), then yields one
/// ``TextImportRow`` per record. Lines starting with `#` after the headers are comments.
/// Memory stays constant, as with ``CSVReader``.
///
/// ```swift
/// var reader = try TextImportReader(url: URL(fileURLWithPath: "verbs.txt"))
/// while let row = try reader.next() {
///     print(row.front, row.back, row.tags)
/// }
/// print(reader.settings.separator ?? .tab, reader.columnRoles)
/// ```
///
/// Settings passed in are the starting point; the file's header lines override them.
public struct TextImportReader {
    private let parser: CSVParser
    private var headersRead = false
    private var pending: CSVRecord?
    private var roles: [TextImportRole] = []

    /// The settings in effect: those passed in, overridden by the file's header lines, with
    /// the separator resolved and the header row's labels in ``TextImportSettings/columns``.
    /// Complete once ``readHeaders()`` or ``next()`` has been called.
    public private(set) var settings: TextImportSettings

    /// Reads the file at `url`.
    /// - Throws: ``CSVError`` when the file cannot be opened.
    public init(url: URL, settings: TextImportSettings = TextImportSettings()) throws {
        self.init(parser: CSVParser(input: try CSVInput.file(at: url), dialect: Self.dialect), settings: settings)
    }

    /// Reads an open file handle to its end; the caller keeps and closes it.
    public init(fileHandle: FileHandle, path: String? = nil, settings: TextImportSettings = TextImportSettings()) {
        self.init(parser: CSVParser(input: CSVInput.handle(fileHandle, path: path), dialect: Self.dialect), settings: settings)
    }

    /// Reads bytes already in memory.
    public init(data: Data, path: String? = nil, settings: TextImportSettings = TextImportSettings()) {
        self.init(parser: CSVParser(input: CSVInput.memory([UInt8](data), path: path), dialect: Self.dialect), settings: settings)
    }

    /// Reads a string.
    public init(string: String, settings: TextImportSettings = TextImportSettings()) {
        self.init(parser: CSVParser(input: CSVInput.memory(Array(string.utf8), path: nil), dialect: Self.dialect), settings: settings)
    }

    /// Reads standard input; errors name it `-`.
    public static func standardInput(settings: TextImportSettings = TextImportSettings()) -> TextImportReader {
        TextImportReader(fileHandle: .standardInput, path: "-", settings: settings)
    }

    private init(parser: CSVParser, settings: TextImportSettings) {
        self.parser = parser
        self.settings = settings
    }

    /// The dialect of Anki's text files, before the separator is known.
    private static let dialect = CSVDialect(separator: .tab, commentPrefix: "#", lineEnding: .lf)

    /// The path named in errors, if any.
    public var path: String? { parser.path }

    /// How many bytes of the input have been consumed so far: for a progress indicator.
    public var bytesConsumed: Int { parser.bytesConsumed }

    /// The role of each column seen so far (it grows when a wider row arrives).
    public var columnRoles: [TextImportRole] { roles }

    /// Reads the header lines, resolves the separator and the header row, and returns the
    /// settings in effect. Called by the first ``next()``; calling it again does nothing.
    /// - Throws: ``CSVError`` for unreadable input (invalid UTF-8 in a header line included).
    @discardableResult
    public mutating func readHeaders() throws -> TextImportSettings {
        guard !headersRead else { return settings }
        headersRead = true

        var columnsLine: String?
        var isFirstLine = true
        while let bytes = try parser.peekRawLine() {
            guard bytes.first == UInt8(ascii: "#") || (isFirstLine && bytes.starts(with: "tags:".utf8)) else { break }
            let line = try decodeHeader(bytes)
            if case .columns(let value) = settings.apply(headerLine: line, isFirstLine: isFirstLine) {
                columnsLine = value
            }
            isFirstLine = false
            try parser.skipRawLine()
        }
        // Blank lines before the data would be skipped anyway; skip them now to see the data.
        while let bytes = try parser.peekRawLine(), bytes.isEmpty { try parser.skipRawLine() }

        if settings.separator == nil {
            let firstLine = try parser.peekRawLine() ?? []
            settings.separator = CSVSeparator.ankiGuessOrder.first { firstLine.contains($0.byte) }
                ?? (firstLine.isEmpty ? .tab : .space)
        }
        let separator = settings.separator ?? .tab
        parser.dialect.separator = separator

        if let columnsLine {
            var labels = CSVReader(string: columnsLine, dialect: CSVDialect(separator: separator))
            settings.columns = try labels.next()?.fields ?? []
        } else if settings.headerRow == .present {
            // The first record is the header; labels given by the caller take precedence.
            if let first = try parser.nextRecord(), settings.columns == nil {
                settings.columns = first.fields.map { $0.trimmingASCIISpaces() }
            }
        } else if settings.headerRow == .detect, settings.columns == nil, let first = try parser.nextRecord() {
            if Self.looksLikeHeader(first.fields) {
                settings.columns = first.fields.map { $0.trimmingASCIISpaces() }
            } else {
                pending = first
            }
        }
        return settings
    }

    /// Reads the next note, or `nil` at the end of the input.
    ///
    /// Cost: that of ``CSVReader/next()`` plus sorting the fields by role.
    /// - Throws: ``CSVError`` for invalid UTF-8, an unterminated quote, an oversized record
    ///   or a read error, with the file and line.
    public mutating func next() throws -> TextImportRow? {
        try readHeaders()
        let record: CSVRecord
        if let pending {
            record = pending
            self.pending = nil
        } else if let next = try parser.nextRecord() {
            record = next
        } else {
            return nil
        }
        if record.count > roles.count { roles = settings.columnRoles(count: record.count) }
        return row(from: record)
    }

    /// Reads every remaining note into an array; for small inputs.
    public mutating func readAll() throws -> [TextImportRow] {
        var rows: [TextImportRow] = []
        while let row = try next() { rows.append(row) }
        return rows
    }

    /// Calls `body` with each remaining note, in order, in constant memory.
    public mutating func forEachRow(_ body: (TextImportRow) throws -> Void) throws {
        while let row = try next() { try body(row) }
    }

    private func row(from record: CSVRecord) -> TextImportRow {
        var row = TextImportRow(front: "", tags: settings.tags, notetype: settings.notetype,
                                deck: settings.deck, line: record.line)
        for (index, value) in record.fields.enumerated() {
            switch roles[index] {
            case .front: row.front = value
            case .back: row.back = value
            case .tags:
                let tags = TextImportSettings.splitTags(Substring(value))
                if row.tags.isEmpty && tags.count < 2 {
                    row.tags = tags
                } else {
                    row.tags.reserveCapacity(row.tags.count + tags.count)
                    for tag in tags where !row.tags.contains(tag) { row.tags.append(tag) }
                }
            case .guid: row.guid = value.isEmpty ? nil : value
            case .notetype: if !value.isEmpty { row.notetype = value }
            case .deck: if !value.isEmpty { row.deck = value }
            case .extra(let name): row.extraFields.append(TextImportField(name: name, column: index + 1, value: value))
            }
        }
        return row
    }

    private func decodeHeader(_ bytes: [UInt8]) throws -> String {
        guard let line = String(validating: bytes, as: UTF8.self) else {
            throw CSVError(.invalidUTF8(field: 1), path: parser.path, line: parser.line)
        }
        return line
    }

    /// Whether a first record reads as column labels rather than a note.
    static func looksLikeHeader(_ cells: [String]) -> Bool {
        let labels = cells.map { $0.trimmingASCIISpaces().lowercased() }
        guard !labels.isEmpty, Set(labels).count == labels.count else { return false }
        guard labels.allSatisfy({ !$0.isEmpty && $0.count <= 64 && !$0.contains(where: \.isNewline) }) else {
            return false
        }
        let named = labels.compactMap(TextImportRole.init(label:))
        guard Set(named).count == named.count, named.contains(.front) else { return false }
        return named.count >= min(2, labels.count)
    }
}
