import Archive
import FileSafety
import Foundation
import Persistence
import SQLite
#if canImport(Glibc)
import Glibc
#endif

extension DeckDocument {
    /// What a deck archive holds: one `<Name>.sampledeck/` directory with the manifest, the
    /// store and `Media/`; any other layout is refused on reading.
    static func isArchivedPackageEntry(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1, 2: return true
        case 3: return parts[1] == mediaFolderName[...]
        default: return false
        }
    }

    /// The top-level directory name an archive of this deck uses: the package's own name,
    /// with `.sampledeck` added when it lacks it.
    public var archiveTopLevelName: String {
        let name = url.lastPathComponent
        return name.hasSuffix("." + Self.packageExtension) ? name : name + "." + Self.packageExtension
    }

    // MARK: Writing archives

    /// Writes the deck into a new archive at `destination`, from a consistent snapshot.
    ///
    /// The store is read in one read transaction, so the archive holds one committed state
    /// even while other processes write the deck, and never a live file with its `-wal`
    /// beside it (see `withSnapshot`: the store file itself, read in place, unless its WAL
    /// holds frames; then a copy made with the backup API). Media files (immutable once
    /// written, and written before the rows that reference them) are listed after the
    /// snapshot, so every file the snapshot references is included. Entries are sorted and
    /// their times, owners and permissions normalised (``DirectoryArchiver``): archiving the
    /// same deck twice gives the same bytes. The archive is written under a temporary name
    /// and renamed into place.
    ///
    /// A closed deck (rollback journal) is read in place under the read transaction's shared
    /// lock, which keeps writers from changing the file: before each 1 MiB of the store is
    /// archived, the lock table is looked at, and as soon as another process wants to write,
    /// the rest of the store is copied aside in the kernel and the lock let go, so a writer
    /// waits at most for one chunk and that copy. (A writer in this same process is not seen
    /// there: it waits until the store's entry is written.)
    ///
    /// - Parameters:
    ///   - destination: the archive to create; it must not exist.
    ///   - format: the archive format; `nil` infers it from `destination`'s extension, else zip.
    ///   - compressionLevel: as in ``ArchiveWriter``; `nil` for the format's default.
    ///   - progress: called with (bytes archived, total bytes) as the archive is written.
    /// - Throws: ``DeckError`` `alreadyExists` when `destination` exists, `io` when the
    ///   snapshot cannot be taken; ``ArchiveError`` when the archive cannot be written.
    ///   Costs a staging directory of hard links beside `destination`; a copy of the store
    ///   there only when its WAL holds frames, the staging directory is on another file
    ///   system, or a writer comes along while the store is archived.
    public func archive(
        to destination: URL, format: ArchiveFormat? = nil, compressionLevel: Int? = nil,
        progress: ((Int64, Int64) -> Void)? = nil
    ) throws {
        try requireOpen()
        let destination = destination.standardizedFileURL
        var status = stat()
        if lstat(destination.path, &status) == 0 {
            throw DeckError(path: destination.path, reason: "already exists", kind: .alreadyExists)
        }
        let format = format ?? ArchiveFormat.inferred(fromPath: destination.path) ?? .zip
        let staging = try PrivateDirectory(in: destination.deletingLastPathComponent(), purpose: "archive")
        defer { staging.remove() }
        try withSnapshot(in: staging.url, pinning: true) { tree, pinned in
            try DirectoryArchiver.archive(directory: tree, as: archiveTopLevelName, to: destination, format: format,
                                          compressionLevel: compressionLevel, pinned: pinned, progress: progress)
        }
    }

    /// Writes the deck as an archive onto an open file descriptor, such as standard output.
    ///
    /// The same snapshot and normalisation as ``archive(to:format:compressionLevel:progress:)``;
    /// the descriptor is not closed. A failure part-way leaves a truncated stream. A closed
    /// deck's store is copied first (in the kernel, under a shared lock held for that copy
    /// only), not read in place: the stream's reader may stall, and writers must not wait
    /// for it.
    /// - Throws: as ``archive(to:format:compressionLevel:progress:)``.
    public func archive(
        toFileDescriptor descriptor: Int32, format: ArchiveFormat, compressionLevel: Int? = nil,
        progress: ((Int64, Int64) -> Void)? = nil
    ) throws {
        try requireOpen()
        let staging = try PrivateDirectory(in: URL(fileURLWithPath: Leftovers.temporaryDirectory), purpose: "archive")
        defer { staging.remove() }
        try withSnapshot(in: staging.url, pinning: false) { tree, _ in
            try DirectoryArchiver.archive(directory: tree, as: archiveTopLevelName, toFileDescriptor: descriptor,
                                          format: format, compressionLevel: compressionLevel, progress: progress)
        }
    }

    /// Builds the package to archive in `directory` and runs `body` with it: the manifest, the
    /// store as one committed state, and the media files (hard links when the file system
    /// allows, copies otherwise).
    ///
    /// The store, in the cheapest way that gives one committed state:
    /// - In WAL mode with no frames in the WAL, a read transaction is opened and the store
    ///   file itself is linked into the tree and read while `body` runs. That reader reads the
    ///   file alone (WAL read mark 0), and SQLite never writes a checkpoint into the file while
    ///   such a reader exists; writers only append to the WAL. So the file is the committed
    ///   state and stays unchanged, at no copying cost.
    /// - With a rollback journal (a deck no writer has open) and `pinning`, a read transaction
    ///   is opened and the store file linked likewise: its shared lock keeps writers from
    ///   changing the file. `body` gets a ``PinnedFile`` that ends the transaction as soon as
    ///   the store's entry is written, or earlier, once the rest of the store is copied aside,
    ///   when another process waits to write (``writerIsWaiting(_:)``).
    /// - Otherwise (frames in the WAL, a staging directory on another file system, no
    ///   `pinning`), the store is copied: file to file in the kernel under a read transaction
    ///   for a rollback journal, else with the backup API, all pages in one step.
    private func withSnapshot(in directory: URL, pinning: Bool, _ body: (URL, PinnedFile?) throws -> Void) throws {
        let tree = directory.appendingPathComponent(archiveTopLevelName)
        do {
            try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: false)
        } catch {
            throw DeckError(path: directory.path, reason: "can't create a staging directory: \(error.localizedDescription)", kind: .io)
        }
        // A throwaway copy: no fsync (AtomicFile would sync it and the directory).
        let manifestCopy = tree.appendingPathComponent(Self.manifestName)
        do {
            try manifest.encoded().write(to: manifestCopy)
        } catch let error as DeckError {
            throw error
        } catch {
            throw DeckError(path: manifestCopy.path, reason: "can't write: \(error.localizedDescription)", kind: .io)
        }
        let storeCopy = tree.appendingPathComponent(manifest.store)
        try container.withDatabase(for: Note.self) { db in
            if try pinStore(db, linkingTo: storeCopy) {
                defer { try? db.execute("ROLLBACK") }
                try stageMedia(in: tree, referencedBy: db)
                try body(tree, nil)
            } else if pinning, try lockStore(db, linkingTo: storeCopy) {
                var inTransaction = true
                let pinned = PinnedFile(url: storeCopy, mustRelease: Self.writerIsWaiting) {
                    guard inTransaction else { return }
                    inTransaction = false
                    try? db.execute("ROLLBACK")
                }
                defer { pinned.release() }
                try stageMedia(in: tree, referencedBy: db)
                try body(tree, pinned)
            } else {
                try copyStore(db, to: storeCopy)
                try stageMedia(in: tree, referencedBy: db)
                try body(tree, nil)
            }
        }
    }

    /// Opens a read transaction and links the store file at `target` when the store uses a
    /// rollback journal (see ``withSnapshot(in:pinning:_:)``); returns false, with no
    /// transaction open, when it does not or the link cannot be made.
    private func lockStore(_ db: Database, linkingTo target: URL) throws -> Bool {
        guard !db.isInTransaction,
              let mode = (try? db.scalar("PRAGMA journal_mode", as: String.self))?.lowercased(),
              ["delete", "truncate", "persist"].contains(mode), beginReading(db) else { return false }
        if link(storeURL.path, target.path) == 0 { return true }
        try? db.execute("ROLLBACK")
        return false
    }

    /// Opens a read transaction and reads from it, which takes the store's shared lock (or
    /// the WAL read mark) and rolls back a hot journal first; false, with no transaction
    /// open, when that fails.
    private func beginReading(_ db: Database) -> Bool {
        do {
            try db.execute("BEGIN DEFERRED TRANSACTION")
            _ = try db.scalar("SELECT count(*) FROM sqlite_schema", as: Int64.self)
            return true
        } catch {
            if db.isInTransaction { try? db.execute("ROLLBACK") }
            return false
        }
    }

    /// Whether another process holds SQLite's RESERVED or PENDING lock on the store open on
    /// `descriptor`: a writer in a transaction, which needs our shared lock gone to commit.
    ///
    /// SQLite's Unix locking takes POSIX record locks on fixed bytes of the file, part of its
    /// file format (the PENDING byte at 1 GiB, RESERVED the byte after it). A query for a read
    /// lock there sees only write locks, so readers passing by are not mistaken for writers.
    /// Locks of this process are not reported. When the query fails, the answer is yes: the
    /// store is then copied aside, which is always safe.
    static func writerIsWaiting(_ descriptor: Int32) -> Bool {
        var query = flock()
        query.l_type = Int16(F_RDLCK)
        query.l_whence = Int16(SEEK_SET)
        query.l_start = 0x4000_0000
        query.l_len = 2
        guard fcntl(descriptor, F_GETLK, &query) == 0 else { return true }
        return query.l_type != Int16(F_UNLCK)
    }

    /// Opens a read transaction and links the store file at `target` when the file alone is
    /// the committed state (see ``withSnapshot(in:pinning:_:)``); returns false, with no
    /// transaction open, when it is not.
    private func pinStore(_ db: Database, linkingTo target: URL) throws -> Bool {
        guard !db.isInTransaction, (try? db.scalar("PRAGMA journal_mode", as: String.self))?.lowercased() == "wal",
              beginReading(db) else { return false }
        var status = stat()
        let walIsEmpty = lstat(storeURL.path + "-wal", &status) != 0 || status.st_size == 0
        if walIsEmpty, link(storeURL.path, target.path) == 0 { return true }
        try? db.execute("ROLLBACK")
        return false
    }

    /// Copies the store as one committed state. A store in rollback-journal mode (a deck no
    /// writer has open) is copied file to file in the kernel (`sendfile`) under a read
    /// transaction, whose shared lock keeps writers out for the few milliseconds it takes;
    /// otherwise the backup API copies the pages, all in one step (one read transaction),
    /// into a file in rollback-journal mode.
    private func copyStore(_ db: Database, to target: URL) throws {
        if !db.isInTransaction, (try? db.scalar("PRAGMA journal_mode", as: String.self))?.lowercased() == "delete" {
            do {
                try db.execute("BEGIN DEFERRED TRANSACTION")
                defer { if db.isInTransaction { try? db.execute("ROLLBACK") } }
                _ = try db.scalar("SELECT count(*) FROM sqlite_schema", as: Int64.self)
                if Self.copyFile(storeURL.path, to: target.path) { return }
            } catch {
                // Fall through to the backup API.
            }
            try? FileManager.default.removeItem(at: target)
        }
        do {
            let copy = try Database(path: target.path, mode: .create)
            defer { copy.close() }
            try db.backup(to: copy, pagesPerStep: -1)
            _ = try copy.setJournalMode(.delete)
        } catch {
            throw DeckError(path: storeURL.path, reason: "can't take a snapshot of the store: \(error)", kind: .io)
        }
    }

    /// Copies a file with `sendfile` (no data through user space); false on any failure.
    private static func copyFile(_ source: String, to target: String) -> Bool {
        let input = Glibc.open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return false }
        defer { Glibc.close(input) }
        let output = Glibc.open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { return false }
        defer { Glibc.close(output) }
        var status = stat()
        guard fstat(input, &status) == 0 else { return false }
        var remaining = Int(status.st_size)
        while remaining > 0 {
            let copied = sendfile(output, input, nil, remaining)
            if copied < 0, errno == EINTR { continue }
            guard copied > 0 else { return false }
            remaining -= copied
        }
        return true
    }

    /// Links (or copies) the media files into `tree/Media`. Media files are immutable once
    /// written and written before the rows that reference them, so listing them after the
    /// store's snapshot includes every file it references.
    ///
    /// Nothing is left out silently: a media file the snapshot references must be there as a
    /// regular file under a valid name, and every other entry of `Media/` must be a regular
    /// file too; otherwise archiving fails naming the file (an archive that can't be
    /// unarchived is not written).
    func stageMedia(in tree: URL, referencedBy db: Database) throws {
        var referenced: [String] = []
        do {
            for row in try db.rows("SELECT \"fileName\" FROM \"MediaFile\" ORDER BY \"fileName\"") {
                guard case .text(let name)? = row.first else {
                    throw DeckError(path: storeURL.path, reason: "a media reference has no file name", kind: .corrupt)
                }
                referenced.append(name)
            }
        } catch let error as DatabaseError {
            throw DeckError(path: storeURL.path, reason: "can't read the media references: \(error.message)", kind: .corrupt)
        }
        var names = Set<String>()
        if let problem = mediaFolderProblem() {
            throw DeckError(path: mediaURL.path, reason: problem + "; a package holds no links", kind: .corrupt)
        }
        if (try? UntrustedFile.type(atPath: mediaURL.path)) == .directory {
            do {
                names = Set(try FileManager.default.contentsOfDirectory(atPath: mediaURL.path).filter { !$0.hasPrefix(".") })
            } catch {
                throw DeckError(path: mediaURL.path, reason: "can't list the media folder: \(error.localizedDescription)", kind: .io)
            }
        }
        for name in referenced {
            _ = try mediaFileURL(named: name)
            guard names.contains(name) else {
                throw DeckError(path: mediaURL.appendingPathComponent(name).path, reason: "media file Media/\(MediaReference.printable(name)) is missing; "
                                + "the archive would fail its check", kind: .corrupt)
            }
        }
        guard !names.isEmpty else { return }
        let folder = tree.appendingPathComponent(Self.mediaFolderName)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        } catch {
            throw DeckError(path: folder.path, reason: "can't create a staging directory: \(error.localizedDescription)", kind: .io)
        }
        let media = try openMediaFolder()
        defer { Glibc.close(media) }
        for name in names.sorted() {
            let source = mediaURL.appendingPathComponent(name)
            let target = folder.appendingPathComponent(name)
            let input: Int32
            do {
                input = try UntrustedFile.openForReading(name, in: media)
            } catch {
                if case .wrongType(let found) = error.kind {
                    throw DeckError(path: source.path, reason: "media file Media/\(MediaReference.printable(name)) is \(found.rawValue), not a regular file", kind: .corrupt)
                }
                throw DeckError(path: source.path, reason: "can't read media file Media/\(MediaReference.printable(name)): \(error.reason)", kind: .io)
            }
            defer { Glibc.close(input) }
            // A hard link of the file just checked (linkat of the descriptor's own file), else a copy.
            if linkat(media, name, AT_FDCWD, target.path, 0) == 0, Self.sameFile(input, target.path) { continue }
            unlink(target.path)
            guard Self.copyDescriptor(input, to: target.path) else {
                throw DeckError(path: source.path, reason: "can't read media file Media/\(MediaReference.printable(name)): \(AtomicFile.errnoText())", kind: .io)
            }
        }
    }

    /// Whether `path` (not followed) is the file open on `descriptor`.
    private static func sameFile(_ descriptor: Int32, _ path: String) -> Bool {
        var a = stat(), b = stat()
        return fstat(descriptor, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// Copies what the descriptor reads (from its start) to a new file at `target`; false on failure.
    private static func copyDescriptor(_ input: Int32, to target: String) -> Bool {
        let output = Glibc.open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard output >= 0 else { return false }
        defer { Glibc.close(output) }
        var status = stat()
        guard fstat(input, &status) == 0 else { return false }
        var offset: off_t = 0
        var remaining = Int(status.st_size)
        while remaining > 0 {
            let copied = sendfile(output, input, &offset, remaining)
            if copied < 0, errno == EINTR { continue }
            guard copied > 0 else { return false }
            remaining -= copied
        }
        return true
    }

    // MARK: Reading archives

    /// Extracts the deck in `archive` into `directory`, checks it, and moves it into place;
    /// returns the new package's URL.
    ///
    /// The archive is extracted by ``ArchiveExtractor`` (every header checked before
    /// anything is written, libarchive's secure-extraction flags on, actual sizes counted)
    /// into a private directory inside `directory`, opened read-only and checked
    /// (``check()``), then renamed into place. On any failure nothing is left in
    /// `directory`; an existing deck is never replaced.
    ///
    /// - Parameters:
    ///   - archive: a zip or tar archive holding one `<Name>.sampledeck/` directory.
    ///   - directory: an existing directory.
    ///   - limits: bounds on entries, sizes and expansion (``ArchiveLimits/default``).
    ///   - progress: called as the deck is extracted with the bytes written and the total the
    ///     archive declares.
    /// - Throws: ``ArchiveError`` naming the entry for anything unsafe (`..`, absolute
    ///   names, links, devices, duplicates, a second top-level entry, entries outside the
    ///   package layout) or past `limits`, and for damaged archives; ``DeckError``
    ///   `alreadyExists` when the deck exists in `directory`, `corrupt`/`notADeck` when the
    ///   extracted deck fails to open or its check finds errors.
    @discardableResult
    public static func unarchive(_ archive: URL, into directory: URL, limits: ArchiveLimits = .default,
                                 progress: ((Int64, Int64) -> Void)? = nil) throws -> URL {
        let directory = directory.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DeckError(path: directory.path, reason: "no such directory", kind: .missing)
        }
        let staging = try PrivateDirectory(in: directory, purpose: "unarchive")
        defer { staging.remove() }
        let package = try extractPackage(archive, into: staging.url, limits: limits, progress: progress)
        do {
            let document = try open(at: package, mode: .readOnly)
            defer { try? document.close() }
            if let problem = document.check().first(where: { $0.severity == .error }) {
                throw DeckError(path: archive.path, reason: "the archived deck fails its check: \(problem.message)", kind: .corrupt)
            }
        } catch let error as DeckError where error.path != archive.path {
            let kind: DeckError.Kind = error.kind == .missing ? .notADeck : error.kind
            throw DeckError(path: archive.path, reason: "the archived deck can't be opened: \(error.reason)", kind: kind)
        }
        let target = directory.appendingPathComponent(package.lastPathComponent)
        // Never replaces anything, an empty folder or a dangling link included: of two
        // extractions of one deck exactly one wins.
        do {
            try Publisher.publishDirectory(package.path, at: target.path)
        } catch {
            throw AtomicFile.deckError(error, target)
        }
        return target
    }

    /// Opens the deck inside an archive read-only, without extracting it anywhere visible.
    ///
    /// The archive is extracted as by ``unarchive(_:into:limits:)`` into a private
    /// temporary directory (mode 0700), which ``close()`` removes.
    /// - Throws: as ``unarchive(_:into:limits:)``, and ``open(at:mode:)``'s errors.
    ///   Costs one extraction: use it for reading, not for decks you will edit.
    public static func open(archive: URL, limits: ArchiveLimits = .default) throws -> DeckDocument {
        let staging = try PrivateDirectory(in: URL(fileURLWithPath: Leftovers.temporaryDirectory), purpose: "read")
        do {
            let package = try extractPackage(archive, into: staging.url, limits: limits)
            let document: DeckDocument
            do {
                document = try open(at: package, mode: .readOnly)
            } catch let error as DeckError {
                throw DeckError(path: archive.path, reason: "the archived deck can't be opened: \(error.reason)",
                                kind: error.kind == .missing ? .notADeck : error.kind)
            }
            document.onClose = { staging.remove() }
            return document
        } catch {
            staging.remove()
            throw error
        }
    }

    /// Extracts the single package of `archive` into `directory`; returns its URL.
    private static func extractPackage(_ archive: URL, into directory: URL, limits: ArchiveLimits,
                                       progress: ((Int64, Int64) -> Void)? = nil) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: archive.path, isDirectory: &isDirectory) else {
            throw DeckError(path: archive.path, reason: "no such file", kind: .missing)
        }
        if isDirectory.boolValue {
            throw DeckError(path: archive.path, reason: "is a directory, not an archive", kind: .notADeck)
        }
        let names = try ArchiveExtractor.extract(archive, into: directory, limits: limits,
                                                 topLevel: .single { $0.hasSuffix("." + packageExtension) },
                                                 allow: isArchivedPackageEntry, progress: progress)
        guard let top = names.first?.split(separator: "/").first else {
            throw DeckError(path: archive.path, reason: "empty archive: a deck archive holds one <name>.sampledeck directory", kind: .notADeck)
        }
        return directory.appendingPathComponent(String(top))
    }
}

/// A directory only this process uses (mode 0700, random name `.deck-<purpose>.staging-<pid>-XXXXXX`),
/// removed when done, and by the signal handler if the process is killed first (``StagingDirectory``).
struct PrivateDirectory: Sendable {
    private let staging: StagingDirectory
    var url: URL { staging.url }

    init(in parent: URL, purpose: String) throws {
        let base = parent.path.isEmpty ? "." : parent.path
        do {
            staging = try StagingDirectory(in: base, for: "deck-\(purpose)")
        } catch {
            let number = error.errorNumber ?? ENOENT
            throw DeckError(path: base, reason: "can't create a temporary directory: \(String(cString: strerror(number)))",
                            kind: [EACCES, EROFS, EPERM, ENOENT, ENOTDIR].contains(number) ? .readOnly : .io)
        }
    }

    func remove() {
        staging.remove()
    }
}
