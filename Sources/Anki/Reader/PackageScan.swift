import Archive
import Foundation

/// Where a collection's SQLite bytes are read from.
enum CollectionSource {
    /// A file of its own (extracted, or decompressed from `collection.anki21b`).
    case file(URL)
    /// The package itself: a stored (uncompressed) entry, read in place.
    case slice(path: String, entry: StoredZipEntry)
}

/// One pass over a package's zip: reads `meta` and `media`, and finds every collection entry
/// (`collection.anki2`, `.anki21`, `.anki21b`): a stored legacy collection is read in place, a
/// stored anki21b is decompressed from the package straight to the working directory, others
/// are extracted there (anki21b decompressed on the way).
struct PackageScan {
    private(set) var meta: [UInt8]?
    private(set) var mediaList: Data?
    private(set) var collections: [String: CollectionSource] = [:]
    private let path: String
    private let limits: AnkiReadLimits

    static let collectionNames: Set<String> = ["collection.anki2", "collection.anki21", "collection.anki21b"]

    init(url: URL, limits: AnkiReadLimits, workDirectory: URL) throws {
        path = url.path
        self.limits = limits
        let stored = StoredZipEntry.locate(Self.collectionNames, in: url)
        let reader = try PackageScan.open(url, limits: limits)
        while let entry = try PackageScan.archiveCall(path, { try reader.nextEntry() }) {
            guard entry.type == .file else { continue }
            switch entry.path {
            case "meta":
                meta = Array(try readSmall(reader, entry: entry, limit: 1 << 16, workDirectory: workDirectory))
            case "media":
                mediaList = try readSmall(reader, entry: entry, limit: limits.maxMediaListSize, workDirectory: workDirectory)
            case let name where Self.collectionNames.contains(name):
                guard collections[name] == nil else {
                    throw AnkiError(.notAPackage, path: path, reason: "\(name) appears twice in the package")
                }
                if let slice = stored[name], name == "collection.anki21b" {
                    // Decompressed straight from the package, without copying the entry out first
                    // (so without libarchive's CRC check: checked here first).
                    try slice.verifyChecksum(in: url, entry: name)
                    let target = workDirectory.appendingPathComponent(name)
                    try Zstd.decompress(file: url, range: slice.offset..<(slice.offset + slice.length), to: target,
                                        limit: limits.maxCollectionSize, path: "\(path):\(name)")
                    collections[name] = .file(target)
                } else if let slice = stored[name] {
                    guard slice.length <= limits.maxCollectionSize else {
                        throw AnkiError(.limitExceeded, path: path, reason: "\(name) is larger than \(limits.maxCollectionSize) bytes")
                    }
                    // Read in place by SQLite, so never through libarchive's CRC check: checked here.
                    try slice.verifyChecksum(in: url, entry: name)
                    collections[name] = .slice(path: path, entry: slice)
                } else {
                    collections[name] = .file(try extractCollection(reader, entry: entry, workDirectory: workDirectory))
                }
            default:
                continue
            }
        }
    }

    /// The package version: from `meta`, else 2 when `collection.anki21` exists, else 1.
    func version() throws -> AnkiPackageVersion {
        guard let meta else {
            return collections["collection.anki21"] != nil ? .legacy2 : .legacy1
        }
        let decoded = try PackageMetadata(decoding: meta, path: "\(path):meta")
        guard let version = AnkiPackageVersion(rawValue: decoded.version) else {
            throw AnkiError(.unsupportedVersion, path: path,
                            reason: "package version \(decoded.version) is not supported (1 to 3 are); it may be from a newer Anki")
        }
        return version
    }

    /// The media list: a JSON map `{"0": "name", …}` for legacy packages, zstd protobuf for current ones.
    func mediaList(version: AnkiPackageVersion) throws -> [AnkiMedia] {
        guard let data = mediaList else { return [] }
        let label = "\(path):media"
        var media: [AnkiMedia]
        if version.isZstdCompressed {
            let raw = try Zstd.decompress(data, limit: limits.maxMediaListSize, path: label)
            let entries = try MediaEntries(decoding: Array(raw), path: label)
            media = entries.entries.enumerated().map { index, entry in
                AnkiMedia(entryName: String(entry.legacyZipFilename.map(Int.init) ?? index), name: entry.name,
                          size: Int64(entry.size), sha1: entry.sha1.isEmpty ? nil : entry.sha1)
            }
        } else {
            let map: [String: String]
            do {
                map = try JSONDecoder().decode([String: String].self, from: data)
            } catch {
                throw AnkiError(.malformedJSON, path: label, reason: "the media map is not valid: \(LegacyJSON.describe(error))")
            }
            media = map.map { AnkiMedia(entryName: $0.key, name: $0.value) }
            media.sort { (Int($0.entryName) ?? .max, $0.entryName) < (Int($1.entryName) ?? .max, $1.entryName) }
        }
        var names = Set<String>()
        for item in media {
            guard AnkiMedia.isSafeFileName(item.name) else {
                throw AnkiError(.badMediaName, path: label, reason: "unsafe media file name \"\(item.name)\"")
            }
            guard names.insert(item.name).inserted else {
                throw AnkiError(.badMediaName, path: label, reason: "media file name \"\(item.name)\" appears twice")
            }
        }
        return media
    }

    // MARK: - Helpers

    static func open(_ url: URL, limits: AnkiReadLimits) throws -> ArchiveReader {
        try archiveCall(url.path) { try ArchiveReader(url: url, limits: limits.archive) }
    }

    /// Runs an archive operation, turning its errors into ``AnkiError``s; `entryName`, if
    /// given, names the entry in the reason instead of its name in the zip (a media file's
    /// own name rather than its number).
    static func archiveCall<T>(_ path: String, entryName: String? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ArchiveError {
            let reason = (entryName ?? error.entry).map { "\($0): \(error.reason)" } ?? error.reason
            switch error.kind {
            case .malformed, .unsafeEntry: throw AnkiError(.notAPackage, path: path, reason: "not a readable zip archive: \(reason)")
            case .limitExceeded: throw AnkiError(.limitExceeded, path: path, reason: reason)
            case .io, .alreadyExists, .invalidArgument: throw AnkiError(.io, path: path, reason: reason)
            }
        }
    }

    /// Reads a small entry, refusing it past `limit` bytes without holding more than that in memory.
    private func readSmall(_ reader: ArchiveReader, entry: ArchiveEntry, limit: Int, workDirectory: URL) throws -> Data {
        if let size = entry.size, size > Int64(limit) {
            throw AnkiError(.limitExceeded, path: path, reason: "\(entry.path) is larger than \(limit) bytes")
        }
        if entry.size != nil {
            return try Self.archiveCall(path) { try reader.readData() }
        }
        // No declared size (a streamed zip entry): spool to disk, then check.
        let spool = workDirectory.appendingPathComponent("spool-\(entry.path)")
        defer { try? FileManager.default.removeItem(at: spool) }
        try Self.archiveCall(path) { try reader.copyData(to: spool) }
        let size = (try? FileManager.default.attributesOfItem(atPath: spool.path)[.size] as? Int64) ?? nil
        guard let size, size <= Int64(limit) else {
            throw AnkiError(.limitExceeded, path: path, reason: "\(entry.path) is larger than \(limit) bytes")
        }
        do {
            return try Data(contentsOf: spool)
        } catch {
            throw AnkiError(.io, path: spool.path, reason: "cannot read back \(entry.path)")
        }
    }

    private func extractCollection(_ reader: ArchiveReader, entry: ArchiveEntry, workDirectory: URL) throws -> URL {
        let name = entry.path
        let target = workDirectory.appendingPathComponent(name)
        if name == "collection.anki21b" {
            let compressed = workDirectory.appendingPathComponent(name + ".zst")
            defer { try? FileManager.default.removeItem(at: compressed) }
            try Self.archiveCall(path) { try reader.copyData(to: compressed) }
            try Zstd.decompress(file: compressed, to: target, limit: limits.maxCollectionSize, path: "\(path):\(name)")
        } else {
            if let size = entry.size, size > limits.maxCollectionSize {
                throw AnkiError(.limitExceeded, path: path, reason: "\(name) is larger than \(limits.maxCollectionSize) bytes")
            }
            try Self.archiveCall(path) { try reader.copyData(to: target) }
        }
        return target
    }
}
