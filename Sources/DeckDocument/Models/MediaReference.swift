import Foundation
import Persistence

/// A media file of the deck, stored content-addressed as `Media/<sha256><.ext>`.
public final class MediaReference: PersistentModel {
    /// The file name inside `Media/`.
    public var fileName: String = ""
    /// The name the file had where it came from (`cat.jpg` in an Anki package).
    public var originalName: String = ""
    /// Lowercase hex SHA-256 of the contents.
    public var sha256: String = ""
    /// Lowercase hex SHA-1 of the contents (Anki's media checksum), if known.
    public var sha1: String? = nil
    /// The MIME type, e.g. `image/jpeg`.
    public var mime: String = "application/octet-stream"
    /// The size in bytes.
    public var size: Int = 0
    public var cards: [Card] {
        get { getValue(forKey: \.cards) }
        set { setValue(forKey: \.cards, to: newValue) }
    }
    public static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("fileName", \MediaReference.fileName, options: [.unique]),
        .attribute("originalName", \MediaReference.originalName),
        .attribute("sha256", \MediaReference.sha256, options: [.index]),
        .attribute("sha1", \MediaReference.sha1),
        .attribute("mime", \MediaReference.mime),
        .attribute("size", \MediaReference.size),
        .relationship("cards", \MediaReference.cards, inverse: \Card.media),
    ]
    public let persistentBackingData = BackingData()
    public init() {}
    public init(fileName: String, originalName: String, sha256: String, sha1: String? = nil, mime: String, size: Int) {
        self.fileName = fileName
        self.originalName = originalName
        self.sha256 = sha256
        self.sha1 = sha1
        self.mime = mime
        self.size = size
    }
}
