import Foundation

/// The manifest of a deck package (`manifest.json`): what `deck info` shows.
struct DeckManifest: Codable, Sendable, Hashable {
    /// The format version this tool writes.
    static let currentFormatVersion = 1

    var formatVersion: Int
    var documentID: String
    var title: String
    var created: Date
    var modified: Date

    static func decode(_ data: Data, path: String) throws -> DeckManifest {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(DeckManifest.self, from: data)
        } catch {
            throw DeckStoreError(.corrupt, path: path, reason: "manifest.json is not a valid manifest")
        }
    }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}
