import Foundation

/// Archives a directory tree deterministically: the same tree always gives the same bytes.
///
/// The tree is stored under one top-level directory, entries sorted by name (byte order of
/// their UTF-8) at each level, a directory before its contents, with the normalised metadata
/// of ``ArchiveWriter`` (fixed time, owner 0, modes `0644`/`0755`). File data is streamed in
/// 1 MiB chunks, so memory does not grow with file sizes.
///
/// ```swift
/// try DirectoryArchiver.archive(directory: deckURL, as: "French.sampledeck",
///                               to: URL(fileURLWithPath: "French.sampledeck.zip"), format: .zip)
/// ```
public enum DirectoryArchiver {
    /// Archives `directory` into a new archive file at `destination`, stored under the
    /// top-level directory `topLevelName`.
    ///
    /// The archive is written to a temporary file beside `destination` and published there
    /// at the end without replacing anything (``ArchiveWriter``), so a failure leaves nothing
    /// and of two writers to one destination one wins, the other gets `.alreadyExists`.
    ///
    /// - Parameters:
    ///   - directory: the tree to archive; it may hold only directories and regular files.
    ///   - topLevelName: the name of the single top-level directory in the archive
    ///     (usually the directory's own name, e.g. `"French.sampledeck"`).
    ///   - destination: the archive to write.
    ///   - format: the archive format.
    ///   - compressionLevel: as in ``ArchiveWriter/init(url:format:compressionLevel:)``.
    ///   - pinned: a file of the tree that is held unchanged only for a while (see
    ///     ``PinnedFile``); it is released once its entry is written, at once when it is
    ///     not in the tree, and in any case before this call returns or throws.
    ///   - progress: called with (bytes of file data archived so far, total bytes) at the
    ///     start, after each chunk, and at the end.
    /// - Throws: ``ArchiveError``: `.io` if the tree cannot be read or the archive written,
    ///   `.unsafeEntry` for a symbolic link or special file in the tree, `.invalidArgument`
    ///   for a `topLevelName` that is not a single name.
    public static func archive(
        directory: URL, as topLevelName: String, to destination: URL, format: ArchiveFormat,
        compressionLevel: Int? = nil, pinned: PinnedFile? = nil, progress: ((Int64, Int64) -> Void)? = nil
    ) throws {
        defer { pinned?.release() }
        let plan = try scan(directory, as: topLevelName, archivePath: destination.path, pinned: pinned)
        let writer = try ArchiveWriter(url: destination, format: format, compressionLevel: compressionLevel)
        try write(plan, with: writer, pinned: pinned, progress: progress)
    }

    /// Archives `directory` onto an open file descriptor, such as standard output (`1`).
    ///
    /// The descriptor is not closed. If archiving fails part-way, what was already written
    /// stays written: the reader of the stream sees a truncated archive.
    /// A pinned file is held for as long as the stream's reader takes to read its entry:
    /// mind readers that can stall.
    /// - Throws: as ``archive(directory:as:to:format:compressionLevel:pinned:progress:)``.
    public static func archive(
        directory: URL, as topLevelName: String, toFileDescriptor descriptor: Int32, format: ArchiveFormat,
        compressionLevel: Int? = nil, pinned: PinnedFile? = nil, progress: ((Int64, Int64) -> Void)? = nil
    ) throws {
        defer { pinned?.release() }
        let plan = try scan(directory, as: topLevelName, archivePath: "-", pinned: pinned)
        let writer = try ArchiveWriter(fileDescriptor: descriptor, format: format, compressionLevel: compressionLevel)
        try write(plan, with: writer, pinned: pinned, progress: progress)
    }

    // MARK: Internals

    /// One entry to write: its name in the archive, and the file to copy (nil for a directory).
    private struct Item {
        let name: String
        let file: URL?
    }

    private struct Plan {
        var items: [Item] = []
        var totalBytes: Int64 = 0
    }

    private static func scan(_ directory: URL, as topLevelName: String, archivePath: String, pinned: PinnedFile?) throws -> Plan {
        guard case .success(let components) = EntryName.components(of: topLevelName), components.count == 1,
              components[0] == topLevelName[...] else {
            throw ArchiveError(.invalidArgument, path: archivePath, entry: topLevelName,
                               reason: "is not usable as a top-level directory name")
        }
        var status = stat()
        guard stat(directory.path, &status) == 0 else {
            throw ArchiveError(.io, path: directory.path, reason: "cannot read: \(LibArchive.describe(errno: errno))")
        }
        guard (status.st_mode & S_IFMT) == S_IFDIR else {
            throw ArchiveError(.io, path: directory.path, reason: "is not a directory")
        }
        var plan = Plan()
        plan.items.append(Item(name: topLevelName, file: nil))
        try scanContents(of: directory, prefix: topLevelName, into: &plan)
        if let pinned, !plan.items.contains(where: { $0.file.map(pinned.matches) ?? false }) {
            pinned.release()
        }
        return plan
    }

    private static func scanContents(of directory: URL, prefix: String, into plan: inout Plan) throws {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw ArchiveError(.io, path: directory.path, reason: "cannot list the directory: \(error.localizedDescription)")
        }
        for name in names.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let url = directory.appendingPathComponent(name)
            let entryName = prefix + "/" + name
            var status = stat()
            guard lstat(url.path, &status) == 0 else {
                throw ArchiveError(.io, path: url.path, reason: "cannot read: \(LibArchive.describe(errno: errno))")
            }
            switch status.st_mode & S_IFMT {
            case S_IFDIR:
                plan.items.append(Item(name: entryName, file: nil))
                try scanContents(of: url, prefix: entryName, into: &plan)
            case S_IFREG:
                plan.items.append(Item(name: entryName, file: url))
                plan.totalBytes += Int64(status.st_size)
            case S_IFLNK:
                throw ArchiveError(.unsafeEntry(name: entryName), path: url.path, entry: entryName,
                                   reason: "is a symbolic link; only files and directories are archived")
            default:
                throw ArchiveError(.unsafeEntry(name: entryName), path: url.path, entry: entryName,
                                   reason: "is a special file; only files and directories are archived")
            }
        }
    }

    private static func write(_ plan: Plan, with writer: ArchiveWriter, pinned: PinnedFile?,
                              progress: ((Int64, Int64) -> Void)?) throws {
        var done: Int64 = 0
        progress?(0, plan.totalBytes)
        for item in plan.items {
            if let file = item.file {
                let base = done
                let pin = pinned.flatMap { $0.matches(file) ? $0 : nil }
                done += try writer.addFile(item.name, contentsOf: file, pinned: pin, progress: progress.map { report in
                    { copied in report(base + copied, max(plan.totalBytes, base + copied)) }
                })
            } else {
                try writer.addDirectory(item.name)
            }
        }
        try writer.finish()
        progress?(max(done, plan.totalBytes), max(done, plan.totalBytes))
    }
}
