import Foundation

/// The contents of `manifest.json`, the package's identity card.
///
/// Written as pretty-printed JSON with sorted keys and ISO 8601 dates. See docs/FORMAT.md.
public struct DeckManifest: Codable, Sendable, Equatable {
    /// The content type every deck carries.
    public static let deckContentType = "com.example.flashcards"
    /// The format version this library writes.
    public static let currentFormatVersion = 2
    /// The store file name inside the package.
    public static let defaultStoreName = "Deck.sqlite"

    /// Always ``deckContentType``.
    public var contentType: String
    /// The package format version (``currentFormatVersion`` when written by this library).
    public var formatVersion: Int
    /// A random identity given at creation; copies keep it.
    public var documentID: UUID
    public var title: String
    public var created: Date
    /// Updated by every save.
    public var modified: Date
    /// The program that last wrote the deck, e.g. `SampleDeck 0.2`.
    public var generator: String
    /// The store file, relative to the package.
    public var store: String

    public init(title: String, created: Date = Date(), documentID: UUID = UUID(),
                formatVersion: Int = DeckManifest.currentFormatVersion, generator: String = DeckManifest.generatorName,
                store: String = DeckManifest.defaultStoreName) {
        self.contentType = Self.deckContentType
        self.formatVersion = formatVersion
        self.documentID = documentID
        self.title = title
        self.created = created
        self.modified = created
        self.generator = generator
        self.store = store
    }

    /// The generator this library writes.
    public static let generatorName = "SampleDeck 0.2"

    /// The manifest as JSON bytes.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(DeckManifest.formatDate(date))
        }
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }

    /// Decodes a manifest; throws ``DeckError`` (`corrupt`/`notADeck`) naming `path`.
    public static func decode(_ data: Data, path: String) throws -> DeckManifest {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) }
        catch { throw DeckError(path: path, reason: "manifest is not valid JSON", kind: .corrupt) }
        guard let dictionary = object as? [String: Any] else {
            throw DeckError(path: path, reason: "manifest is not a JSON object", kind: .corrupt)
        }
        guard let type = dictionary["contentType"] as? String else {
            throw DeckError(path: path, reason: "manifest has no contentType; not a .sampledeck package", kind: .notADeck)
        }
        guard type == deckContentType else {
            throw DeckError(path: path, reason: "manifest contentType is \"\(type)\", expected \"\(deckContentType)\"", kind: .notADeck)
        }
        if let version = dictionary["formatVersion"] as? Int, let error = versionError(version, path: path) { throw error }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = DeckManifest.parseDate(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date: \(text)"))
            }
            return date
        }
        let manifest: DeckManifest
        do { manifest = try decoder.decode(DeckManifest.self, from: data) }
        catch let DecodingError.keyNotFound(key, _) {
            throw DeckError(path: path, reason: "manifest lacks the field \"\(key.stringValue)\"", kind: .corrupt)
        } catch let DecodingError.typeMismatch(_, context) {
            throw DeckError(path: path, reason: "manifest field \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type", kind: .corrupt)
        } catch let DecodingError.dataCorrupted(context) {
            throw DeckError(path: path, reason: "manifest field \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\": \(context.debugDescription)", kind: .corrupt)
        } catch {
            throw DeckError(path: path, reason: "manifest can't be read: \(error)", kind: .corrupt)
        }
        // The decoder may read a repeated key differently from JSONSerialization above:
        // the content type and version that count are the ones decoded.
        guard manifest.contentType == deckContentType else {
            throw DeckError(path: path, reason: "manifest contentType is \"\(manifest.contentType)\", expected \"\(deckContentType)\"", kind: .notADeck)
        }
        if let error = versionError(manifest.formatVersion, path: path) { throw error }
        return manifest
    }

    /// The refusal for a format version other than the current one, or nil.
    static func versionError(_ version: Int, path: String) -> DeckError? {
        let current = currentFormatVersion
        if version > current {
            return DeckError(path: path, reason: "deck format version \(version) is newer than this program's version \(current); update SampleDeck",
                             kind: .newerVersion)
        }
        if version < current {
            return DeckError(path: path, reason: "deck format version \(version) is older than the current version \(current); run `deck migrate` to upgrade it (a backup is kept)",
                             kind: .notADeck)
        }
        return nil
    }

    static func formatDate(_ date: Date) -> String {
        withFraction.format(date)
    }

    /// The date with or without fractional seconds; nil when it is neither.
    static func parseDate(_ text: String) -> Date? {
        if let date = try? withFraction.parse(text) { return date }
        return try? withoutFraction.parse(text)
    }

    // Made once: building a style's calendar costs more than parsing a date.
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutFraction = Date.ISO8601FormatStyle()
}
