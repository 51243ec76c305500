import CardTemplates
import FileSafety
import Foundation
import Persistence
import SQLite

/// How a deck is opened.
public enum DeckOpenMode: Sendable {
    /// Reading and writing; takes the deck's write lock.
    case readWrite
    /// Reading only: nothing in the package is written, not even a lock file, so a deck on
    /// read-only media opens.
    case readOnly
}

/// An open `.sampledeck` package: its manifest, its store and the models in it.
///
/// A package is a directory `Name.sampledeck/` holding `manifest.json`, `Deck.sqlite` and,
/// when cards carry media, `Media/`. Each document has its own ``ModelContainer``: two
/// documents share nothing. Not `Sendable`: use a document from one task at a time.
///
/// ```swift
/// let deck = try DeckDocument.create(at: url, title: "French")
/// let basic = try deck.stockNoteType(.basic)
/// _ = try deck.addNote(type: basic, fields: ["chat", "cat"], tags: ["animals"])
/// try deck.close()
/// ```
public final class DeckDocument {
    /// The package directory.
    public let url: URL
    /// The manifest as last read or written.
    public private(set) var manifest: DeckManifest
    /// The container of the deck's store.
    public let container: ModelContainer
    /// How the document was opened.
    public let mode: DeckOpenMode
    private var lock: DeckLock?
    private var isClosed = false
    /// The private directory holding the recovered copy of a store a read-only document
    /// reads instead of the package's own (an interrupted write's hot journal beside it,
    /// which only a writer may roll back in place); removed on close.
    private var recoveredCopy: PrivateDirectory?
    /// Runs once the document is closed (removes the private copy of an opened archive).
    var onClose: (() -> Void)?
    /// The media files and names ``addMedia(_:originalName:mime:sha1:)`` inserted or looked up,
    /// so that adding many files doesn't look each one up through the context (a fetch merges
    /// every pending insert, which made an import of n media files cost n² predicate
    /// evaluations). An entry is trusted only while its model is still in ``mainContext``.
    var mediaByFileName: [String: DeckSchemaV2.MediaFile] = [:]
    var mediaNames: [String: DeckSchemaV2.MediaName] = [:]
    /// Media files written since the last save (removed by ``discardChanges()``).
    var addedMediaFiles: [URL] = []
    /// The card layouts of note types, by note type key, built once per document (parsing
    /// templates per note would dominate a bulk import).
    var noteLayouts: [Int64: CardTemplates.NoteLayout] = [:]
    /// The next position of a new card (Anki's `nextPos`), read from the store on first use.
    var nextNewPosition: Int64?
    /// The next Anki id ``newAnkiID()`` hands out, read from the store on first use.
    var nextAnkiID: Int64?

    /// The context commands work in (autosave off: changes are written by ``save()``).
    public var mainContext: ModelContext { container.sharedMainContext }

    /// The manifest file name.
    public static let manifestName = "manifest.json"
    /// The media folder name.
    public static let mediaFolderName = "Media"
    /// The package extension.
    public static let packageExtension = "sampledeck"

    /// The store file the document reads: the package's own, or for a read-only document
    /// whose store has an interrupted write's journal, a private recovered copy of it.
    public var storeURL: URL {
        recoveredCopy.map { $0.url.appendingPathComponent(manifest.store) } ?? url.appendingPathComponent(manifest.store)
    }

    /// Whether the document reads a private recovered copy of its store (see ``storeURL``).
    public var readsRecoveredCopy: Bool { recoveredCopy != nil }
    /// The media folder (may not exist).
    public var mediaURL: URL { url.appendingPathComponent(Self.mediaFolderName) }

    private init(url: URL, manifest: DeckManifest, container: ModelContainer, mode: DeckOpenMode, lock: DeckLock?,
                 recoveredCopy: PrivateDirectory? = nil) {
        self.url = url
        self.manifest = manifest
        self.container = container
        self.mode = mode
        self.lock = lock
        self.recoveredCopy = recoveredCopy
        container.sharedMainContext.autosaveEnabled = false
    }

    deinit {
        if !isClosed { try? close() }
    }

    // MARK: Creating and opening

    /// Creates a new, empty deck package at `url` and opens it for writing.
    ///
    /// The package is built under a temporary name beside `url` and renamed into place, so
    /// a failure leaves nothing behind.
    /// - Throws: ``DeckError`` `alreadyExists` when anything exists at `url`; `readOnly`/`io`
    ///   when the directory can't be written.
    public static func create(at url: URL, title: String) throws -> DeckDocument {
        let url = url.standardizedFileURL
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: url.path) || (try? fileManager.destinationOfSymbolicLink(atPath: url.path)) != nil {
            throw DeckError(path: url.path, reason: "already exists", kind: .alreadyExists)
        }
        let parent = url.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: parent.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DeckError(path: url.path, reason: "the folder \(parent.path) does not exist", kind: .missing)
        }
        // Built in a private folder beside `url` (`.<name>.staging-<pid>-…`, removed when done
        // and on SIGINT, SIGTERM and SIGHUP; a killed run's is swept by the next create), then
        // published without replacing anything: of two creates of one deck exactly one wins.
        let folder: StagingDirectory
        do {
            folder = try StagingDirectory(in: parent.path, for: url.lastPathComponent)
        } catch {
            throw AtomicFile.deckError(error, url)
        }
        defer { folder.remove() }
        let staging = folder.url.appendingPathComponent(url.lastPathComponent, isDirectory: true)
        do {
            try fileManager.createDirectory(at: staging, withIntermediateDirectories: false)
        } catch {
            throw DeckError(path: url.path, reason: "can't create the package: \(error.localizedDescription)", kind: .readOnly)
        }
        let manifest = DeckManifest(title: title)
        do {
            try DeckStoreV2.createStore(at: staging.appendingPathComponent(manifest.store), title: title)
        } catch let error as DeckError {
            throw error
        } catch {
            throw DeckError(path: url.path, reason: "can't create the store: \(error)", kind: .io)
        }
        try AtomicFile.write(try manifest.encoded(), to: staging.appendingPathComponent(manifestName))
        do {
            try Publisher.publishDirectory(staging.path, at: url.path)
        } catch {
            throw AtomicFile.deckError(error, url)
        }
        return try open(at: url, mode: .readWrite)
    }

    /// Opens an existing deck package.
    ///
    /// Checks the manifest (content type, format version) and the store before touching
    /// anything: the store's schema must hold nothing the format does not (no view, no
    /// foreign trigger or virtual table: see ``DeckStore``), since a shared deck is untrusted.
    /// Read-write opening takes the deck's lock; read-only opening writes nothing, not even
    /// when a killed writer left a hot journal: the store is then read from a private
    /// recovered copy (``readsRecoveredCopy``), and the journal is left for the next writer.
    /// - Throws: ``DeckError``: `missing`; `notADeck` for a foreign or incomplete package;
    ///   `newerVersion` naming both versions; `notADeck` with "run deck migrate" for an older
    ///   format (see ``migrate(at:)``); `inUse` when another writer holds the lock (after
    ///   waiting as `lockWait` allows: not at all by default); `corrupt` for a damaged store
    ///   or one whose schema the format does not allow.
    ///
    /// `writeAheadLog: false` writes through SQLite's rollback journal instead of a WAL: for a
    /// command that makes one short write and closes (`deck review`), where turning the WAL on
    /// at open and back off at close (the package keeps one store file at rest) would cost
    /// more disk syncs than the write itself. A session keeps the WAL (readers aren't blocked
    /// while it writes).
    public static func open(at url: URL, mode: DeckOpenMode = .readWrite, lockWait: DeckLockWait = .none,
                            writeAheadLog: Bool = true) throws -> DeckDocument {
        let url = url.standardizedFileURL
        let manifest = try readManifest(of: url)
        if let error = DeckManifest.versionError(manifest.formatVersion, path: url.path) { throw error }
        let packageStore = try validateStoreName(manifest.store, in: url)
        let recoveredCopy = try verifyStore(at: packageStore, package: url, mode: mode)
        let storeURL = recoveredCopy.map { $0.url.appendingPathComponent(manifest.store) } ?? packageStore
        let lock: DeckLock?
        do {
            if mode == .readWrite {
                // A writer creates the lock and writes media: both must be what the format says
                // (a reader only refuses them when it uses them, and `check` reports them).
                for entry in fixedEntries where entry.name != manifestName {
                    try requireEntry(entry.name, type: entry.type, in: url, optional: true)
                }
            }
            lock = mode == .readWrite ? try DeckLock(package: url, wait: lockWait) : nil
        } catch {
            recoveredCopy?.remove()
            throw error
        }
        if lock != nil { removeStaleTemporaries(in: url) }
        do {
            // A writer upgrades a store of an earlier revision of format version 2 (2.0: two
            // indexes more) in the open's transaction; a reader reads it as it is.
            let container = try ModelContainer(for: DeckStoreV2.schema(), migrationPlan: mode == .readWrite ? DeckRevisionPlan.self : nil, configurations: [
                ModelConfiguration("Deck", url: storeURL, allowsSave: mode == .readWrite, usesWriteAheadLog: writeAheadLog),
            ])
            if mode == .readWrite {
                try container.withDatabase(for: DeckSchemaV2.Note.self) { db in
                    // Checked again under the lock, on the connection that will write; then its
                    // triggers are known to be the format's, which write the FTS5 index (a
                    // virtual table only a trusted schema's triggers may use).
                    try DeckStore.validateSchema(db, path: packageStore.path, formatVersion: manifest.formatVersion)
                    try db.trustSchema()
                    try DeckStoreV2.install(db)
                }
            }
            return DeckDocument(url: url, manifest: manifest, container: container, mode: mode, lock: lock, recoveredCopy: recoveredCopy)
        } catch let error as DeckError {
            lock?.release()
            recoveredCopy?.remove()
            throw error
        } catch {
            lock?.release()
            recoveredCopy?.remove()
            throw DeckError(path: storeURL.path, reason: "can't open the store: \(error)", kind: DeckError.kind(of: error))
        }
    }

    /// The largest manifest read (a manifest is a few hundred bytes; titles may be long).
    static let maximumManifestSize = 16 << 20

    /// Reads and decodes `manifest.json`, saying precisely what is missing.
    static func readManifest(of url: URL) throws -> DeckManifest {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw DeckError(path: url.path, reason: "no such deck", kind: .missing)
        }
        guard isDirectory.boolValue else {
            throw DeckError(path: url.path, reason: "not a .sampledeck package (a package is a directory)", kind: .notADeck)
        }
        let manifestURL = url.appendingPathComponent(manifestName)
        // Opened without following a link and refused unless a regular file, before a byte
        // is read (a FIFO would block the reader forever).
        let data: Data
        do {
            data = try UntrustedFile.read(manifestURL.path, limit: maximumManifestSize)
        } catch {
            switch error.kind {
            case .missing:
                throw DeckError(path: url.path, reason: "not a .sampledeck package: \(manifestName) is missing", kind: .notADeck)
            case .wrongType(.directory):
                throw DeckError(path: url.path, reason: "not a .sampledeck package: \(manifestName) is a directory, not a file", kind: .notADeck)
            case .wrongType(let found):
                throw DeckError(path: manifestURL.path, reason: "\(manifestName) is \(found.rawValue), not a regular file; "
                                + "a reader refuses links and special files in a package", kind: .corrupt)
            case .system(EFBIG):
                throw DeckError(path: manifestURL.path, reason: "\(manifestName) is larger than \(maximumManifestSize >> 20) MiB", kind: .corrupt)
            default:
                throw DeckError(path: manifestURL.path, reason: "can't read \(manifestName): \(error.reason)", kind: .io)
            }
        }
        return try DeckManifest.decode(data, path: manifestURL.path)
    }

    /// The store named by the manifest: a plain file name inside the package.
    static func validateStoreName(_ name: String, in url: URL) throws -> URL {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != "..", !name.hasPrefix(".") else {
            throw DeckError(path: url.appendingPathComponent(manifestName).path, reason: "manifest store \"\(name)\" is not a file name inside the package", kind: .corrupt)
        }
        return url.appendingPathComponent(name)
    }

    /// Checks that the store exists, is a regular file (with regular companions) and is a
    /// deck store whose schema the format allows, opening it read-only. Returns the private
    /// directory of a recovered copy when the store has an interrupted write's journal and
    /// `mode` is read-only (a writer recovers the store in place instead).
    static func verifyStore(at storeURL: URL, package: URL, mode: DeckOpenMode) throws -> PrivateDirectory? {
        let name = storeURL.lastPathComponent
        do {
            try UntrustedFile.require(.regular, atPath: storeURL.path)
        } catch {
            if case .missing = error.kind {
                throw DeckError(path: package.path, reason: "not a complete .sampledeck package: the store \(name) is missing", kind: .notADeck)
            }
            throw refusal(error, entry: name, package: package)
        }
        for suffix in storeCompanionSuffixes {
            try requireEntry(name + suffix, type: .regular, in: package, optional: true)
        }
        try refuseSuperJournal(of: storeURL)
        func inspect(_ file: URL) throws {
            let db = try Database(path: file.path, mode: .readOnly)
            defer { db.close() }
            for table in ["Note", "Card", "NoteType", "Deck", "Tag", Schema.metadataTable] where try !db.tableExists(table) {
                throw DeckError(path: storeURL.path, reason: "not a deck store: table \(table) is missing", kind: .notADeck)
            }
            try DeckStore.validateSchema(db, path: storeURL.path, formatVersion: DeckStoreV2.formatVersion)
            // The store's own version must be the manifest's (docs/FORMAT.md, "Version policy"):
            // a store of another format under a version 2 manifest would be read wrongly.
            let version = try db.userVersion()
            guard version == DeckStoreV2.formatVersion else {
                throw DeckError(path: storeURL.path, reason: "the store's user_version is \(version), but the manifest says format version \(DeckStoreV2.formatVersion)", kind: .corrupt)
            }
        }
        do {
            do {
                try inspect(storeURL)
                return nil
            } catch let error as DatabaseError where error.code == DatabaseError.readOnly {
                // A writer killed mid-transaction leaves a hot journal (or a WAL needing
                // recovery) that a read-only connection may not roll back. A writer (it is
                // about to take the lock) recovers the store in place; a reader never writes
                // the package, so it recovers a private copy and reads that.
                if mode == .readOnly {
                    let copy = try recoveredCopy(of: storeURL, reason: error)
                    do {
                        try inspect(copy.url.appendingPathComponent(storeURL.lastPathComponent))
                    } catch {
                        copy.remove()
                        throw error
                    }
                    return copy
                }
                guard recoverInterruptedWrite(of: storeURL) else {
                    throw DeckError(path: storeURL.path, reason: "the store needs recovery after an interrupted write, "
                                    + "and it can't be written here (\(error.message))", kind: .readOnly)
                }
                try inspect(storeURL)
                return nil
            }
        } catch let error as DeckError {
            throw error
        } catch let error as DatabaseError {
            throw DeckError(path: storeURL.path, reason: "store can't be read: \(error.message)", kind: DeckError.kind(of: error))
        }
    }

    /// Copies the store with its journal or WAL into a private directory and lets SQLite
    /// recover the copy there (roll back the journal, or replay the WAL).
    static func recoveredCopy(of storeURL: URL, reason: DatabaseError) throws -> PrivateDirectory {
        let copy = try PrivateDirectory(in: URL(fileURLWithPath: Leftovers.temporaryDirectory), purpose: "recover")
        let target = copy.url.appendingPathComponent(storeURL.lastPathComponent)
        do {
            for suffix in ["", "-journal", "-wal"] {
                let source = storeURL.path + suffix
                guard suffix.isEmpty || FileManager.default.fileExists(atPath: source) else { continue }
                try FileManager.default.copyItem(atPath: source, toPath: target.path + suffix)
            }
            let db = try Database(path: target.path, mode: .readWrite)
            // Reading the schema is what makes SQLite roll back a hot journal.
            _ = try db.schemaObjects()
            db.close()
        } catch let error as DatabaseError {
            copy.remove()
            throw DeckError(path: storeURL.path, reason: "the store needs recovery after an interrupted write, and its recovery "
                            + "failed (\(error.message))", kind: DeckError.kind(of: error))
        } catch {
            copy.remove()
            throw DeckError(path: storeURL.path, reason: "the store needs recovery after an interrupted write (\(reason.message)), "
                            + "and it can't be copied to recover it: \(error.localizedDescription)", kind: .io)
        }
        return copy
    }

    /// Refuses a rollback journal that names a super-journal. This program never writes one
    /// (it commits one database at a time); rolling such a journal back makes SQLite read,
    /// and possibly delete, the file it names — any path the journal's author chose.
    static func refuseSuperJournal(of storeURL: URL) throws {
        let journal = storeURL.path + "-journal"
        guard let handle = FileHandle(forReadingAtPath: journal) else { return }
        defer { try? handle.close() }
        // The record ends the journal: name length (4 bytes), checksum (4), the magic (8).
        guard let size = try? handle.seekToEnd(), size >= 16 else { return }
        let magic: [UInt8] = [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]
        do {
            try handle.seek(toOffset: size - 16)
            let tail = [UInt8](try handle.read(upToCount: 16) ?? Data())
            guard tail.count == 16, Array(tail[8...]) == magic else { return }
            let length = tail[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard length > 0, length <= size - 16 else { return }
        } catch {
            return
        }
        throw DeckError(path: journal, reason: "the store's journal names a super-journal (another file), "
                        + "which no deck writer makes; refusing to roll it back", kind: .corrupt)
    }

    /// Deletes manifest temporaries a killed writer left behind (`.manifest.json.tmp-…`);
    /// called with the write lock held, so no live writer owns them.
    static func removeStaleTemporaries(in url: URL) {
        for folder in [url, url.appendingPathComponent(mediaFolderName)] {
            guard (try? UntrustedFile.type(atPath: folder.path)) == .directory else { continue }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where isWriterTemporary(name) {
                let entry = folder.appendingPathComponent(name)
                guard (try? UntrustedFile.type(atPath: entry.path)) == .regular else { continue }
                try? FileManager.default.removeItem(at: entry)
            }
        }
    }

    /// A temporary a writer makes inside a package: `.<name>.partial-<pid>-XXXXXX` (and
    /// `.manifest.json.tmp-<uuid>` of earlier versions). Only a writer holding the lock makes
    /// them, so with the lock held every one is stale.
    static func isWriterTemporary(_ name: String) -> Bool {
        if name.hasPrefix(".\(manifestName).tmp-") { return true }
        return TemporaryName.parse(name)?.purpose == .partial
    }

    /// Lets SQLite roll back a hot journal or recover a WAL left by a killed writer, by
    /// opening the store for writing once. Returns false when that is not possible.
    static func recoverInterruptedWrite(of storeURL: URL) -> Bool {
        let leftovers = ["-journal", "-wal"].contains { FileManager.default.fileExists(atPath: storeURL.path + $0) }
        guard leftovers, let db = try? Database(path: storeURL.path, mode: .readWrite) else { return false }
        db.close()
        return true
    }

    // MARK: Saving and closing

    /// Writes every pending change in one transaction, then rewrites the manifest (new
    /// `modified` date) atomically.
    /// - Throws: ``DeckError`` `readOnly` for a read-only document; the persistence error of a failed save.
    public func save() throws {
        try requireOpen()
        guard mode == .readWrite else {
            throw DeckError(path: url.path, reason: "deck is open read-only", kind: .readOnly)
        }
        if mainContext.hasChanges {
            try saveIndexingNotes()
        }
        addedMediaFiles.removeAll()
        var updated = manifest
        updated.modified = Date()
        updated.generator = DeckManifest.generatorName
        try AtomicFile.write(try updated.encoded(), to: url.appendingPathComponent(Self.manifestName))
        manifest = updated
    }

    /// Saves pending changes (read-write), checkpoints the store into one file and releases
    /// the lock. Calling it again does nothing.
    public func close() throws {
        guard !isClosed else { return }
        defer {
            isClosed = true
            lock?.release()
            lock = nil
            onClose?()
            onClose = nil
            recoveredCopy?.remove()
            recoveredCopy = nil
        }
        if mode == .readWrite && mainContext.hasChanges {
            do {
                try save()
            } catch {
                // The store is closed all the same (checkpointed: no -wal or -shm left beside
                // it), and the save's error is the one reported.
                try? container.close()
                throw error
            }
        }
        try container.close()
    }

    /// Drops every unsaved change: rolls back ``mainContext`` and removes the media files
    /// written since the last save, so a failed import leaves the deck, `Media/` included,
    /// as it was.
    public func discardChanges() {
        mainContext.rollback()
        removeUnsavedMediaFiles()
    }

    func requireOpen() throws {
        if isClosed { throw DeckError(path: url.path, reason: "deck is closed", kind: .io) }
    }

    /// Changes the deck's title (manifest and `DeckInfo`); written by the next ``save()``.
    public func setTitle(_ title: String) throws {
        try requireOpen()
        manifest.title = title
        let infos = try mainContext.fetch(FetchDescriptor<DeckSchemaV2.DeckInfo>())
        if let info = infos.first { info.title = title } else { mainContext.insert(DeckSchemaV2.DeckInfo(title: title)) }
    }
}
