import FileSafety
import Foundation
import Persistence
import SQLite

extension DeckDocument {
    /// Upgrades a deck of an older format version in place, keeping a copy of the original.
    ///
    /// The original package is first copied to `Name.sampledeck.backup-v<old>` beside it
    /// (`-2`, `-3`… when that exists). The new store is built under a temporary name inside
    /// the package; the atomic rewrite of `manifest.json` is the switch point, so a crash
    /// leaves either the old deck or the new one. Card ids are kept.
    ///
    /// `target` is the format version to reach: the program's own, 2 (``DeckManifest/currentFormatVersion``),
    /// by default, or 1: a version 0 deck goes through version 1, a version 1 deck's store is
    /// upgraded by ``DeckMigrationPlan`` in one transaction.
    /// - Returns: the old and new format versions and the backup (nil when the deck was
    ///   already at `target` and nothing was done).
    /// - Throws: ``DeckError``: `newerVersion`, `notADeck`, `corrupt`, `inUse`, `io`.
    public static func migrate(at url: URL, to target: Int = DeckManifest.currentFormatVersion) throws -> (from: Int, to: Int, backup: URL?) {
        let url = url.standardizedFileURL
        let raw = try readRawManifest(of: url)
        let current = DeckManifest.currentFormatVersion
        guard let version = raw["formatVersion"] as? Int else {
            throw DeckError(path: url.appendingPathComponent(manifestName).path, reason: "manifest lacks an integer formatVersion", kind: .corrupt)
        }
        guard (1...DeckStoreV2.formatVersion).contains(target) else {
            throw DeckError(path: url.path, reason: "can't migrate to format version \(target): this program knows versions 0 to \(DeckStoreV2.formatVersion)", kind: .newerVersion)
        }
        if version > max(current, target), let error = DeckManifest.versionError(version, path: url.path) { throw error }
        if version == target {
            if target == current {
                let document = try open(at: url, mode: .readOnly)
                let revision = try document.storeRevision()
                try document.close()
                // An earlier revision of this format version (2.0): opening for writing upgrades
                // it, in one transaction that changes no row (so no backup is made).
                if let revision, revision < DeckStoreV2.revision {
                    try open(at: url, mode: .readWrite).close()
                }
            }
            return (version, version, nil)
        }
        guard version < target else {
            throw DeckError(path: url.path, reason: "format version \(version) can't be migrated down to \(target)", kind: .newerVersion)
        }
        guard version == 0 || version == 1 else {
            throw DeckError(path: url.path, reason: "unknown deck format version \(version)", kind: .corrupt)
        }
        let lock = try DeckLock(package: url)
        defer { lock.release() }
        let oldStore = try validateStoreName(raw["store"] as? String ?? (version == 0 ? "Cards.sqlite" : DeckManifest.defaultStoreName), in: url)
        guard FileManager.default.fileExists(atPath: oldStore.path) else {
            throw DeckError(path: url.path, reason: "not a complete .sampledeck package: the store \(oldStore.lastPathComponent) is missing", kind: .notADeck)
        }
        let rows = version == 0 ? try readVersion0Cards(oldStore) : []
        let backup = try makeBackup(of: url, version: version)

        let newName = oldStore.lastPathComponent == DeckManifest.defaultStoreName ? "Deck-v\(target).sqlite" : DeckManifest.defaultStoreName
        let building = url.appendingPathComponent(".\(newName).migrating")
        // A killed migration's, with its journal, which SQLite would otherwise take for the new
        // store's hot journal (we hold the lock: no live writer owns them).
        for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: building.path + suffix) }
        // Removed on SIGINT, SIGTERM and SIGHUP, with its journal, until it is the new store.
        let guards = [CleanupRegistry.register(building.path), CleanupRegistry.register(building.path + "-journal")]
        defer { guards.forEach(CleanupRegistry.unregister) }
        let title = raw["title"] as? String ?? url.deletingPathExtension().lastPathComponent
        do {
            if version == 0 {
                try DeckStore.createEmptyStore(at: building)
                let container = try ModelContainer(for: DeckStore.schema(), configurations: [ModelConfiguration("Deck", url: building)])
                try container.withDatabase(for: Card.self) { db in try DeckStore.install(db, formatVersion: 1) }
                try container.close()
                let db = try Database(path: building.path, mode: .readWrite)
                defer { db.close() }
                try db.trustSchema()  // the store was built just now, by us
                try db.transaction(.immediate) {
                    // Indexed once at the end, not by the triggers row by row: through them, each
                    // tag link of a card rewrote its whole index row (20,000 tags on a card: minutes).
                    for statement in DeckStore.searchDDL {
                        if let trigger = DeckStore.triggerName(of: statement) { try db.execute("DROP TRIGGER IF EXISTS \(quoteIdentifier(trigger))") }
                    }
                    try insertVersion0(rows, title: title, into: db)
                    for statement in DeckStore.searchDDL { try db.execute(statement) }
                    try DeckStore.rebuildSearch(db)
                }
            } else {
                // A private copy of the version 1 store (a consistent snapshot through SQLite's
                // backup API), upgraded in place; the original stays as it is until the switch.
                let source = try Database(path: oldStore.path, mode: .readOnly)
                defer { source.close() }
                // A shared deck is untrusted: its schema must be version 1's before any of it is read.
                try DeckStore.validateSchema(source, path: oldStore.path, formatVersion: 1)
                let copy = try Database(path: building.path, mode: .create)
                defer { copy.close() }
                try source.backup(to: copy)
            }
            if target == DeckStoreV2.formatVersion { try DeckStoreV2.upgradeVersion1Store(at: building) }
        } catch let error as DeckError {
            try? FileManager.default.removeItem(at: building)
            throw error
        } catch {
            try? FileManager.default.removeItem(at: building)
            // Data the migration can't carry over is damage (65); anything else is the disk's (74).
            if error is MigrationFault || error is PersistenceError {
                throw DeckError(path: url.path, reason: "can't migrate from format version \(version) to \(target): \(error)", kind: .corrupt)
            }
            throw DeckError(path: building.path, reason: "can't build the migrated store: \(error)", kind: .io)
        }
        try syncFile(building)
        let newStore = url.appendingPathComponent(newName)
        guard rename(building.path, newStore.path) == 0 else {
            throw DeckError(path: newStore.path, reason: "can't move the migrated store into place: \(AtomicFile.errnoText())", kind: .io)
        }
        var manifest = DeckManifest(title: title, created: (raw["created"] as? String).flatMap(DeckManifest.parseDate) ?? Date(),
                                    documentID: (raw["documentID"] as? String).flatMap(UUID.init(uuidString:)) ?? UUID(),
                                    formatVersion: target, store: newName)
        manifest.modified = Date()
        try AtomicFile.write(try manifest.encoded(), to: url.appendingPathComponent(manifestName))
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: oldStore.path + suffix)
        }
        return (version, target, backup)
    }

    /// The revision of format version 2 the store records (`schemaVersion`: 2.1.0, or 2.0.0 for
    /// a store an earlier program wrote, which the first writer upgrades); nil when it records none.
    public func storeRevision() throws -> Schema.Version? {
        try container.withDatabase(for: DeckSchemaV2.Note.self) { db in
            try DeckStoreV2.storedRevision(db, objects: try db.schemaObjects())
        }
    }

    /// The manifest as a JSON object, checking the content type.
    static func readRawManifest(of url: URL) throws -> [String: Any] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw DeckError(path: url.path, reason: "no such deck", kind: .missing)
        }
        guard isDirectory.boolValue else { throw DeckError(path: url.path, reason: "not a .sampledeck package (a package is a directory)", kind: .notADeck) }
        let manifestURL = url.appendingPathComponent(manifestName)
        guard let data = FileManager.default.contents(atPath: manifestURL.path) else {
            throw DeckError(path: url.path, reason: "not a .sampledeck package: \(manifestName) is missing", kind: .notADeck)
        }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw DeckError(path: manifestURL.path, reason: "manifest is not a JSON object", kind: .corrupt)
        }
        guard object["contentType"] as? String == DeckManifest.deckContentType else {
            throw DeckError(path: manifestURL.path, reason: "manifest contentType is not \"\(DeckManifest.deckContentType)\"; not a .sampledeck package", kind: .notADeck)
        }
        return object
    }

    struct Version0Card {
        let id: Int64, kind: CardKind, question: String, answer: String, tags: [String], created: Double
    }

    static func readVersion0Cards(_ store: URL) throws -> [Version0Card] {
        do {
            let db = try Database(path: store.path, mode: .readOnly)
            defer { db.close() }
            guard try db.tableExists("cards") else {
                throw DeckError(path: store.path, reason: "not a version 0 store: table cards is missing", kind: .notADeck)
            }
            return try db.rows("SELECT id, kind, question, answer, tags, created FROM cards ORDER BY id").map { row in
                guard row.count == 6, case .integer(let id) = row[0], case .text(let kindText) = row[1],
                      let kind = CardKind(rawValue: kindText) else {
                    throw DeckError(path: store.path, reason: "version 0 card row \(row.first?.description ?? "?") is malformed", kind: .corrupt)
                }
                let text: (SQLValue) -> String = { if case .text(let t) = $0 { t } else { "" } }
                let created: Double = switch row[5] {
                case .integer(let v): Double(v)
                case .real(let v): v
                default: 0
                }
                return Version0Card(id: id, kind: kind, question: text(row[2]), answer: text(row[3]),
                                    tags: text(row[4]).split(separator: " ").map(String.init), created: created)
            }
        } catch let error as DeckError {
            throw error
        } catch let error as DatabaseError {
            throw DeckError(path: store.path, reason: "store can't be read: \(error.message)", kind: .corrupt)
        }
    }

    static func insertVersion0(_ cards: [Version0Card], title: String, into db: Database) throws {
        let entity: [CardKind: String] = [.basic: BasicCard.entityName, .reversible: ReversibleCard.entityName, .cloze: ClozeCard.entityName]
        let insertCard = try db.prepare("""
            INSERT INTO "Card" ("pk", "entity", "kind", "front", "back", "created", "modified", "interval", "ease", "repetitions", "lapses", "text")
            VALUES (?, ?, ?, ?, ?, ?, ?, 0, 2.5, 0, 0, ?)
            """)
        let insertTag = try db.prepare("INSERT INTO \"Tag\" (\"pk\", \"name\") VALUES (?, ?)")
        let link = try db.prepare("INSERT OR IGNORE INTO \"Card_tags\" (\"source\", \"target\") VALUES (?, ?)")
        var tagKeys: [String: Int64] = [:]
        for card in cards {
            try insertCard.execute([.integer(card.id), .text(entity[card.kind] ?? BasicCard.entityName), .text(card.kind.rawValue),
                                    .text(card.question), .text(card.answer), .real(card.created), .real(card.created),
                                    card.kind == .cloze ? .text(card.question) : .null])
            for name in card.tags {
                let key: Int64
                if let existing = tagKeys[name] { key = existing } else {
                    key = Int64(tagKeys.count + 1)
                    tagKeys[name] = key
                    try insertTag.execute([.integer(key), .text(name)])
                }
                try link.execute([.integer(card.id), .integer(key)])
            }
        }
        try db.execute("DELETE FROM \"DeckInfo\"")
        try db.execute("INSERT INTO \"DeckInfo\" (\"pk\", \"title\", \"description\") VALUES (1, ?, '')", [.text(title)])
    }

    /// Copies the package to `<name>.backup-v<version>` beside it (`-2`, `-3`… when that is
    /// taken), without its lock file.
    ///
    /// The copy is made in a private folder beside the package (`.<name>.backup-v<n>.staging-…`,
    /// removed when done and on SIGINT, SIGTERM and SIGHUP; a killed run's is swept by the next
    /// `deck migrate`) and published without replacing anything (``Publisher``): a name where
    /// anything is, a dangling symbolic link or a file another process just made included, is
    /// passed over for the next number. Nothing this did not create is ever deleted.
    static func makeBackup(of url: URL, version: Int) throws -> URL {
        let parent = url.deletingLastPathComponent()
        let name = url.lastPathComponent + ".backup-v\(version)"
        let folder: StagingDirectory
        do {
            folder = try StagingDirectory(in: parent.path, for: name)
        } catch {
            throw AtomicFile.deckError(error, parent.appendingPathComponent(name))
        }
        defer { folder.remove() }
        let copy = folder.url.appendingPathComponent(name, isDirectory: true)
        do {
            try FileManager.default.copyItem(at: url, to: copy)
            // The copy's lock file (our own copy, in our private folder).
            let lock = copy.appendingPathComponent(DeckLock.fileName)
            if try UntrustedFile.type(atPath: lock.path) != nil { try FileManager.default.removeItem(at: lock) }
        } catch {
            throw DeckError(path: parent.appendingPathComponent(name).path,
                            reason: "can't write the backup copy: \(error.localizedDescription)", kind: .io)
        }
        for number in 1...10_000 {
            let candidate = parent.appendingPathComponent(number == 1 ? name : "\(name)-\(number)")
            do throws(FileSafetyError) {
                try Publisher.publishDirectory(copy.path, at: candidate.path)
                return candidate
            } catch where error.kind == .exists {
                continue
            } catch {
                throw AtomicFile.deckError(error, candidate)
            }
        }
        throw DeckError(path: parent.appendingPathComponent(name).path, reason: "can't find a free name for the backup copy", kind: .alreadyExists)
    }

    static func syncFile(_ url: URL) throws {
        let fd = Glibc.open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DeckError(path: url.path, reason: "can't open: \(AtomicFile.errnoText())", kind: .io) }
        defer { Glibc.close(fd) }
        guard fsync(fd) == 0 else { throw DeckError(path: url.path, reason: "can't sync: \(AtomicFile.errnoText())", kind: .io) }
    }
}
