import Foundation

/// Writes notes as an Anki-style text file: header lines (`#separator:tab`, `#html:true`,
/// `#columns:…`, `#tags column:N`, …), then one record per note, which Anki 2.1.54+ and
/// ``TextImportReader`` read back.
///
/// ```swift
/// var writer = try TextExportWriter(fileHandle: handle, columns: [.front, .back, .tags])
/// try writer.write(TextImportRow(front: "chat", back: "cat", tags: ["animals"]))
/// try writer.flush()
/// ```
///
/// The header lines are derived from ``settings`` and the column roles: `#columns:` lists
/// the roles' labels and each GUID, note type, deck or tags column gets its `… column:N`
/// line. Records are quoted like CSV (doubled quotes), with `\n` line endings; a first field
/// starting with `#` is quoted so it is not read as a comment.
public struct TextExportWriter {
    private var writer: CSVWriter
    /// The role of each column, in order.
    public let columns: [TextImportRole]
    /// What the header lines say.
    public let settings: TextImportSettings

    /// Writes to an open file handle (the caller closes it after ``flush()``).
    ///
    /// - Parameters:
    ///   - columns: the role of each column; at most one of each role except
    ///     ``TextImportRole/extra(name:)``.
    ///   - settings: the separator (default tab), `#html`, `#tags`, `#notetype`, `#deck`
    ///     to state; its column fields are replaced by those `columns` imply.
    /// - Throws: ``CSVError`` when a column label cannot be written.
    public init(fileHandle: FileHandle, path: String? = nil, columns: [TextImportRole] = [.front, .back, .tags],
                settings: TextImportSettings = .ankiExport) throws {
        let resolved = Self.resolve(settings, columns: columns)
        writer = CSVWriter(fileHandle: fileHandle, dialect: Self.dialect(resolved), path: path)
        self.columns = columns
        self.settings = resolved
        try writeHeader()
    }

    /// Writes into memory; read the result with ``data``.
    public init(columns: [TextImportRole] = [.front, .back, .tags], settings: TextImportSettings = .ankiExport) throws {
        let resolved = Self.resolve(settings, columns: columns)
        writer = CSVWriter(dialect: Self.dialect(resolved))
        self.columns = columns
        self.settings = resolved
        try writeHeader()
    }

    /// Everything written so far, for a writer made with ``init(columns:settings:)``.
    public var data: Data { writer.data }

    /// Writes one note, its values placed by ``columns``: tags joined with spaces (the
    /// file-wide `#tags:` left out), absent GUID, note type or deck as empty cells, extra
    /// fields matched by name, else in order.
    /// - Throws: ``CSVError`` on a write error.
    public mutating func write(_ row: TextImportRow) throws {
        var extras = row.extraFields[...]
        var cells: [String] = []
        cells.reserveCapacity(columns.count)
        for role in columns {
            switch role {
            case .front: cells.append(row.front)
            case .back: cells.append(row.back)
            case .tags: cells.append(row.tags.filter { !settings.tags.contains($0) }.joined(separator: " "))
            case .guid: cells.append(row.guid ?? "")
            case .notetype: cells.append(row.notetype ?? "")
            case .deck: cells.append(row.deck ?? "")
            case .extra(let name):
                if let name, let match = extras.firstIndex(where: { $0.name == name }) {
                    cells.append(extras[match].value)
                    extras.remove(at: match)
                } else if let next = extras.first {
                    cells.append(next.value)
                    extras.removeFirst()
                } else {
                    cells.append("")
                }
            }
        }
        try writer.write(cells)
    }

    /// Writes one record as is, one value per column.
    public mutating func write(fields: [String]) throws {
        try writer.write(fields)
    }

    /// Writes the buffered bytes to the file handle.
    public mutating func flush() throws {
        try writer.flush()
    }

    private mutating func writeHeader() throws {
        for line in try settings.headerLines(separator: settings.separator ?? .tab) {
            try writer.writeRawLine(line)
        }
    }

    private static func dialect(_ settings: TextImportSettings) -> CSVDialect {
        CSVDialect(separator: settings.separator ?? .tab, commentPrefix: "#", lineEnding: .lf)
    }

    private static func resolve(_ settings: TextImportSettings, columns: [TextImportRole]) -> TextImportSettings {
        var resolved = settings
        if resolved.separator == nil { resolved.separator = .tab }
        func column(of role: TextImportRole) -> Int? { columns.firstIndex(of: role).map { $0 + 1 } }
        resolved.columns = columns.map(\.label)
        resolved.tagsColumn = column(of: .tags)
        resolved.guidColumn = column(of: .guid)
        resolved.notetypeColumn = column(of: .notetype)
        resolved.deckColumn = column(of: .deck)
        resolved.headerRow = .absent
        return resolved
    }
}
