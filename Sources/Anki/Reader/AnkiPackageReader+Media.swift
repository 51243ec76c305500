import Archive
import Foundation

extension AnkiPackageReader {
    /// Extracts every media file into `directory` (created if missing), named as notes refer to
    /// them, and returns name → file URL.
    ///
    /// One pass over the zip, streaming each file to disk (zstd-decompressed for current
    /// packages) in bounded memory. Existing files in `directory` are never overwritten.
    /// Files listed in the package but absent from the zip are skipped, then reported.
    /// - Throws: ``AnkiError`` — ``AnkiError/Kind/missingMedia`` (after extracting the rest),
    ///   ``AnkiError/Kind/io`` (a file exists, the disk is full), ``AnkiError/Kind/limitExceeded``,
    ///   ``AnkiError/Kind/malformedCompression``, ``AnkiError/Kind/notAPackage`` (a damaged zip).
    @discardableResult
    public func extractMedia(to directory: URL) throws -> [String: URL] {
        try checkReadable()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw AnkiError(.io, path: directory.path, reason: "cannot create the media directory")
        }
        var extracted: [String: URL] = [:]
        try forEachMediaEntry(in: Set(media.map(\.entryName))) { reader, _, item in
            let target = directory.appendingPathComponent(item.name)
            try extract(reader, item, to: target)
            extracted[item.name] = target
        }
        let missing = media.filter { extracted[$0.name] == nil }
        if let first = missing.first {
            throw AnkiError(.missingMedia, path: url.path, reason:
                "\(missing.count) media file(s) listed but absent from the package, first \"\(first.name)\" (entry \(first.entryName))")
        }
        return extracted
    }

    /// Calls `body` with each media file of the package and its bytes (zstd-decompressed for
    /// current packages), in the zip's order, and returns the files listed but absent.
    ///
    /// One pass over the zip with no temporary files; one file is in memory at a time (so a
    /// file may take up to ``AnkiReadLimits/maxMediaFileSize`` of memory).
    /// - Throws: what `body` throws; ``AnkiError`` — ``AnkiError/Kind/limitExceeded`` (a file past
    ///   the limit), ``AnkiError/Kind/malformedCompression`` (a bad zstd stream, or a size that
    ///   disagrees with the media list), ``AnkiError/Kind/notAPackage`` (a damaged zip).
    @discardableResult
    public func forEachMediaFile(_ body: (AnkiMedia, Data) throws -> Void) throws -> [AnkiMedia] {
        try checkReadable()
        var present: Set<String> = []
        let limit = limits.maxMediaFileSize
        try forEachMediaEntry(in: Set(media.map(\.entryName))) { reader, entry, item in
            let label = "\(url.path):\(item.entryName)"
            let itemLimit = min(limit, item.size.map { max($0, 0) } ?? .max)
            if !version.isZstdCompressed, let size = entry.size, size > limit {
                throw AnkiError(.limitExceeded, path: label, reason: "media file \"\(item.name)\" is larger than \(limit) bytes")
            }
            var data = try PackageScan.archiveCall(url.path, entryName: item.mediaEntryLabel) { try reader.readData() }
            if version.isZstdCompressed {
                data = try Zstd.decompress(data, limit: Int(clamping: itemLimit), path: label)
                if let expected = item.size, Int64(data.count) != expected {
                    throw AnkiError(.malformedCompression, path: label,
                                    reason: "media file \"\(item.name)\" has \(data.count) bytes; the media list says \(expected)")
                }
            } else if Int64(data.count) > limit {
                throw AnkiError(.limitExceeded, path: label, reason: "media file \"\(item.name)\" is larger than \(limit) bytes")
            }
            present.insert(item.name)
            try body(item, data)
        }
        return media.filter { !present.contains($0.name) }
    }

    /// Extracts one media file to `file` (which must not exist).
    ///
    /// Scans the zip up to the file's entry; to extract many files, ``extractMedia(to:)`` is one pass.
    /// - Throws: ``AnkiError`` as ``extractMedia(to:)``.
    public func extractMedia(_ item: AnkiMedia, to file: URL) throws {
        try checkReadable()
        var found = false
        try forEachMediaEntry(in: [item.entryName]) { reader, _, _ in
            try extract(reader, item, to: file)
            found = true
        }
        if !found {
            throw AnkiError(.missingMedia, path: url.path, reason: "media file \"\(item.name)\" (entry \(item.entryName)) is absent")
        }
    }

    /// The bytes of one media file, refused past `limit` bytes.
    /// - Throws: ``AnkiError`` as ``extractMedia(to:)``, ``AnkiError/Kind/limitExceeded`` past `limit`.
    public func mediaData(_ item: AnkiMedia, limit: Int = 64 << 20) throws -> Data {
        let file = temporaryFiles.appendingPathComponent("media-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try extractMedia(item, to: file)
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? nil
        guard let size, size <= Int64(limit) else {
            throw AnkiError(.limitExceeded, path: url.path, reason: "media file \"\(item.name)\" is larger than \(limit) bytes")
        }
        do {
            return try Data(contentsOf: file)
        } catch {
            throw AnkiError(.io, path: file.path, reason: "cannot read back media file \"\(item.name)\"")
        }
    }

    // MARK: - Helpers

    private func checkReadable() throws {
        guard !isClosed else {
            throw AnkiError(.closed, path: url.path, reason: "the package reader was closed")
        }
    }

    /// Calls `body` for each zip entry whose name is in `entryNames`, with its media item.
    private func forEachMediaEntry(in entryNames: Set<String>,
                                   _ body: (ArchiveReader, ArchiveEntry, AnkiMedia) throws -> Void) throws {
        guard !entryNames.isEmpty else { return }
        let byEntry = Dictionary(media.map { ($0.entryName, $0) }, uniquingKeysWith: { first, _ in first })
        let reader = try PackageScan.open(url, limits: limits)
        var remaining = entryNames
        while !remaining.isEmpty, let entry = try PackageScan.archiveCall(url.path, { try reader.nextEntry() }) {
            guard entry.type == .file, remaining.remove(entry.path) != nil, let item = byEntry[entry.path] else { continue }
            try body(reader, entry, item)
        }
    }

    /// Streams the current entry to `target` through a temporary name, decompressing zstd for
    /// current packages and checking the recorded size.
    private func extract(_ reader: ArchiveReader, _ item: AnkiMedia, to target: URL) throws {
        guard !FileManager.default.fileExists(atPath: target.path) else {
            throw AnkiError(.io, path: target.path, reason: "a file already exists there")
        }
        let label = "\(url.path):\(item.entryName)"
        let limit = min(limits.maxMediaFileSize, item.size.map { max($0, 0) } ?? .max)
        let partial = temporaryFiles.appendingPathComponent("partial-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: partial) }
        if version.isZstdCompressed {
            let compressed = temporaryFiles.appendingPathComponent("compressed-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: compressed) }
            try PackageScan.archiveCall(url.path, entryName: item.mediaEntryLabel) { try reader.copyData(to: compressed) }
            let size = try Zstd.decompress(file: compressed, to: partial, limit: limit, path: label)
            if let expected = item.size, size != expected {
                throw AnkiError(.malformedCompression, path: label,
                                reason: "media file \"\(item.name)\" has \(size) bytes; the media list says \(expected)")
            }
        } else {
            try PackageScan.archiveCall(url.path, entryName: item.mediaEntryLabel) { try reader.copyData(to: partial) }
            let size = (try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int64) ?? nil
            if let size, size > limits.maxMediaFileSize {
                throw AnkiError(.limitExceeded, path: label, reason: "media file \"\(item.name)\" is larger than \(limits.maxMediaFileSize) bytes")
            }
        }
        do {
            try FileManager.default.moveItem(at: partial, to: target)
        } catch {
            throw AnkiError(.io, path: target.path, reason: "cannot create the media file (\(error.localizedDescription))")
        }
    }
}

private extension AnkiMedia {
    /// How errors about the zip entry of this media file name it: `media file "a.jpg" (entry 0)`.
    var mediaEntryLabel: String { "media file \"\(name)\" (entry \(entryName))" }
}
