/// The file formats decks are imported from, exported to and converted between.
public enum InterchangeFormat: String, CaseIterable, Sendable, Codable {
    /// A `.sampledeck` package (a directory).
    case sampledeck
    /// A zip archive of a `.sampledeck` package (what `deck archive` writes).
    case zip
    /// Comma-separated values with Anki's text headers.
    case csv
    /// Tab-separated values with Anki's text headers.
    case tsv
    /// The lossless JSON export (`Schemas/sampledeck.schema.json`).
    case json
    /// An Anki deck package.
    case apkg
    /// An Anki collection package (import only).
    case colpkg
    /// One self-contained HTML page (export only).
    case html

    /// The format a path's extension names (`.sampledeck`, `.zip`, `.csv`, `.txt` as TSV, …), or nil.
    public init?(inferringFrom path: String) {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        let lower = trimmed.lowercased()
        guard let dot = lower.lastIndex(of: "."), !lower[dot...].contains("/") else { return nil }
        let ext = String(lower[lower.index(after: dot)...])
        switch ext {
        case "txt": self = .tsv
        case "htm": self = .html
        default:
            guard let format = InterchangeFormat(rawValue: ext) else { return nil }
            self = format
        }
    }

    /// The extension of files in this format.
    public var fileExtension: String {
        switch self {
        case .zip: "sampledeck.zip"
        default: rawValue
        }
    }

    /// Whether cards can be imported from this format into a deck.
    public var isImportable: Bool { [.csv, .tsv, .json, .apkg, .colpkg].contains(self) }

    /// Whether files in this format are binary (zip containers), not text a terminal can show.
    public var isBinary: Bool { [.zip, .apkg, .colpkg].contains(self) }

    /// Whether a deck can be exported to this format.
    public var isExportable: Bool { [.csv, .tsv, .json, .apkg, .colpkg, .html].contains(self) }
}
