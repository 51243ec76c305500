/// A file that cannot be imported or exported, with the file and the reason.
///
/// Anki packages fail with the `Anki` module's `AnkiError`, CSV with ``CSVError`` and decks
/// with `DeckError`; this type covers the rest (JSON, HTML, conversion).
public struct InterchangeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, stable for matching in `catch`.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The input is malformed (bad JSON, a value of the wrong type, an unknown format version).
        case malformed
        /// The input does not exist.
        case missing
        /// The output cannot be created (it exists, or its folder is unwritable).
        case cannotCreate
        /// Reading or writing failed.
        case io
        /// The format can't be used for this input or output.
        case unsupported
    }

    /// The kind of failure.
    public var kind: Kind
    /// The file concerned.
    public var path: String
    /// What is wrong, without the path.
    public var reason: String

    /// Creates an error.
    public init(_ kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    /// `path: reason`.
    public var description: String { "\(path): \(reason)" }
}
