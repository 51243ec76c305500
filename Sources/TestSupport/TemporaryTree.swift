import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under the temporary directory for one test, removed with everything in
/// it when the value goes away (swift-foundation's `FilePlayground` shape). The one kind of
/// temporary tree every test target uses; a target subclasses it to add its own fixtures
/// (a sample deck, a `deck` run in the directory).
open class TemporaryTree {
    /// The directory, which exists until the value goes away.
    public let url: URL

    /// A new empty directory named `prefix-<UUID>` in the temporary directory.
    public init(prefix: String = "sampledeck-tests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // A test may have taken permissions away (an unreadable file, a read-only folder):
        // give them back so the tree can be removed.
        _ = chmod(url.path, 0o755)
        if let enumerator = FileManager.default.enumerator(atPath: url.path) {
            while let name = enumerator.nextObject() as? String {
                let path = url.appendingPathComponent(name).path
                var status = stat()
                if lstat(path, &status) == 0, status.st_mode & S_IFMT != S_IFLNK { _ = chmod(path, 0o755) }
            }
        }
        try? FileManager.default.removeItem(at: url)
    }

    /// The path `name` inside the directory (not created).
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Writes `data` at `name`, creating the folders on the way, and returns its URL.
    @discardableResult
    public func write(_ name: String, _ data: Data) throws -> URL {
        let target = file(name)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: target)
        return target
    }

    /// Writes `text` as UTF-8 at `name` and returns its URL.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> URL { try write(name, Data(text.utf8)) }

    /// Creates the folder `name` (and the folders on the way) and returns its URL.
    @discardableResult
    public func makeDirectory(_ name: String) throws -> URL {
        let directory = file(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Whether something (a file, a folder, a link that resolves) is at `name`.
    public func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name).path) }

    /// Every path below the directory, relative, sorted.
    public func listing() -> [String] { (FileManager.default.subpaths(atPath: url.path) ?? []).sorted() }
}
