import DeckDocument
import Foundation

/// Exports everything in a deck as JSON, described by `Schemas/sampledeck.schema.json`.
///
/// The output is deterministic: keys in a fixed order, cards in id order, tags and media
/// sorted by name, dates as ISO 8601 UTC with milliseconds. Exporting, importing the result
/// into a new deck (``DeckJSONImporter`` with ``DeckJSONImporter/adoptsTitle``) and exporting
/// again gives the same bytes. Media are listed with their SHA-256 and size; with
/// ``embedsMedia`` their bytes are included too (base64), so the file stands alone.
///
/// ```json
/// {"format": "sampledeck", "formatVersion": 1, "title": "French", "description": "",
///  "tags": ["verbs"], "media": [...], "cards": [{"kind": "basic", "front": "être", ...}]}
/// ```
///
/// Cost: one pass over the cards, streamed to the file; memory grows with the number of tag,
/// media and review links, not with the card text.
public struct DeckJSONExporter: Sendable {
    /// Whether media bytes are embedded (base64 `data`) rather than only referenced.
    public var embedsMedia: Bool

    /// The value of `format`.
    public static let formatName = "sampledeck"
    /// The value of `formatVersion` this exporter writes.
    public static let formatVersion = 1

    /// Creates an exporter.
    public init(embedsMedia: Bool = false) {
        self.embedsMedia = embedsMedia
    }

    /// Writes the saved contents of `document` to `url` (under a temporary name, then renamed).
    /// - Throws: ``InterchangeError`` when the file can't be written (nothing is left at `url`);
    ///   the store's error when reading fails.
    public func export(_ document: DeckDocument, to url: URL) throws {
        let out = try OutputFile(url)
        defer { out.discard() }
        try out.write("{\n")
        try out.write("  \"format\": \(JSONText.string(Self.formatName)),\n")
        try out.write("  \"formatVersion\": \(Self.formatVersion),\n")
        try out.write("  \"title\": \(JSONText.string(document.manifest.title)),\n")
        try out.write("  \"description\": \(JSONText.string(try document.deckDescription())),\n")
        try out.write("  \"tags\": \(JSONText.array(try document.allTags().map(\.name).sorted())),\n")
        let media = try document.allMedia()
        try out.write("  \"media\": [")
        for (index, item) in media.enumerated() {
            try out.write(index == 0 ? "\n" : ",\n")
            var line = "    {\"fileName\": \(JSONText.string(item.fileName)), \"originalName\": \(JSONText.string(item.originalName)), "
            line += "\"sha256\": \(JSONText.string(item.sha256)), "
            if let sha1 = item.sha1 { line += "\"sha1\": \(JSONText.string(sha1)), " }
            line += "\"mime\": \(JSONText.string(item.mime)), \"size\": \(item.size)"
            try out.write(line)
            if embedsMedia {
                // The name is checked, the file opened without following links and required to be regular.
                let data = try document.readMedia(named: item.fileName)
                try out.write(", \"data\": \"\(data.base64EncodedString())\"")
            }
            try out.write("}")
        }
        try out.write(media.isEmpty ? "],\n" : "\n  ],\n")
        try out.write("  \"cards\": [")
        var first = true
        try document.forEachCardSnapshot { card in
            try out.write(first ? "\n" : ",\n")
            first = false
            try out.write(Self.cardJSON(card))
        }
        try out.write(first ? "]\n}\n" : "\n  ]\n}\n")
        try out.commit()
    }

    /// One card as a JSON object on one line.
    static func cardJSON(_ card: CardSnapshot) -> String {
        var parts: [String] = [
            "\"kind\": \(JSONText.string(card.kind.rawValue))",
            "\"front\": \(JSONText.string(card.front))",
            "\"back\": \(JSONText.string(card.back))",
        ]
        if let text = card.text { parts.append("\"text\": \(JSONText.string(text))") }
        parts.append("\"created\": \(JSONText.string(TimestampFormat.string(from: card.created)))")
        parts.append("\"modified\": \(JSONText.string(TimestampFormat.string(from: card.modified)))")
        if let due = card.due { parts.append("\"due\": \(JSONText.string(TimestampFormat.string(from: due)))") }
        parts.append("\"interval\": \(card.interval)")
        parts.append("\"ease\": \(JSONText.number(card.ease))")
        parts.append("\"repetitions\": \(card.repetitions)")
        parts.append("\"lapses\": \(card.lapses)")
        if let guid = card.ankiGUID { parts.append("\"ankiGUID\": \(JSONText.string(guid))") }
        if let path = card.deckPath { parts.append("\"deckPath\": \(JSONText.string(path))") }
        parts.append("\"tags\": \(JSONText.array(card.tags))")
        parts.append("\"media\": \(JSONText.array(card.media))")
        let reviews = card.reviews.map { review in
            "{\"date\": \(JSONText.string(TimestampFormat.string(from: review.date))), \"ease\": \(review.ease), "
                + "\"interval\": \(review.interval), \"duration\": \(JSONText.number(review.duration))}"
        }
        parts.append("\"reviews\": [" + reviews.joined(separator: ", ") + "]")
        return "    {" + parts.joined(separator: ", ") + "}"
    }
}
