import FileSafety
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Everything a package contains or names is untrusted: the rule of docs/FORMAT.md, "What a
/// reader must refuse". Files inside a package are opened without following a symbolic link
/// and must be regular files (the media folder a directory); names read from the store are
/// checked against the format's grammar before they are joined to a path.
extension DeckDocument {
    /// The package entries with a fixed name and the type each must have when present.
    static var fixedEntries: [(name: String, type: FileType)] {
        [(manifestName, .regular), (mediaFolderName, .directory), (DeckLock.fileName, .regular)]
    }

    /// The store's companion files SQLite may create beside it.
    static let storeCompanionSuffixes = ["-journal", "-wal", "-shm"]

    /// The error for a package entry that is not what the format allows.
    static func refusal(_ error: FileSafetyError, entry: String, package: URL) -> DeckError {
        switch error.kind {
        case .missing:
            return DeckError(path: package.path, reason: "\(entry) is missing", kind: .notADeck)
        case .wrongType(let found):
            return DeckError(path: package.appendingPathComponent(entry).path,
                             reason: "\(entry) is \(found.rawValue); a package holds only regular files and its Media folder", kind: .corrupt)
        case .system(let number):
            return DeckError(path: package.appendingPathComponent(entry).path, reason: error.reason,
                             kind: number == EACCES || number == EPERM ? .readOnly : .io)
        case .exists, .notAFileName:
            return DeckError(path: package.appendingPathComponent(entry).path, reason: error.reason, kind: .io)
        }
    }

    /// Requires `entry` of the package, when present, to be of `type`; refuses it otherwise.
    static func requireEntry(_ entry: String, type: FileType, in package: URL, optional: Bool) throws {
        let path = package.appendingPathComponent(entry).path
        do throws(FileSafetyError) {
            guard let found = try UntrustedFile.type(atPath: path) else {
                if optional { return }
                throw FileSafetyError(.missing, path: path, reason: "is missing")
            }
            if found != type { throw FileSafetyError(.wrongType(found), path: path, reason: "is \(found.rawValue)") }
        } catch {
            throw refusal(error, entry: entry, package: package)
        }
    }

    /// The media folder's type problem, if any: nil when it is a directory or absent.
    func mediaFolderProblem() -> String? {
        do {
            guard let found = try UntrustedFile.type(atPath: mediaURL.path), found != .directory else { return nil }
            return "\(Self.mediaFolderName) is \(found.rawValue), not a directory"
        } catch {
            return "\(Self.mediaFolderName): \(error.reason)"
        }
    }

    /// Opens `Media/` (a real directory, never a link to one) for `openat`.
    /// - Throws: ``DeckError`` `corrupt` for a link or file, `missing` when absent, `io`.
    func openMediaFolder() throws -> Int32 {
        do {
            return try UntrustedFile.openDirectory(mediaURL.path)
        } catch {
            if case .missing = error.kind {
                throw DeckError(path: mediaURL.path, reason: "the media folder is missing", kind: .missing)
            }
            throw Self.refusal(error, entry: Self.mediaFolderName, package: url)
        }
    }

    /// Checks a media file name read from the store against the format's grammar and returns
    /// the file's URL in `Media/`.
    /// - Throws: ``DeckError`` `corrupt` naming the reference when the name is not a media
    ///   file name (`../../etc/passwd` never reaches a path).
    public func mediaFileURL(named fileName: String) throws -> URL {
        guard MediaReference.isValidFileName(fileName) else {
            throw DeckError(path: storeURL.path, reason: "media reference \"\(MediaReference.printable(fileName))\" is not a media file name "
                            + "(<sha256>.<ext>); refusing to use it as a path", kind: .corrupt)
        }
        return mediaURL.appendingPathComponent(fileName)
    }

    /// Opens the media file of a reference for reading: the name checked, the folder and
    /// the file opened without following links, and the file required to be a regular one
    /// (no FIFO, device, socket or directory), before a byte is read. The caller closes it.
    /// - Throws: ``DeckError``: `corrupt` for a bad name or a file of another type, `missing`, `io`.
    public func openMediaFile(named fileName: String) throws -> Int32 {
        let file = try mediaFileURL(named: fileName)
        let folder = try openMediaFolder()
        defer { Glibc.close(folder) }
        do {
            return try UntrustedFile.openForReading(fileName, in: folder)
        } catch {
            switch error.kind {
            case .missing:
                throw DeckError(path: file.path, reason: "media file Media/\(MediaReference.printable(fileName)) is missing", kind: .missing)
            case .wrongType(let found):
                throw DeckError(path: file.path, reason: "media file Media/\(MediaReference.printable(fileName)) is \(found.rawValue), not a regular file", kind: .corrupt)
            default:
                throw DeckError(path: file.path, reason: "can't read media file Media/\(MediaReference.printable(fileName)): \(error.reason)", kind: .io)
            }
        }
    }

    /// The bytes of a media file, read as ``openMediaFile(named:)`` opens it.
    /// - Throws: as ``openMediaFile(named:)``.
    public func readMedia(named fileName: String) throws -> Data {
        let fd = try openMediaFile(named: fileName)
        defer { Glibc.close(fd) }
        do {
            return try UntrustedFile.read(descriptor: fd, path: fileName)
        } catch {
            throw DeckError(path: mediaURL.appendingPathComponent(fileName).path, reason: "can't read media file Media/\(MediaReference.printable(fileName)): \(error.reason)", kind: .io)
        }
    }

    /// The path of a media file after its name, folder and type were checked, for readers that
    /// open it themselves (with `O_NOFOLLOW`).
    /// - Throws: as ``openMediaFile(named:)``.
    public func verifiedMediaFileURL(named fileName: String) throws -> URL {
        let fd = try openMediaFile(named: fileName)
        Glibc.close(fd)
        return mediaURL.appendingPathComponent(fileName)
    }
}

extension MediaReference {
    /// Whether `name` is a media file name of the format: 64 lowercase hex digits (the
    /// SHA-256 of the contents), optionally a dot and 1 to 10 lowercase letters or digits.
    public static func isValidFileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count >= 64, bytes.count <= 75 else { return false }
        for byte in bytes[0..<64] where !((byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)) { return false }
        if bytes.count == 64 { return true }
        guard bytes[64] == 0x2E, bytes.count >= 66 else { return false }
        return bytes[65...].allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) }
    }

    /// `name` cut to 120 characters for a message (control characters are escaped where
    /// messages are printed, so a name can't forge a line).
    static func printable(_ name: String) -> String {
        name.unicodeScalars.count > 120 ? String(String.UnicodeScalarView(name.unicodeScalars.prefix(120))) + "…" : name
    }
}
