import Archive
import DeckDocument
import Foundation
import SQLite

/// Deck archives: a single `<Name>.sampledeck/` directory with `manifest.json` and
/// `store.sqlite`, in a zip or compressed tar.
enum ArchivedDeck {
    /// Writes `store` to `destination` from a consistent snapshot (VACUUM INTO a temporary
    /// copy, never the live file); the archive appears at `destination` only when complete.
    static func write(_ store: OpenDeck, to destination: String, format: ArchiveFormat) throws {
        if FileManager.default.fileExists(atPath: destination) {
            throw DeckFailure(.cannotCreate, path: destination, reason: "already exists")
        }
        let scratch = try TemporaryDirectory(besides: destination)
        defer { scratch.remove() }
        let snapshot = (scratch.path as NSString).appendingPathComponent(store.storeName)
        try store.snapshotStore(to: snapshot)
        let top = topDirectoryName(for: store.path)
        let writer = try ArchiveWriter(url: URL(fileURLWithPath: destination), format: format)
        try writer.addDirectory(top)
        try writer.addFile(top + "/" + DeckDocument.manifestName, contents: try store.manifest.encoded())
        try writer.addFile(top + "/" + store.storeName, contentsOf: URL(fileURLWithPath: snapshot))
        try addMedia(of: store, under: top, to: writer)
        try writer.finish()
    }

    /// Adds the deck's media folder, files sorted by name (media files are immutable once written).
    private static func addMedia(of store: OpenDeck, under top: String, to writer: ArchiveWriter) throws {
        let media = store.document.mediaURL
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: media.path), !names.isEmpty else { return }
        try writer.addDirectory(top + "/" + DeckDocument.mediaFolderName)
        for name in names.sorted() {
            let file = media.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            try writer.addFile(top + "/" + DeckDocument.mediaFolderName + "/" + name, contentsOf: file)
        }
    }

    /// The manifest and card count of an archived deck, read through a private temporary copy.
    static func describe(archive: String) throws -> (DeckManifest, Int) {
        let scratch = try TemporaryDirectory(besides: NSTemporaryDirectory() + "/deck-info")
        defer { scratch.remove() }
        let reader = try ArchiveReader(url: URL(fileURLWithPath: archive))
        var manifest: DeckManifest?
        var storePath: String?
        while let entry = try reader.nextEntry() {
            let parts = entry.path.split(separator: "/")
            guard entry.type == .file, parts.count == 2 else { continue }
            if parts[1] == DeckDocument.manifestName {
                manifest = try OpenDeck.mapping(archive) { try DeckManifest.decode(try reader.readData(), path: archive) }
            } else if parts[1].hasSuffix(".sqlite") {
                let path = (scratch.path as NSString).appendingPathComponent("store.sqlite")
                try reader.copyData(to: URL(fileURLWithPath: path))
                storePath = path
            }
        }
        guard let manifest, let storePath else {
            throw DeckFailure(.corrupt, path: archive, reason: "not a deck archive (no <name>.sampledeck/manifest.json and store.sqlite)")
        }
        do {
            let database = try Database(path: storePath, mode: .readOnly)
            defer { database.close() }
            let count = try database.scalar("SELECT count(*) FROM \"Card\"", as: Int64.self) ?? 0
            return (manifest, Int(count))
        } catch {
            throw DeckFailure(.corrupt, path: archive, reason: "the archived store cannot be read (\(error))")
        }
    }

    /// Extracts the deck in `archive` into `directory`, checks it, and moves it into place.
    /// Returns the path of the extracted deck.
    static func extract(archive: String, into directory: String) throws -> String {
        let scratch = try TemporaryDirectory(besides: (directory as NSString).appendingPathComponent("deck"))
        defer { scratch.remove() }
        let reader = try ArchiveReader(url: URL(fileURLWithPath: archive))
        var top: String?
        while let entry = try reader.nextEntry() {
            let parts = entry.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
            guard !entry.path.hasPrefix("/"), !parts.isEmpty, !parts.contains(".."), !parts.contains("."),
                  let first = parts.first, first.hasSuffix(".sampledeck") else {
                throw DeckFailure(.corrupt, path: archive, reason: "\(entry.path): unsafe or unexpected entry (a deck archive holds one <name>.sampledeck directory)")
            }
            if let top, top != first {
                throw DeckFailure(.corrupt, path: archive, reason: "holds more than one deck (\(top), \(first))")
            }
            top = first
            let target = ([scratch.path] + parts).joined(separator: "/")
            if entry.type == .symlink || entry.type == .hardlink || entry.type == .other {
                throw DeckFailure(.corrupt, path: archive, reason: "\(entry.path): links and special files are refused")
            }
            do {
                if entry.type == .directory {
                    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
                } else {
                    try FileManager.default.createDirectory(
                        atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    if FileManager.default.fileExists(atPath: target) {
                        throw DeckFailure(.corrupt, path: archive, reason: "\(entry.path): appears twice")
                    }
                    try reader.copyData(to: URL(fileURLWithPath: target))
                }
            } catch let error as DeckFailure {
                throw error
            } catch let error as ArchiveError {
                throw error
            } catch {
                throw DeckFailure(.corrupt, path: archive, reason: "\(entry.path): conflicts with another entry")
            }
        }
        guard let top else { throw DeckFailure(.corrupt, path: archive, reason: "empty archive") }
        let destination = (directory as NSString).appendingPathComponent(top)
        if FileManager.default.fileExists(atPath: destination) {
            throw DeckFailure(.cannotCreate, path: destination, reason: "already exists")
        }
        let extracted = (scratch.path as NSString).appendingPathComponent(top)
        do {
            let store = try OpenDeck.open(at: extracted, readOnly: true)
            let problems = store.check().filter { $0.severity == .error }
            if let first = problems.first { throw DeckFailure(.corrupt, path: archive, reason: "the archived deck fails its check: \(first)") }
        } catch let error as DeckFailure {
            throw DeckFailure(error.kind == .missing ? .corrupt : error.kind, path: archive, reason: error.reason)
        }
        do {
            try FileManager.default.moveItem(atPath: extracted, toPath: destination)
        } catch {
            throw DeckFailure(.cannotCreate, path: destination, reason: "cannot move the extracted deck into place (\(error.localizedDescription))")
        }
        return destination
    }

    /// `French.sampledeck` for `demo/French.sampledeck/`.
    static func topDirectoryName(for path: String) -> String {
        let name = (path as NSString).lastPathComponent
        return name.hasSuffix(".sampledeck") ? name : name + ".sampledeck"
    }
}

/// A private directory beside a destination (same file system, so a rename is atomic),
/// removed when done.
struct TemporaryDirectory {
    let path: String

    init(besides destination: String) throws {
        let parent = (destination as NSString).deletingLastPathComponent
        let base = parent.isEmpty ? "." : parent
        path = (base as NSString).appendingPathComponent(".deck-tmp-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        } catch {
            throw DeckFailure(.cannotCreate, path: base, reason: "cannot create a temporary directory (\(error.localizedDescription))")
        }
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
