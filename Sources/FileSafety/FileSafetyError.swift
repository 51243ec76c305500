#if canImport(Glibc)
import Glibc
#endif

/// Why a path inside untrusted input could not be used, or an output could not be published.
///
/// Upper layers turn it into their own error type (`DeckError`, `ArchiveError`,
/// `InterchangeError`); ``description`` reads `<path>: <reason>`.
public struct FileSafetyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure.
    public enum Kind: Sendable, Hashable {
        /// Nothing exists at the path.
        case missing
        /// Something exists but is not the kind of file required (a symbolic link, a FIFO, a
        /// device, a socket, a directory where a file is required, or the reverse).
        case wrongType(FileType)
        /// An output exists already (also a dangling symbolic link).
        case exists
        /// The path can't name a file to create (it ends in `/`, or is empty).
        case notAFileName
        /// The operating system refused (`errno`).
        case system(Int32)
    }

    public var kind: Kind
    /// The path concerned.
    public var path: String
    /// What is wrong, in words (no path).
    public var reason: String

    public init(_ kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }

    /// Whether the failure is a refusal of the file's type (untrusted input), as opposed to a
    /// missing file or a failed system call.
    public var isWrongType: Bool {
        if case .wrongType = kind { return true }
        return false
    }

    /// The errno of a failed system call, else nil.
    public var errorNumber: Int32? {
        if case .system(let number) = kind { return number }
        return nil
    }

    static func system(_ number: Int32, path: String, doing: String) -> FileSafetyError {
        FileSafetyError(.system(number), path: path, reason: "\(doing): \(String(cString: strerror(number)))")
    }
}

/// The type of a file as `lstat(2)` reports it (a symbolic link is not followed).
public enum FileType: String, Sendable, Hashable {
    case regular = "a regular file"
    case directory = "a directory"
    case symbolicLink = "a symbolic link"
    case fifo = "a FIFO"
    case socket = "a socket"
    case characterDevice = "a character device"
    case blockDevice = "a block device"
    case unknown = "a file of unknown type"

    init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symbolicLink
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        default: self = .unknown
        }
    }
}
