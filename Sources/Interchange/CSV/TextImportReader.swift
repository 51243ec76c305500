import Foundation

/// Reads an Anki-style text file (or any CSV/TSV of cards, as a spreadsheet writes it) note
/// by note: encoding, header lines, separator guessing, an optional header row, and columns
/// sorted into roles.
///
/// The reader decodes the file (``TextImportSettings/encoding``: UTF-8, UTF-16 recognised by
/// its byte order mark, Latin-1 when asked), reads the header lines at the top of the file
/// (see ``TextImportSettings``), applies the caller's ``TextImportSettings/overrides``,
/// guesses the separator when neither gives it (``CSVSeparator/sniff(_:quote:commentPrefix:isComplete:)``),
/// takes a first record such as `front,back,tags` as column labels
/// (``TextImportSettings/HeaderRow``), then yields one ``TextImportRow`` per record. Lines
/// starting with `#` after the headers are comments. Rows with nothing in them and rows
/// whose first field is empty are not returned: ``diagnostics`` counts them, with their
/// lines. Memory stays constant, as with ``CSVReader``.
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
    /// For each column of ``roles``, whether it has a field to go to.
    private var destinations: [Bool] = []

    /// The settings in effect: those passed in, overridden by the file's header lines and then
    /// by ``TextImportSettings/overrides``, with the separator resolved and the header row's
    /// labels in ``TextImportSettings/columns``. Complete once ``readHeaders()`` or ``next()``
    /// has been called.
    public private(set) var settings: TextImportSettings
    /// How the settings came about: for a dry run's report.
    public private(set) var resolution = TextImportResolution()
    /// The rows not returned and the values dropped so far, with their lines.
    public private(set) var diagnostics = TextImportDiagnostics()

    /// Reads the file at `url`.
    /// - Throws: ``CSVError`` when the file cannot be opened.
    public init(url: URL, settings: TextImportSettings = TextImportSettings()) throws {
        self.init(parser: CSVParser(input: try CSVInput.file(at: url), dialect: Self.dialect(settings)), settings: settings)
    }

    /// Reads an open file handle to its end; the caller keeps and closes it.
    public init(fileHandle: FileHandle, path: String? = nil, settings: TextImportSettings = TextImportSettings()) {
        self.init(parser: CSVParser(input: CSVInput.handle(fileHandle, path: path), dialect: Self.dialect(settings)), settings: settings)
    }

    /// Reads bytes already in memory.
    public init(data: Data, path: String? = nil, settings: TextImportSettings = TextImportSettings()) {
        self.init(parser: CSVParser(input: CSVInput.memory([UInt8](data), path: path), dialect: Self.dialect(settings)), settings: settings)
    }

    /// Reads a string.
    public init(string: String, settings: TextImportSettings = TextImportSettings()) {
        self.init(parser: CSVParser(input: CSVInput.memory(Array(string.utf8), path: nil), dialect: Self.dialect(settings)), settings: settings)
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
    private static func dialect(_ settings: TextImportSettings) -> CSVDialect {
        CSVDialect(separator: .tab, commentPrefix: "#", lineEnding: .lf, encoding: settings.encoding)
    }

    /// The path named in errors, if any.
    public var path: String? { parser.path }

    /// How many bytes of the input have been consumed so far: for a progress indicator.
    public var bytesConsumed: Int { parser.bytesConsumed }

    /// The role of each column seen so far (it grows when a wider row arrives).
    public var columnRoles: [TextImportRole] { roles }

    /// Reads the header lines, resolves the separator and the header row, and returns the
    /// settings in effect. Called by the first ``next()``; calling it again does nothing.
    /// - Throws: ``CSVError`` for unreadable input (invalid UTF-8 in a header line included),
    ///   and ``CSVError/Reason/unmappedColumn(column:label:fields:)`` for a labelled column
    ///   with no field to go to.
    @discardableResult
    public mutating func readHeaders() throws -> TextImportSettings {
        guard !headersRead else { return settings }
        headersRead = true

        var columnsLine: String?
        var isFirstLine = true
        let separatorBefore = settings.separator
        while let bytes = try parser.peekRawLine() {
            guard bytes.first == UInt8(ascii: "#") || (isFirstLine && bytes.starts(with: "tags:".utf8)) else { break }
            let line = try decodeHeader(bytes)
            switch settings.apply(headerLine: line, isFirstLine: isFirstLine) {
            case .columns(let value): columnsLine = value
            case .header: if !line.hasPrefix("# ") && line.contains(":") { resolution.headerLines += 1 }
            case .data: break
            }
            isFirstLine = false
            try parser.skipRawLine()
        }
        // Blank lines before the data would be skipped anyway; skip them now to see the data.
        while let bytes = try parser.peekRawLine(), bytes.isEmpty { try parser.skipRawLine() }
        resolution.encoding = parser.encoding ?? .utf8

        // The caller's options win over the file's header lines.
        let overrides = settings.overrides
        if let separator = overrides.separator {
            settings.separator = separator
            resolution.separatorSource = .given
        } else if settings.separator != nil {
            resolution.separatorSource = settings.separator != separatorBefore ? .header : .given
        }
        if let notetype = overrides.notetype { settings.notetype = notetype }
        if let deck = overrides.deck { settings.deck = deck }
        for tag in overrides.tags where !settings.tags.contains(tag) { settings.tags.append(tag) }

        if settings.separator == nil {
            let sample = try parser.peekBytes(upTo: 64 << 10)
            if let sniffed = CSVSeparator.sniff(sample.bytes, isComplete: sample.isComplete, preferred: settings.likelySeparator) {
                settings.separator = sniffed
            } else {
                // One column: Anki's rule on the first line (its colon and space included).
                let firstLine = try parser.peekRawLine() ?? []
                settings.separator = settings.likelySeparator ?? CSVSeparator.ankiGuessOrder.first { firstLine.contains($0.byte) }
                    ?? (firstLine.isEmpty ? .tab : .space)
            }
            resolution.separatorSource = .sniffed
        }
        let separator = settings.separator ?? .tab
        parser.dialect.separator = separator
        parser.dialect.backslashEscapes = settings.backslashEscapes && separator == .tab && resolution.headerLines == 0
        resolution.backslashEscapes = parser.dialect.backslashEscapes

        if let given = overrides.columns {
            settings.columns = given
            resolution.columnsSource = .given
            // A first record that repeats the labels (or any header row, with --header) is skipped.
            if settings.headerRow != .absent, columnsLine == nil, let first = try parser.nextRecord() {
                if settings.headerRow == .present || Self.looksLikeHeader(first.fields, fieldNames: settings.fieldNames) {
                    resolution.headerRowLine = first.line
                } else {
                    pending = first
                }
            }
        } else if let columnsLine {
            var labels = CSVReader(string: columnsLine, dialect: CSVDialect(separator: separator))
            settings.columns = try labels.next()?.fields ?? []
            resolution.columnsSource = .header
        } else if settings.headerRow == .present {
            // The first record is the header; labels given by the caller take precedence.
            if let first = try parser.nextRecord() {
                resolution.headerRowLine = first.line
                if settings.columns == nil {
                    settings.columns = first.fields.map { $0.trimmingASCIISpaces() }
                    resolution.columnsSource = .headerRow
                }
            }
        } else if settings.headerRow == .detect, let first = try parser.nextRecord() {
            if Self.looksLikeHeader(first.fields, fieldNames: settings.fieldNames) {
                resolution.headerRowLine = first.line
                if settings.columns == nil {
                    settings.columns = first.fields.map { $0.trimmingASCIISpaces() }
                    resolution.columnsSource = .headerRow
                }
            } else {
                pending = first
            }
        }
        if settings.columns != nil && resolution.columnsSource == .none { resolution.columnsSource = .given }
        if let labels = settings.columns, !labels.isEmpty {
            try updateRoles(count: labels.count)
        }
        return settings
    }

    /// Reads the next note, or `nil` at the end of the input. Rows with nothing in them and
    /// rows whose first field is empty are skipped and counted in ``diagnostics``.
    ///
    /// Cost: that of ``CSVReader/next()`` plus sorting the fields by role.
    /// - Throws: ``CSVError`` for invalid UTF-8, an unterminated quote, an oversized record
    ///   or a read error, with the file and line; ``CSVError/Reason/unmappedColumn(column:label:fields:)``
    ///   for a value in a column with no field to go to.
    public mutating func next() throws -> TextImportRow? {
        if !headersRead { try readHeaders() }
        while true {
            let record: CSVRecord
            if let pending {
                record = pending
                self.pending = nil
            } else if let next = try parser.nextRecord() {
                record = next
            } else {
                return nil
            }
            if record.count > roles.count { try updateRoles(count: record.count) }
            if record.fields.allSatisfy(\.isEmpty) {
                diagnostics.emptyRowLines.append(record.line)
                continue
            }
            let row = try row(from: record)
            if row.front.isEmpty {
                diagnostics.emptyFirstFieldLines.append(record.line)
                continue
            }
            return row
        }
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

    /// Computes the roles of `count` columns and which of them have a field to go to. A
    /// labelled column without one is an error at once (unless extra columns are ignored); an
    /// unlabelled one only when a row has a value in it.
    private mutating func updateRoles(count: Int) throws {
        let old = roles.count
        roles = settings.columnRoles(count: count)
        destinations = roles.map(settings.hasDestination)
        for index in old..<count where !destinations[index] {
            let label = settings.columns.flatMap { index < $0.count && !$0[index].isEmpty ? $0[index] : nil }
            if let label {
                if settings.ignoresExtraColumns {
                    if !diagnostics.ignoredColumns.contains(index + 1) { diagnostics.ignoredColumns.append(index + 1) }
                } else {
                    throw CSVError(.unmappedColumn(column: index + 1, label: label, fields: settings.fieldNames ?? []), path: parser.path,
                                   line: resolution.headerRowLine)
                }
            }
        }
    }

    private mutating func row(from record: CSVRecord) throws -> TextImportRow {
        var row = TextImportRow(front: "", tags: settings.tags, notetype: settings.notetype,
                                deck: settings.deck, line: record.line)
        var truncated = false
        for (index, value) in record.fields.enumerated() {
            guard destinations[index] else {
                guard !value.isEmpty else { continue }
                if settings.ignoresExtraColumns {
                    truncated = true
                    if !diagnostics.ignoredColumns.contains(index + 1) { diagnostics.ignoredColumns.append(index + 1) }
                    continue
                }
                throw CSVError(.unmappedColumn(column: index + 1, label: nil, fields: settings.fieldNames ?? []),
                               path: parser.path, line: record.line)
            }
            switch roles[index] {
            case .front: row.front = value
            case .back: row.back = value
            case .tags:
                let tags = TextImportSettings.splitTagCell(Substring(value))
                if row.tags.isEmpty && tags.count < 2 {
                    row.tags = tags
                } else {
                    row.tags.reserveCapacity(row.tags.count + tags.count)
                    if row.tags.count + tags.count <= 32 {
                        for tag in tags where !row.tags.contains(tag) { row.tags.append(tag) }
                    } else {
                        // Many tags (20,000 in a cell): repeats found through a set, not a scan per tag.
                        var seen = Set(row.tags)
                        for tag in tags where seen.insert(tag).inserted { row.tags.append(tag) }
                    }
                }
            case .guid: row.guid = value.isEmpty ? nil : value
            case .notetype: if !value.isEmpty { row.notetype = value }
            case .deck: if !value.isEmpty { row.deck = value }
            case .extra(let name): row.extraFields.append(TextImportField(name: name, column: index + 1, value: value))
            }
        }
        if truncated { diagnostics.truncatedRowLines.append(record.line) }
        return row
    }

    private func decodeHeader(_ bytes: [UInt8]) throws -> String {
        guard let line = String(validating: bytes, as: UTF8.self) else {
            throw CSVError(.invalidUTF8(field: 1), path: parser.path, line: parser.line)
        }
        return line
    }

    /// Whether a first record reads as column labels rather than a note: every cell a short,
    /// distinct, non-empty label, the first field named (`Front`, `Question`, or the note
    /// type's first field), and at least two cells (or the only one) naming a field or role.
    static func looksLikeHeader(_ cells: [String], fieldNames: [String]? = nil) -> Bool {
        let labels = cells.map { $0.trimmingASCIISpaces().lowercased() }
        guard !labels.isEmpty, Set(labels).count == labels.count else { return false }
        guard labels.allSatisfy({ !$0.isEmpty && $0.count <= 64 && !$0.contains(where: \.isNewline) }) else {
            return false
        }
        let extraNames = Set((fieldNames ?? []).dropFirst(2).map { $0.lowercased() })
        let named = labels.compactMap { TextImportRole(label: $0, fieldNames: fieldNames) }
        guard Set(named).count == named.count, named.contains(.front) else { return false }
        let namedExtras = labels.filter { extraNames.contains($0) }.count
        return named.count + namedExtras >= min(2, labels.count)
    }
}

/// How a ``TextImportReader`` arrived at its settings, for a report such as `deck import --dry-run`'s.
public struct TextImportResolution: Hashable, Sendable {
    /// Where a setting came from.
    public enum Source: String, Hashable, Sendable {
        /// Nowhere: the default.
        case none
        /// The caller (a command-line option).
        case given
        /// A header line of the file (`#separator:`, `#columns:`).
        case header
        /// The file's first record (a header row).
        case headerRow = "header row"
        /// Guessed from the first lines.
        case sniffed
    }

    /// The encoding the file was read in.
    public var encoding: CSVEncoding = .utf8
    /// Where the separator came from.
    public var separatorSource: Source = .none
    /// Where the column labels came from.
    public var columnsSource: Source = .none
    /// The line of the header row that was skipped, if any.
    public var headerRowLine: Int?
    /// How many `#key:value` header lines the file has.
    public var headerLines = 0
    /// Whether TSV backslash escapes are decoded.
    public var backslashEscapes = false

    /// Creates an empty resolution.
    public init() {}
}

/// What a ``TextImportReader`` left out, with the lines: rows not returned and values dropped.
public struct TextImportDiagnostics: Hashable, Sendable {
    /// Rows whose every cell is empty (`;;;` as spreadsheets write blank rows).
    public var emptyRowLines: [Int] = []
    /// Rows with something in them but nothing in the first field (Anki skips them too).
    public var emptyFirstFieldLines: [Int] = []
    /// Rows that lost a value in a column with no field to go to (with
    /// ``TextImportSettings/ignoresExtraColumns``).
    public var truncatedRowLines: [Int] = []
    /// The 1-based columns whose values were dropped.
    public var ignoredColumns: [Int] = []

    /// Creates empty diagnostics.
    public init() {}

    /// Rows not returned.
    public var skippedRows: Int { emptyRowLines.count + emptyFirstFieldLines.count }
}
