import Foundation
import Digest
import SQLite

/// The values of `.externalStorage` attributes of one store, kept outside the database.
///
/// A value is named by its SHA-256 (content addressing): the column holds the text
/// `sha256:<hex>` and the bytes live in a file of that name in a folder beside the store
/// file (`<store file>.external/`), or in memory for an in-memory store. Equal values are
/// stored once. New files are written before the save's transaction commits (a failure
/// rolls the save back); after a commit, the files that the save's updates and deletes
/// stopped referencing are removed once no row references them, and
/// ``ModelContainer/removeUnreferencedExternalStorage()`` (also run by
/// ``ModelContainer/close()``) sweeps whatever else is left over.
final class ExternalStorage: @unchecked Sendable {
    static let prefix = "sha256:"

    /// The folder of files; nil for an in-memory store.
    let folder: URL?
    /// Every column holding references, as (table, column).
    let columns: [(table: String, column: String)]
    private let lock = NSLock()
    private var memory: [String: Data] = [:]
    /// Values referenced since the last flush, not yet written.
    private var pending: [String: Data] = [:]
    /// Digests of recently seen values (a value is read at every change check).
    private var digests: [Data: String] = [:]
    /// Digests known to be stored already (read from or written to the folder).
    private var stored: Set<String> = []
    /// Files that may have lost their last reference.
    private var candidates: Set<String> = []
    /// The error of the last value that could not be read.
    private var missing: PersistenceError?

    init(store: Store, entities: [Schema.Entity]) {
        if store.configuration.isStoredInMemoryOnly || store.configuration.url == nil {
            folder = nil
        } else if let url = store.configuration.url {
            folder = url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".external", isDirectory: true)
        } else {
            folder = nil
        }
        var columns: [(String, String)] = []
        for entity in entities {
            for index in entity.externalAttributeIndexes where !columns.contains(where: { $0 == (entity.tableName, entity.attributes[index].name) }) {
                columns.append((entity.tableName, entity.attributes[index].name))
            }
        }
        self.columns = columns
    }

    private func file(_ digest: String) -> URL? { folder?.appendingPathComponent(digest) }

    /// The column value for `data`: its reference; the bytes are kept for the next flush.
    func reference(for data: Data) -> String {
        lock.lock()
        defer { lock.unlock() }
        let digest: String
        if let known = digests[data] {
            digest = known
        } else {
            digest = SHA256.hex(data)
            if digests.count >= 256 { digests.removeAll(keepingCapacity: true) }
            digests[data] = digest
        }
        if memory[digest] == nil && pending[digest] == nil && !stored.contains(digest) { pending[digest] = data }
        return Self.prefix + digest
    }

    /// The bytes a reference names, or nil (with ``takeMissingError()`` telling why).
    func data(for reference: String) -> Data? {
        let digest = String(reference.dropFirst(Self.prefix.count))
        lock.lock()
        defer { lock.unlock() }
        if let data = memory[digest] ?? pending[digest] { return data }
        guard let url = file(digest) else {
            missing = .externalStorageMissing(path: "memory:" + digest)
            return nil
        }
        do {
            let data = try Data(contentsOf: url)
            stored.insert(digest)
            return data
        } catch {
            missing = .externalStorageMissing(path: url.path)
            return nil
        }
    }

    /// The error recorded by the last failed ``data(for:)``, cleared.
    func takeMissingError() -> PersistenceError? {
        lock.lock()
        defer { lock.unlock() }
        defer { missing = nil }
        return missing
    }

    /// Writes the values referenced since the last flush (before a commit).
    func flush() throws {
        lock.lock()
        defer { lock.unlock() }
        guard !pending.isEmpty else { return }
        if let folder {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (digest, data) in pending {
                let url = folder.appendingPathComponent(digest)
                if !FileManager.default.fileExists(atPath: url.path) { try data.write(to: url, options: .atomic) }
            }
            stored.formUnion(pending.keys)
        } else {
            for (digest, data) in pending { memory[digest] = data }
        }
        pending.removeAll()
    }

    /// Notes references that a save replaced or deleted.
    func noteReplaced(_ references: [String]) {
        lock.lock()
        defer { lock.unlock() }
        for reference in references where reference.hasPrefix(Self.prefix) { candidates.insert(String(reference.dropFirst(Self.prefix.count))) }
    }

    /// Removes the noted values that no row references any more (after a commit).
    func removeUnreferencedCandidates(_ db: Database) throws {
        lock.lock()
        let noted = candidates
        candidates.removeAll()
        lock.unlock()
        for digest in noted where try !isReferenced(digest, db) { remove(digest) }
    }

    /// Removes every stored value that no row references.
    func removeAllUnreferenced(_ db: Database) throws {
        var referenced: Set<String> = []
        for (table, column) in columns where try db.tableExists(table) {
            for case .text(let reference)? in try db.rows("SELECT DISTINCT \(quoteIdentifier(column)) FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(column)) LIKE 'sha256:%'").map(\.first) {
                referenced.insert(String(reference.dropFirst(Self.prefix.count)))
            }
        }
        let stored: [String]
        if let folder {
            stored = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        } else {
            lock.lock()
            stored = Array(memory.keys)
            lock.unlock()
        }
        for digest in stored where !referenced.contains(digest) && digest.count == 64 { remove(digest) }
    }

    private func isReferenced(_ digest: String, _ db: Database) throws -> Bool {
        for (table, column) in columns where try db.tableExists(table) {
            if try db.scalar("SELECT 1 FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(column)) = ? LIMIT 1", [.text(Self.prefix + digest)], as: Int.self) != nil {
                return true
            }
        }
        return false
    }

    private func remove(_ digest: String) {
        lock.lock()
        defer { lock.unlock() }
        memory[digest] = nil
        stored.remove(digest)
        if let url = file(digest) { try? FileManager.default.removeItem(at: url) }
    }

    /// Stored values (for tests and diagnostics): digests on disk or in memory.
    func storedDigests() -> Set<String> {
        if let folder { return Set(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.count == 64 }) }
        lock.lock()
        defer { lock.unlock() }
        return Set(memory.keys)
    }
}

extension Schema.Attribute {
    /// The same attribute, stored as a reference into its entity's external storage.
    func externalized(owner: Schema.Entity) -> Schema.Attribute {
        let base = self
        let read: (AnyObject) -> SQLValue = { [weak owner] object in
            let value = base.read(object)
            guard case .blob(let data) = value, let storage = owner?.externalStorage else { return value }
            return .text(storage.reference(for: data))
        }
        let write: (AnyObject, SQLValue) -> Bool = { [weak owner] object, value in
            guard case .text(let reference) = value, reference.hasPrefix(ExternalStorage.prefix),
                  let storage = owner?.externalStorage else { return base.write(object, value) }
            guard let data = storage.data(for: reference) else { return false }
            return base.write(object, .blob(data))
        }
        let materialize: (AnyObject, SQLValue) -> Bool = { [weak owner] object, value in
            guard case .text(let reference) = value, reference.hasPrefix(ExternalStorage.prefix),
                  let storage = owner?.externalStorage else { return base.materialize(object, value) }
            guard let data = storage.data(for: reference) else { return false }
            return base.materialize(object, .blob(data))
        }
        return Schema.Attribute(name: name, keyPath: keyPathSource, options: options, originalName: originalName, isOptional: isOptional,
                                sqlType: sqlType, valueTypeName: valueTypeName, read: read, write: write, materialize: materialize,
                                bind: { object, statement, index in statement.bind(read(object), at: index) },
                                resolve: base.resolve, faultsOnAccess: base.faultsOnAccess)
    }
}

extension ModelContext {
    /// Before a save's transaction commits in one store: writes new external values, notes
    /// the ones updates and deletes replaced, records the history.
    func willCommit(storeIndex: Int, db: Database,
                    inserted: [(any PersistentModel, Schema.Entity)], updated: [(any PersistentModel, Schema.Entity)],
                    deleted: [(any PersistentModel, Schema.Entity)], linked: [(any PersistentModel, Schema.Entity)]) throws {
        if let storage = container.stores[storeIndex].externalStorage {
            try storage.flush()
            for (model, entity) in updated + deleted where entity.storeIndex == storeIndex && !entity.externalAttributeIndexes.isEmpty {
                guard let snapshot = model.persistentBackingData.snapshot else { continue }
                storage.noteReplaced(entity.externalAttributeIndexes.compactMap { index in
                    if case .text(let reference) = snapshot[index] { reference } else { nil }
                })
            }
        }
        try recordHistory(storeIndex: storeIndex, db: db, inserted: inserted, updated: updated, deleted: deleted, linked: linked)
    }

    /// The clear error for a value that failed to convert, when it is a missing external file.
    func externalStorageError(_ entity: Schema.Entity) -> PersistenceError? {
        entity.externalStorage?.takeMissingError()
    }
}

extension ModelContainer {
    /// Removes the externally stored values that no row references any more, in every
    /// store (run by ``close()``; values of bulk SQL deletes are left until then).
    /// - Throws: ``PersistenceError/database(_:)`` from SQLite.
    public func removeUnreferencedExternalStorage() throws {
        for store in stores {
            guard let storage = store.externalStorage, store.configuration.allowsSave else { continue }
            try store.withDatabase { db in
                do { try storage.removeAllUnreferenced(db) } catch { throw PersistenceError.wrap(error) }
            }
        }
    }

    /// After a commit: removes the values the saves stopped referencing.
    func removeReplacedExternalStorage() {
        for store in stores {
            guard let storage = store.externalStorage, store.configuration.allowsSave else { continue }
            store.withDatabase { db in try? storage.removeUnreferencedCandidates(db) }
        }
    }
}
