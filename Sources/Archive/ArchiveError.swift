import FileSafety
/// An error reading, writing or extracting an archive: what failed, in which file, and on which entry.
///
/// Every failure of this module is an `ArchiveError`; malformed or hostile input never crashes.
/// Match on ``kind`` to decide what to tell the user:
///
/// ```swift
/// do { _ = try ArchiveExtractor.extract(url, into: dir) }
/// catch let error as ArchiveError {
///     switch error.kind {
///     case .malformed, .unsafeEntry, .limitExceeded: exit(65)   // bad input data
///     case .alreadyExists: exit(73)
///     case .io, .invalidArgument: exit(74)
///     }
/// }
/// ```
public struct ArchiveError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure this is.
    public enum Kind: Sendable, Equatable {
        /// The archive is damaged, truncated, not an archive, or contradicts itself
        /// (for instance an entry holds more data than its header declares).
        case malformed
        /// An entry would be unsafe to extract (`..`, absolute path, link, device, duplicate,
        /// outside the allowed top-level directory, refused by the allow-list). `name` is the
        /// entry's name as stored in the archive.
        case unsafeEntry(name: String)
        /// The archive goes past one of the ``ArchiveLimits`` (entry count, sizes, expansion ratio).
        case limitExceeded
        /// Reading or writing a file failed (missing, unreadable, disk full, ...).
        case io
        /// Something to be created already exists (extraction never overwrites).
        case alreadyExists
        /// The caller passed something unusable (a bad compression level, an invalid entry
        /// name, a call after ``ArchiveWriter/finish()``).
        case invalidArgument
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// The file concerned: the archive's path, `"-"` for a file descriptor, `"(memory)"` for in-memory data.
    public let path: String
    /// The archive entry concerned, as named in the archive, when the failure concerns one.
    public let entry: String?
    /// What went wrong, in words (libarchive's own message included when it has one).
    public let reason: String

    /// Creates an error.
    public init(_ kind: Kind, path: String, entry: String? = nil, reason: String) {
        self.kind = kind
        self.path = path
        self.entry = entry
        self.reason = reason
    }

    /// `path: entry: reason`, or `path: reason` when no entry is concerned.
    public var description: String {
        if let entry { return "\(path): \(entry): \(reason)" }
        return "\(path): \(reason)"
    }
}

extension ArchiveError {
    /// A failure to create or publish an output file: `.alreadyExists` when something is
    /// there, `.invalidArgument` for a name that can't be a file, `.io` otherwise.
    init(publishing error: FileSafetyError) {
        switch error.kind {
        case .exists, .wrongType(.directory): self.init(.alreadyExists, path: error.path, reason: error.reason)
        case .notAFileName: self.init(.invalidArgument, path: error.path, reason: error.reason)
        default: self.init(.io, path: error.path, reason: error.reason)
        }
    }
}
