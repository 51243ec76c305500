/// An error reading or writing an Anki package: what failed, where, and why.
///
/// One error type for the whole module, so callers can match on ``kind``:
///
/// ```swift
/// do { let reader = try AnkiPackageReader(url: url) }
/// catch let error as AnkiError where error.kind == .notAPackage { … }
/// ```
///
/// The ``description`` names the file and the reason, ready to print.
public struct AnkiError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure, stable for matching in `catch`.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The file is not a zip archive, or the archive is unreadable.
        case notAPackage
        /// The package holds no collection that its version calls for.
        case missingCollection
        /// The package or collection is from a newer Anki than this reader knows.
        case unsupportedVersion
        /// The collection is not a usable SQLite database, or lacks expected tables or columns.
        case corruptCollection
        /// A JSON document (legacy note types, decks, media map) is malformed.
        case malformedJSON
        /// A protobuf message (package metadata, media list, note type config) is malformed.
        case malformedProtobuf
        /// A zstd stream is malformed or truncated.
        case malformedCompression
        /// A configured limit was exceeded (expanded size, entry count, window size).
        case limitExceeded
        /// A media file name is unsafe (path separators, `..`, control characters) or missing.
        case badMediaName
        /// A media file listed in the package is absent from the archive.
        case missingMedia
        /// Reading or writing a file failed.
        case io
        /// A value handed to the writer is invalid (unknown note type, wrong field count, …).
        case invalidInput
        /// The reader or writer was used after `close()`/`finish()`.
        case closed
    }

    /// The kind of failure.
    public let kind: Kind
    /// The file the failure concerns (the package, or an entry within it as `package:entry`).
    public let path: String
    /// A human-readable reason, without the path.
    public let reason: String

    /// Creates an error of `kind` for `path`.
    public init(_ kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    /// `path: reason`, the line a command-line tool prints.
    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
}
