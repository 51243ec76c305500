internal import CArchive
import FileSafety
import Foundation

/// Extracts an archive from an untrusted source into a directory, refusing anything unsafe
/// before it is written.
///
/// Extraction goes in two passes over the archive:
///
/// 1. **Checking** every header, before anything is written. Refused, each with an
///    ``ArchiveError`` naming the entry: `..` components, absolute names, backslashes and
///    control characters in names; symbolic and hard links, devices, fifos and sockets;
///    duplicate entries and entries inside a file entry; entries outside the allowed
///    ``TopLevel``; names the `allow` predicate rejects; more entries, larger declared
///    sizes or a larger declared expansion than the ``ArchiveLimits`` allow.
/// 2. **Extracting** into a hidden staging directory inside `directory`, with libarchive's
///    disk writer under `ARCHIVE_EXTRACT_SECURE_NODOTDOT`, `SECURE_SYMLINKS`,
///    `SECURE_NOABSOLUTEPATHS` and `NO_OVERWRITE`, counting the bytes actually written
///    against the limits (headers can lie: zip bombs). Files get mode `0644`, directories
///    `0755` (less the umask); owners, times and other metadata are not restored.
///
/// Only when every entry is written are the top-level entries moved from the staging
/// directory into `directory`; on any failure the staging directory is removed, so nothing
/// is left in or outside `directory`. Existing files are never replaced.
///
/// ```swift
/// let names = try ArchiveExtractor.extract(archive, into: destination,
///                                          topLevel: .single { $0.hasSuffix(".sampledeck") })
/// ```
public enum ArchiveExtractor {
    /// Which top-level entries an archive may have.
    public enum TopLevel: Sendable, ExpressibleByStringLiteral {
        /// No constraint: entries may sit anywhere below the extraction directory.
        case any
        /// Every entry is inside the directory with this name (which is a directory, not a file).
        case named(String)
        /// Every entry is inside one and the same top-level directory, whose name the
        /// predicate accepts (e.g. `{ $0.hasSuffix(".sampledeck") }`).
        case single(where: @Sendable (String) -> Bool)

        /// A string literal means ``named(_:)``.
        public init(stringLiteral value: String) { self = .named(value) }
    }

    /// Which disk writer pass 2 uses (tests force each; callers use `.automatic`).
    enum Backend {
        /// libarchive's disk writer when the thread can have its own working directory,
        /// otherwise the `openat` writer.
        case automatic
        /// Always the `openat` writer.
        case descriptor
    }

    /// Extracts `archive` into the existing directory `directory` after checking all of it.
    ///
    /// - Parameters:
    ///   - archive: any archive ``ArchiveReader`` reads.
    ///   - directory: an existing directory; what is already in it is kept, and an entry
    ///     whose top-level name already exists there makes the extraction fail.
    ///   - limits: bounds on entries, sizes and expansion.
    ///   - topLevel: which top-level entries are allowed.
    ///   - allow: an allow-list: called with each entry's normalised relative name
    ///     (`"Deck.sampledeck/Media/a.jpg"`); an entry it rejects is refused.
    ///   - progress: called as data is written with the bytes written so far and the total the
    ///     headers declare (checked in the first pass).
    /// - Returns: the normalised relative names of the entries created, in archive order.
    /// - Throws: ``ArchiveError``: `.unsafeEntry` and `.limitExceeded` name the entry;
    ///   `.malformed` for a damaged archive; `.alreadyExists` if a top-level name exists in
    ///   `directory`; `.io` if the archive cannot be read or the files cannot be written.
    ///   The cost: the archive is read twice (headers, then data).
    @discardableResult
    public static func extract(
        _ archive: URL, into directory: URL, limits: ArchiveLimits = .default,
        topLevel: TopLevel = .any, allow: ((String) -> Bool)? = nil, progress: ((Int64, Int64) -> Void)? = nil
    ) throws -> [String] {
        try extract(archive, into: directory, limits: limits, topLevel: topLevel, allow: allow, backend: .automatic, progress: progress)
    }

    static func extract(
        _ archive: URL, into directory: URL, limits: ArchiveLimits, topLevel: TopLevel,
        allow: ((String) -> Bool)?, backend: Backend, progress: ((Int64, Int64) -> Void)? = nil
    ) throws -> [String] {
        try requireDirectory(directory)

        // Pass 1: every header, no data written.
        let (planned, declared) = try check(archive, limits: limits, topLevel: topLevel, allow: allow)
        let topNames = orderedTopLevelNames(planned)
        try requireAbsent(topNames, in: directory)

        // Pass 2: into a staging directory, then moved into place.
        let stagingDirectory = try makeStagingDirectory(in: directory)
        defer { stagingDirectory.remove() }
        let staging = stagingDirectory.url
        do {
            let created = try PrivateWorkingDirectory.run(in: staging) { changed in
                let writer: DiskWriter = changed && backend == .automatic
                    ? try LibArchiveDiskWriter(archivePath: archive.path)
                    : try DescriptorDiskWriter(root: staging)
                return try write(archive, with: writer, limits: limits, topLevel: topLevel, allow: allow,
                                 progress: progress.map { report in { report($0, declared) } })
            }
            guard created == planned else {
                throw ArchiveError(.malformed, path: archive.path, reason: "the archive changed while it was extracted")
            }
            try moveIntoPlace(topNames, from: staging, to: directory)
            return created
        }
    }

    /// Pass 1: checks every header and the declared sizes; returns the names to create and the
    /// sum of their declared sizes (within the limits, so it can't overflow).
    private static func check(
        _ archive: URL, limits: ArchiveLimits, topLevel: TopLevel, allow: ((String) -> Bool)?
    ) throws -> (names: [String], declaredBytes: Int64) {
        let reader = try ArchiveReader(url: archive, limits: limits)
        var policy = EntryPolicy(topLevel: topLevel, allow: allow, archivePath: reader.displayPath)
        var names: [String] = []
        var declared: Int64 = 0
        while let entry = try reader.nextEntry() {
            if let admitted = try policy.admit(entry) {
                names.append(admitted.name)
                declared = declared.addingReportingOverflow(max(admitted.size ?? 0, 0)).partialValue
            }
        }
        return (names, declared)
    }

    /// Pass 2: checks every header again (the file may have changed) and writes it.
    private static func write(
        _ archive: URL, with writer: DiskWriter, limits: ArchiveLimits, topLevel: TopLevel,
        allow: ((String) -> Bool)?, progress: ((Int64) -> Void)?
    ) throws -> [String] {
        let reader = try ArchiveReader(url: archive, limits: limits)
        reader.onProduced = progress
        var policy = EntryPolicy(topLevel: topLevel, allow: allow, archivePath: reader.displayPath)
        var names: [String] = []
        while let entry = try reader.nextEntry() {
            guard let admitted = try policy.admit(entry) else { continue }
            if admitted.isDirectory {
                try writer.makeDirectory(admitted)
            } else {
                try writer.writeFile(admitted, from: reader)
            }
            names.append(admitted.name)
        }
        return names
    }

    // MARK: The destination

    private static func requireDirectory(_ directory: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            throw ArchiveError(.io, path: directory.path, reason: "the destination directory does not exist")
        }
        guard isDirectory.boolValue else {
            throw ArchiveError(.io, path: directory.path, reason: "the destination is not a directory")
        }
    }

    private static func orderedTopLevelNames(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        var result: [String] = []
        for name in names {
            let top = String(name.prefix { $0 != "/" })
            if seen.insert(top).inserted { result.append(top) }
        }
        return result
    }

    private static func requireAbsent(_ names: [String], in directory: URL) throws {
        for name in names {
            var status = stat()
            if lstat(directory.appendingPathComponent(name).path, &status) == 0 {
                throw ArchiveError(.alreadyExists, path: directory.appendingPathComponent(name).path, entry: name,
                                   reason: "already exists; extraction never replaces files")
            }
        }
    }

    /// A private folder in `directory` (`.deck-extract.staging-<pid>-…`), removed when done and
    /// on SIGINT, SIGTERM and SIGHUP (``StagingDirectory``).
    private static func makeStagingDirectory(in directory: URL) throws -> StagingDirectory {
        do {
            return try StagingDirectory(in: directory.path, for: "deck-extract")
        } catch {
            throw ArchiveError(.io, path: directory.path, reason: "cannot create a staging directory: \(error.reason)")
        }
    }

    /// Moves the top-level entries from the staging directory into place; if one cannot be
    /// moved, those already moved go back, so the destination is left as it was.
    private static func moveIntoPlace(_ names: [String], from staging: URL, to directory: URL) throws {
        try requireAbsent(names, in: directory)
        var moved: [String] = []
        for name in names {
            let source = staging.appendingPathComponent(name).path
            let target = directory.appendingPathComponent(name).path
            guard renameWithoutReplacing(source, target) == 0 else {
                let kind: ArchiveError.Kind = errno == EEXIST ? .alreadyExists : .io
                let reason = "cannot move into place: \(LibArchive.describe(errno: errno))"
                for done in moved.reversed() {
                    _ = renameWithoutReplacing(directory.appendingPathComponent(done).path, staging.appendingPathComponent(done).path)
                }
                throw ArchiveError(kind, path: target, entry: name, reason: reason)
            }
            moved.append(name)
        }
    }

    /// `rename(2)` that fails with `EEXIST` instead of replacing the target.
    private static func renameWithoutReplacing(_ source: String, _ target: String) -> Int32 {
        #if os(Linux)
        let result = renameat2(AT_FDCWD, source, AT_FDCWD, target, carchive_rename_noreplace)
        guard result != 0, errno == EINVAL || errno == ENOSYS else { return result }
        // A file system without RENAME_NOREPLACE: check, then rename (racy, but checked once already).
        #endif
        var status = stat()
        if lstat(target, &status) == 0 {
            errno = EEXIST
            return -1
        }
        return rename(source, target)
    }
}
