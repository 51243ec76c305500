import Foundation

/// A media file in a package: its zip entry (`0`, `1`, …) and the file name notes refer to.
public struct AnkiMedia: Sendable, Hashable {
    /// The zip entry that holds the bytes (`"0"`, `"1"`, …).
    public var entryName: String
    /// The file name in Anki's media folder, as fields reference it (`<img src="…">`, `[sound:…]`).
    public var name: String
    /// The uncompressed size in bytes, when the package records it (current packages do).
    public var size: Int64?
    /// The SHA-1 of the bytes, when the package records it (current packages do).
    public var sha1: [UInt8]?

    /// Creates a media entry.
    public init(entryName: String, name: String, size: Int64? = nil, sha1: [UInt8]? = nil) {
        self.entryName = entryName
        self.name = name
        self.size = size
        self.sha1 = sha1
    }

    /// Whether `name` is safe to create in a media folder: non-empty, no path separators,
    /// not `.`/`..`, no control characters, at most 255 bytes.
    public static func isSafeFileName(_ name: String) -> Bool {
        guard !name.isEmpty, name != ".", name != "..", name.utf8.count <= 255 else { return false }
        return !name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }
    }
}
