import DeckDocument
import Foundation

/// Exports a deck as an Anki text file, comma- or tab-separated: header lines
/// (`#separator:`, `#html:true`, `#columns:`, `#guid column:`, …), then one row per card with
/// its GUID (when it has one), note type (Basic, Basic (and reversed card), Cloze), deck path,
/// front (the cloze text for cloze cards), back and tags. ``DeckTextImporter`` and Anki read it back.
public struct DeckTextExporter: Sendable {
    /// `.comma` for CSV, `.tab` for TSV.
    public var separator: CSVSeparator

    /// The columns written, in order.
    public static let columns: [TextImportRole] = [.guid, .notetype, .deck, .front, .back, .tags]

    /// Creates an exporter.
    /// Called with the number of notes written so far, now and then and once at the end (for a
    /// progress bar).
    public var progress: (@Sendable (Int) -> Void)?

    public init(separator: CSVSeparator) {
        self.separator = separator
    }

    /// Writes the saved cards of `document` to `url` (under a temporary name, then renamed).
    /// - Throws: ``CSVError`` or ``InterchangeError`` when writing fails (nothing is left at `url`).
    @discardableResult
    public func export(_ document: DeckDocument, to url: URL) throws -> Int {
        let out = try OutputFile(url)
        defer { out.discard() }
        guard let handle = out.fileHandle else { throw InterchangeError(.io, path: url.path, reason: "output closed") }
        var writer = try TextExportWriter(fileHandle: handle, path: url.path, columns: Self.columns,
                                          settings: TextImportSettings(separator: separator, isHTML: true, headerRow: .absent))
        var count = 0
        try document.forEachCardSnapshot { card in
            let notetype = switch card.kind {
            case .basic: "Basic"
            case .reversible: "Basic (and reversed card)"
            case .cloze: "Cloze"
            }
            try writer.write(TextImportRow(front: card.kind == .cloze ? (card.text ?? card.front) : card.front, back: card.back,
                                           tags: AnkiExporter.ankiTags(card.tags), guid: card.ankiGUID, notetype: notetype,
                                           deck: card.deckPath))
            count += 1
            if count & 63 == 0 { progress?(count) }
        }
        progress?(count)
        try writer.flush()
        try out.commit()
        return count
    }
}
