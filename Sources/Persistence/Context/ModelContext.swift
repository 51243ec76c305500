import Foundation
import SQLite

/// A workspace of models: it tracks inserts, changes and deletes and writes them in one
/// transaction on ``save()``, as SwiftData's `ModelContext` does.
///
/// A context keeps one object per stored row (an identity map): fetching the same row twice
/// gives the same instance. Contexts are not `Sendable`; create one per task from the
/// container and pass ``PersistentIdentifier``s between them.
///
/// ```swift
/// let context = ModelContext(container)
/// context.insert(Card(front: "chat", back: "cat"))
/// try context.save()
/// ```
public final class ModelContext {
    /// The container whose stores this context reads and writes.
    public let container: ModelContainer
    /// Whether pending changes are saved automatically (on for the main context), shortly
    /// after a burst of changes ends; see ModelContext+Autosave.swift.
    public var autosaveEnabled = false {
        didSet { if autosaveEnabled != oldValue { autosaveSettingChanged() } }
    }

    var schema: Schema { container.schema }
    @exclusivity(unchecked) var insertionOrder: [any PersistentModel] = []
    @exclusivity(unchecked) var deletedModels: [ObjectIdentifier: any PersistentModel] = [:]
    /// Registered models by table (store index, table name) and primary key.
    @exclusivity(unchecked) var registry: [TableKey: IdentityTable] = [:]
    @exclusivity(unchecked) private var nextTemporaryKey: Int64 = 0
    @exclusivity(unchecked) private var lastEntityType: ObjectIdentifier?
    @exclusivity(unchecked) private var lastEntity: Schema.Entity?

    /// A table of the context's stores: its root entity (one table per root entity).
    typealias TableKey = ObjectIdentifier

    /// Creates a context on `container`.
    public init(_ container: ModelContainer) {
        self.container = container
    }

    func entity(of model: any PersistentModel) -> Schema.Entity? {
        // Hot loops see one type again and again: a one-entry cache skips the hash lookup.
        let type = ObjectIdentifier(Swift.type(of: model))
        if type == lastEntityType, let lastEntity { return lastEntity }
        let entity = schema.entity(forType: Swift.type(of: model))
        lastEntityType = type
        lastEntity = entity
        return entity
    }

    func requireEntity(of model: any PersistentModel) throws -> Schema.Entity {
        guard let entity = entity(of: model) else { throw PersistenceError.unknownEntity(type(of: model).entityName) }
        return entity
    }

    func tableKey(_ entity: Schema.Entity) -> TableKey {
        ObjectIdentifier(entity.rootEntity)
    }

    /// The identity map of an entity's table, created on first use.
    func identityTable(_ entity: Schema.Entity) -> IdentityTable {
        let key = tableKey(entity)
        if let table = registry[key] { return table }
        let table = IdentityTable()
        registry[key] = table
        return table
    }

    // MARK: Inserting and deleting

    /// Registers a new model; it is written at the next save.
    ///
    /// Models reachable through its relationships are inserted too. Inserting a model that
    /// is already registered here does nothing.
    public func insert<T: PersistentModel>(_ model: T) {
        insertModel(model)
    }

    func insertModel(_ model: any PersistentModel) {
        if undoState.isEnabled { recordUndo(.membership(model)) }
        autosaveState.generation &+= 1
        let backing = model.persistentBackingData
        if backing.state != .detached, backing.context === self {
            switch backing.state {
            case .registered, .inserted, .detached: return
            case .deleted:
                // Undoing a pending delete.
                deletedModels[ObjectIdentifier(model)] = nil
                backing.state = backing.snapshot == nil ? .inserted : .registered
                return
            }
        }
        guard let entity = entity(of: model) else { return }
        nextTemporaryKey -= 1
        backing.state = .inserted
        backing.context = self
        backing.primaryKey = nextTemporaryKey
        backing.storeIdentifier = container.stores[entity.storeIndex].identifier
        insertionOrder.append(model)
        // Insert related models that are not registered anywhere yet.
        guard !backing.relationships.isEmpty else { return }
        for content in backing.relationships.values {
            switch content {
            case .toOne(let target?):
                if let target = target as? any PersistentModel, target.persistentBackingData.context == nil { insertModel(target) }
            case .toMany(let current, _):
                for case let target as any PersistentModel in current where target.persistentBackingData.context == nil { insertModel(target) }
            default: break
            }
        }
    }

    /// Marks a model for deletion at the next save, applying delete rules: `.cascade`
    /// deletes related models, `.nullify` removes this model from their inverse.
    public func delete<T: PersistentModel>(_ model: T) {
        deleteModel(model)
    }

    func deleteModel(_ model: any PersistentModel) {
        let id = ObjectIdentifier(model)
        guard model.persistentBackingData.context === self else { return }
        if undoState.isEnabled { recordUndo(.membership(model)) }
        autosaveState.generation &+= 1
        switch model.persistentBackingData.state {
        case .inserted:
            insertionOrder.removeAll { $0 === model }
            model.persistentBackingData.state = .detached
            model.persistentBackingData.context = nil
        case .registered:
            model.persistentBackingData.state = .deleted
            deletedModels[id] = model
        default: return
        }
        guard let entity = entity(of: model) else { return }
        for relationship in entity.relationships {
            switch relationship.deleteRule {
            case .cascade:
                for target in relatedModelsOrRecordError(of: model, relationship, entity: entity) { deleteModel(target) }
            case .nullify:
                guard let inverse = schema.inverse(of: relationship, in: entity) else { continue }
                for target in relatedModelsOrRecordError(of: model, relationship, entity: entity) {
                    removeInverse(model, from: target, inverse: inverse)
                }
            case .deny, .noAction:
                continue
            }
        }
    }

    /// The related models for a non-throwing caller (a delete rule): a failed read is kept as
    /// ``deferredError`` for the next save to throw, never taken as "no related models".
    func relatedModelsOrRecordError(of model: any PersistentModel, _ relationship: Schema.Relationship, entity: Schema.Entity) -> [any PersistentModel] {
        do { return try relatedModels(of: model, relationship, entity: entity) }
        catch { recordDeferredError(error); return [] }
    }

    /// Keeps the first error of a call that can't throw (``delete(_:)``'s delete rules, a
    /// relationship loaded on access); ``save()`` throws it, writing nothing, until
    /// ``rollback()``.
    func recordDeferredError(_ error: any Error) {
        if deferredError == nil { deferredError = PersistenceError.wrap(error) }
    }

    /// Deletes every model of a type matching a predicate, in SQL, without loading them.
    ///
    /// Database delete actions apply to related rows (cascade, nullify); registered models
    /// that were deleted are marked deleted. The change is written at once in its own
    /// transaction, together with no other pending change.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        guard let entity = schema.entity(for: T.self) else { throw PersistenceError.unknownEntity(T.entityName) }
        let store = container.store(for: entity)
        guard store.configuration.allowsSave else { throw PersistenceError.readOnlyStore(path: store.path) }
        var translator = SQLTranslator(schema: schema)
        var conditions: [String] = []
        if let predicate { conditions.append(try translator.translate(predicate, entity: entity, alias: "t0")) }
        if entity.usesDiscriminator { conditions.append(discriminatorCondition(entity, includeSubclasses: includeSubclasses, alias: "t0")) }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let table = quoteIdentifier(entity.tableName)
        var denied: String?
        let deletedKeys: [Int64] = try store.withDatabase { db in
            do {
                return try db.transaction(.immediate) {
                    let keys = try db.prepare("SELECT t0.\"pk\" FROM \(table) t0\(whereClause)").fetchAll(translator.arguments).compactMap { row -> Int64? in
                        if case .integer(let key) = row.first { key } else { nil }
                    }
                    denied = try denyViolation(entity: entity, keys: keys, db: db)
                    if denied != nil { return [] }
                    try db.execute("DELETE FROM \(table) WHERE \"pk\" IN (SELECT t0.\"pk\" FROM \(table) t0\(whereClause))", translator.arguments)
                    try recordHistory(db: db, inserted: [], updated: [], deleted: keys.map { (entity.name, $0) })
                    return keys
                }
            } catch { throw PersistenceError.wrap(error) }
        }
        if let denied { throw PersistenceError.deleteDenied(entity: entity.name, relationship: denied) }
        // Forget registered models whose rows are gone, including cascaded ones.
        let key = tableKey(entity)
        for pk in deletedKeys {
            if let model = registry[key]?.removeValue(forKey: pk) {
                model.persistentBackingData.state = .deleted
                model.persistentBackingData.context = nil
            }
        }
        try forgetRowsDeletedBySQL()
        postDidSave(inserted: [], updated: [], deleted: deletedKeys.map {
            PersistentIdentifier(storeIdentifier: store.identifier, entityName: entity.name, primaryKey: $0)
        })
    }

    /// Unregisters registered models whose rows no longer exist (after SQL-level cascades).
    /// - Throws: ``PersistenceError/database(_:)`` when the check can't read the store (the
    ///   registered models are then left as they are, not taken as deleted).
    func forgetRowsDeletedBySQL() throws {
        for (key, models) in registry where !models.isEmpty {
            guard let root = models.models.first.flatMap({ entity(of: $0)?.rootEntity }) else { continue }
            let store = container.store(for: root)
            let existing: Set<Int64> = try store.withDatabase { db in
                let keys = models.primaryKeys
                var found: Set<Int64> = []
                for chunk in stride(from: 0, to: keys.count, by: 500) {
                    let part = keys[chunk..<min(chunk + 500, keys.count)]
                    let sql = "SELECT \"pk\" FROM \(quoteIdentifier(root.tableName)) WHERE \"pk\" IN (" + part.map { _ in "?" }.joined(separator: ",") + ")"
                    let rows: [[SQLValue]]
                    do { rows = try db.prepare(sql).fetchAll(part.map { .integer($0) }) } catch { throw PersistenceError.wrap(error) }
                    for case .integer(let pk)? in rows.map(\.first) { found.insert(pk) }
                }
                return found
            }
            for (pk, model) in Array(models) where !existing.contains(pk) {
                registry[key]?[pk] = nil
                model.persistentBackingData.state = .deleted
                model.persistentBackingData.context = nil
            }
        }
    }

    // MARK: State

    /// Whether there are unsaved inserts, deletes or changes.
    public var hasChanges: Bool {
        if !insertionOrder.isEmpty || !deletedModels.isEmpty { return true }
        return registry.values.contains { $0.models.contains { isChanged($0) } }
    }

    /// Models inserted since the last save.
    public var insertedModelsArray: [any PersistentModel] { insertionOrder }
    /// Registered models with unsaved changes.
    public var changedModelsArray: [any PersistentModel] {
        registry.values.flatMap { $0.models.filter { isChanged($0) } }
    }
    /// Models deleted since the last save.
    public var deletedModelsArray: [any PersistentModel] { Array(deletedModels.values) }

    func modelHasChanges(_ model: any PersistentModel) -> Bool {
        switch model.persistentBackingData.state {
        case .inserted, .deleted: true
        case .registered: isChanged(model)
        case .detached: false
        }
    }

    /// Whether a registered model differs from its stored values (attributes, to-one keys
    /// or to-many links).
    func isChanged(_ model: any PersistentModel) -> Bool {
        guard model.persistentBackingData.state == .registered, let snapshot = model.persistentBackingData.snapshot,
              let entity = entity(of: model) else { return false }
        if !hasStoredValues(snapshot, model: model, entity: entity) { return true }
        for content in model.persistentBackingData.relationships.values {
            if case .toMany(let current, let original?) = content, !sameMembers(current, original) { return true }
        }
        return false
    }

    /// The values a model would store now: attributes, then to-one keys.
    func storedValues(of model: any PersistentModel, entity: Schema.Entity) -> StoredValues {
        storedValues(of: model, entity: entity) { _, _ in }
    }

    /// The same, handing each value to `visit` with its position as it is read (a save binds
    /// it to the insert statement there and then).
    @inline(__always)
    func storedValues(of model: any PersistentModel, entity: Schema.Entity, visit: (SQLValue, Int) -> Void) -> StoredValues {
        let readers = entity.readers, toOne = entity.toOneColumns
        return StoredValues.make(count: readers.count + toOne.count) { buffer in
            var position = 0
            for read in readers {
                let value = read(model)
                visit(value, position)
                (buffer + position).initialize(to: value)
                position += 1
            }
            if !toOne.isEmpty {
                let backing = model.persistentBackingData
                for relationship in toOne {
                    let value: SQLValue
                    if case .toOne(let target)? = backing.relationships[relationship.keyPath] {
                        value = keyValue(of: target)
                    } else {
                        value = backing.snapshot?[position] ?? .null
                    }
                    visit(value, position)
                    (buffer + position).initialize(to: value)
                    position += 1
                }
            }
        }
    }

    /// Whether a model's attributes and to-one keys are still those of `snapshot`, read one
    /// by one without building the values (a save asks this of every registered model).
    func hasStoredValues(_ snapshot: StoredValues, model: any PersistentModel, entity: Schema.Entity) -> Bool {
        let readers = entity.readers, toOne = entity.toOneColumns
        guard snapshot.count == readers.count + toOne.count else { return false }
        // A model with attributes still to read is unchanged: its accessors read them before
        // any change (and the context's own writes put stored values back).
        if !model.persistentBackingData.unfetchedAttributes.isEmpty { return true }
        // Nothing wrote the attributes of a `@Model` class since they were stored: only its
        // to-one keys can have moved (an inverse set from the other side).
        if !entity.recordsAttributeWrites || model.persistentBackingData._$attributesWritten {
            for (position, read) in readers.enumerated() where read(model) != snapshot[position] { return false }
        }
        // Nothing changed the relationships since they were the stored state.
        guard !toOne.isEmpty, model.persistentBackingData.relationshipsChanged else { return true }
        let relationships = model.persistentBackingData.relationships
        for (index, relationship) in toOne.enumerated() {
            if case .toOne(let target)? = relationships[relationship.keyPath],
               keyValue(of: target) != snapshot[readers.count + index] { return false }
        }
        return true
    }

    /// The foreign-key value for a destination model (a marker for unsaved ones).
    func keyValue(of target: AnyObject?) -> SQLValue {
        guard let model = target as? any PersistentModel else { return .null }
        switch model.persistentBackingData.state {
        case .registered: return .integer(model.persistentBackingData.primaryKey)
        case .inserted where model.persistentBackingData.primaryKey > 0: return .integer(model.persistentBackingData.primaryKey)
        // A deleted destination has (or soon has) no row: the reference becomes NULL, as the
        // foreign key's ON DELETE SET NULL makes it in the store.
        case .deleted: return .null
        default: return .text("unsaved:\(ObjectIdentifier(model).hashValue)")
        }
    }

    // MARK: Rollback and transactions

    /// Discards every unsaved change: inserted models are dropped, deleted ones restored,
    /// changed ones reverted to their stored values.
    public func rollback() {
        for model in insertionOrder {
            model.persistentBackingData.state = .detached
            model.persistentBackingData.context = nil
        }
        insertionOrder.removeAll()
        for model in deletedModels.values { model.persistentBackingData.state = .registered }
        deletedModels.removeAll()
        for models in registry.values {
            for model in models.models { revert(model) }
        }
        undoState.reset()
        deferredError = nil
    }

    func revert(_ model: any PersistentModel) {
        guard let snapshot = model.persistentBackingData.snapshot, let entity = entity(of: model) else { return }
        // A model with attributes still to read has no changes to revert.
        guard model.persistentBackingData.unfetchedAttributes.isEmpty else { return }
        for (index, attribute) in entity.attributes.enumerated() where attribute.read(model) != snapshot[index] {
            _ = attribute.write(model, snapshot[index])
        }
        model.persistentBackingData._$attributesWritten = false
        model.persistentBackingData.relationships.removeAll()
    }

    /// Runs `block`, then saves; if `block` or the save throws, every change is rolled back.
    public func transaction(block: () throws -> Void) throws {
        do {
            try block()
            try save()
        } catch {
            rollback()
            throw error
        }
    }

    /// Inserts models that became reachable through relationships of registered models.
    ///
    /// With undo on, this also ends the current automatic undo group (see ``isUndoEnabled``).
    public func processPendingChanges() {
        defer { if undoState.isEnabled { endAutomaticUndoGroup() } }
        for models in Array(registry.values) {
            // A model whose relationships are as stored points only at stored models.
            for model in models.models where model.persistentBackingData.relationshipsChanged {
                for content in model.persistentBackingData.relationships.values {
                    switch content {
                    case .toOne(let target?):
                        if let target = target as? any PersistentModel, target.persistentBackingData.context == nil { insertModel(target) }
                    case .toMany(let current, _):
                        for case let target as any PersistentModel in current where target.persistentBackingData.context == nil { insertModel(target) }
                    default: break
                    }
                }
            }
        }
    }

    /// Forgets every registered model after the store changed behind the context's back.
    func resetAfterExternalChange() {
        for models in registry.values {
            for model in models.models {
                model.persistentBackingData.state = .detached
                model.persistentBackingData.context = nil
            }
        }
        registry.removeAll()
        insertionOrder.removeAll()
        deletedModels.removeAll()
        undoState.reset()
    }

    func clearPending() {
        insertionOrder.removeAll()
        deletedModels.removeAll()
    }

    // MARK: Undo and autosave state (see ModelContext+Undo.swift, ModelContext+Autosave.swift)
    @exclusivity(unchecked) var undoState = UndoState()
    @exclusivity(unchecked) var autosaveState = AutosaveState()
    /// The author recorded with this context's saves in the change history.
    public var author: String?
    /// The first failure of a call that can't throw, thrown by the next ``save()``.
    var deferredError: (any Error)?
}

/// Whether two model lists hold the same objects, ignoring order.
func sameMembers(_ a: [AnyObject], _ b: [AnyObject]) -> Bool {
    guard a.count == b.count else { return false }
    // The usual case, a list as it was loaded or saved, needs no sets.
    if zip(a, b).allSatisfy({ $0 === $1 }) { return true }
    return Set(a.map(ObjectIdentifier.init)) == Set(b.map(ObjectIdentifier.init))
}

