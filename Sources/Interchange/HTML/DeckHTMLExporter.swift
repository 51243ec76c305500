import DeckDocument
import Foundation

/// Exports a deck as one self-contained HTML page to read or print: every card with its
/// front, back, kind, tags and deck path, and its media inlined as `data:` URLs (images as
/// `<img>`, sound as `<audio>`, video as `<video>`, anything else as a download link).
///
/// All card text is escaped: markup in a card (Anki fields are HTML) shows as text and can't
/// run; line breaks are kept. The page loads nothing from elsewhere.
///
/// Cost: one pass over the cards; each media file is read and base64-encoded where a card
/// uses it (small files, under 256 KiB, are encoded once and reused).
public struct DeckHTMLExporter: Sendable {
    /// Media files larger than this are linked by name instead of inlined (default 16 MiB).
    public var maximumInlineSize: Int

    /// Creates an exporter.
    public init(maximumInlineSize: Int = 16 << 20) {
        self.maximumInlineSize = maximumInlineSize
    }

    /// Writes the page for the saved cards of `document` to `url` (under a temporary name, then renamed).
    /// - Throws: ``InterchangeError`` when writing fails (nothing is left at `url`); the store's error.
    public func export(_ document: DeckDocument, to url: URL) throws {
        let out = try OutputFile(url)
        defer { out.discard() }
        let title = document.manifest.title
        try out.write("""
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="\(Self.escape(DeckManifest.generatorName))">
            <title>\(Self.escape(title))</title>
            <style>
            body { font-family: system-ui, sans-serif; max-width: 50em; margin: 2em auto; padding: 0 1em; color: #222; }
            .card { border: 1px solid #ccc; border-radius: 6px; padding: 0.8em 1em; margin: 1em 0; break-inside: avoid; }
            .front { font-size: 1.2em; font-weight: 600; white-space: pre-wrap; }
            .back { margin-top: 0.5em; padding-top: 0.5em; border-top: 1px dashed #ccc; white-space: pre-wrap; }
            .meta { color: #666; font-size: 0.85em; margin-top: 0.5em; }
            .tag { background: #eee; border-radius: 3px; padding: 0 0.3em; margin-right: 0.3em; }
            .media img, .media video { max-width: 100%; }
            </style>
            </head>
            <body>
            <h1>\(Self.escape(title))</h1>

            """)
        let description = try document.deckDescription()
        if !description.isEmpty { try out.write("<p class=\"description\">\(Self.escape(description))</p>\n") }
        let media = Dictionary(try document.allMedia().map { ($0.fileName, $0) }, uniquingKeysWith: { first, _ in first })
        var inlined: [String: String] = [:]
        var count = 0
        try document.forEachCardSnapshot { card in
            count += 1
            var html = "<section class=\"card \(card.kind.rawValue)\" id=\"card-\(card.id)\">\n"
            html += "<div class=\"front\">\(Self.escape(card.kind == .cloze ? (card.text ?? card.front) : card.front))</div>\n"
            if !card.back.isEmpty { html += "<div class=\"back\">\(Self.escape(card.back))</div>\n" }
            for name in card.media {
                guard let item = media[name] else { continue }
                html += "<div class=\"media\">\(try element(for: item, in: document, cache: &inlined))</div>\n"
            }
            var meta = "<span class=\"kind\">\(card.kind.rawValue)</span>"
            if let path = card.deckPath { meta += " · <span class=\"deck\">\(Self.escape(path))</span>" }
            if !card.tags.isEmpty {
                meta += " · " + card.tags.map { "<span class=\"tag\">\(Self.escape($0))</span>" }.joined()
            }
            html += "<div class=\"meta\">\(meta)</div>\n</section>\n"
            try out.write(html)
        }
        try out.write("<p class=\"meta\">\(count) card\(count == 1 ? "" : "s")</p>\n</body>\n</html>\n")
        try out.commit()
    }

    private func element(for item: DeckMedia, in document: DeckDocument, cache: inout [String: String]) throws -> String {
        let label = Self.escape(item.originalName.isEmpty ? item.fileName : item.originalName)
        let source: String
        if let cached = cache[item.fileName] {
            source = cached
        } else if item.size <= maximumInlineSize {
            // The name is checked, the file opened without following links and required to be regular.
            let data = try document.readMedia(named: item.fileName)
            source = "data:\(Self.escape(item.mime));base64,\(data.base64EncodedString())"
            if data.count < 256 << 10 { cache[item.fileName] = source }
        } else {
            return "<span class=\"missing\">\(label) (not inlined: \(item.size) bytes)</span>"
        }
        if item.mime.hasPrefix("image/") { return "<img src=\"\(source)\" alt=\"\(label)\">" }
        if item.mime.hasPrefix("audio/") { return "<audio controls src=\"\(source)\" title=\"\(label)\"></audio>" }
        if item.mime.hasPrefix("video/") { return "<video controls src=\"\(source)\" title=\"\(label)\"></video>" }
        return "<a download=\"\(label)\" href=\"\(source)\">\(label)</a>"
    }

    /// Text safe in HTML content and attribute values: `& < > " '` as character references.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
