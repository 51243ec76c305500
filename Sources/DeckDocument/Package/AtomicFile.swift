import FileSafety
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files inside a package so a reader sees the old or the new contents, never a mix:
/// a hidden temporary beside the target (``TemporaryFile``: removed if the process is
/// killed by a signal, swept by the next writer otherwise), `fsync`, then moved into place by
/// the one publishing primitive (``Publisher``), which also syncs the folder.
enum AtomicFile {
    /// Writes `data` to `url`, replacing what is there (a manifest) or, with
    /// ``OverwritePolicy/never``, only if nothing is (a new media file).
    static func write(_ data: Data, to url: URL, policy: OverwritePolicy = .replace) throws {
        do {
            let file = try TemporaryFile(beside: url.path)
            try file.write(data)
            try file.publish(policy: policy)
        } catch {
            throw deckError(error, url)
        }
    }

    static func syncDirectory(_ directory: URL) {
        Publisher.syncParent(of: directory.appendingPathComponent(".").path)
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// A publishing failure as a ``DeckError`` (`alreadyExists`, `readOnly`, `missing` or `io`).
    static func deckError(_ error: FileSafetyError, _ url: URL) -> DeckError {
        switch error.kind {
        case .exists: return DeckError(path: url.path, reason: "already exists", kind: .alreadyExists)
        case .missing: return DeckError(path: url.path, reason: error.reason, kind: .missing)
        case .system(let number) where number == EROFS || number == EACCES || number == EPERM:
            return DeckError(path: url.path, reason: error.reason, kind: .readOnly)
        default: return DeckError(path: url.path, reason: error.reason, kind: .io)
        }
    }
}
