import Foundation
import SQLite

extension ModelContext {
    /// Posted before a save writes anything; `object` is the context.
    public static let willSave = Notification.Name("Persistence.ModelContext.willSave")
    /// Posted after a save committed; `userInfo` holds identifiers under ``NotificationKey``.
    public static let didSave = Notification.Name("Persistence.ModelContext.didSave")

    /// The `userInfo` keys of ``didSave``.
    public enum NotificationKey: String {
        case insertedIdentifiers, updatedIdentifiers, deletedIdentifiers
    }

    /// Writes every pending insert, change and delete in one transaction per store.
    ///
    /// All or nothing: when any statement fails, the transaction rolls back and the context
    /// keeps its pending changes, so the caller can fix them and save again.
    /// - Throws: ``PersistenceError/readOnlyStore(path:)`` for a store opened without
    ///   `allowsSave`; ``PersistenceError/deleteDenied(entity:relationship:)``;
    ///   ``PersistenceError/database(_:)`` with SQLite's error (constraint, busy, full, …).
    public func save() throws {
        if let deferredError { throw deferredError }
        processPendingChanges()
        let inserts = insertionOrder
        let deletes = Array(deletedModels.values)
        if !deletes.isEmpty { nullifyReferencesWithoutInverse(to: deletes) }
        var updates: [(any PersistentModel, Schema.Entity)] = []
        var linkOwners: [(any PersistentModel, Schema.Entity)] = []
        // Registered models whose relationships this save compares: once it has stored them
        // (or found nothing to store), they are the stored state.
        var relationshipsCompared: [BackingData] = []
        for models in registry.values {
            for model in models.models where model.persistentBackingData.state == .registered {
                let backing = model.persistentBackingData
                guard let entity = entity(of: model), let snapshot = backing.snapshot else { continue }
                if !hasStoredValues(snapshot, model: model, entity: entity) { updates.append((model, entity)) }
                if hasLinkChanges(model) { linkOwners.append((model, entity)) }
                // (A model with attributes still to read skipped its to-one comparison.)
                if backing.relationshipsChanged && backing.unfetchedAttributes.isEmpty { relationshipsCompared.append(backing) }
            }
        }
        // Cleared before the save's hooks run, so what they change is seen by the next save;
        // set again when this one fails.
        for backing in relationshipsCompared { backing.relationshipsChanged = false }
        var committed = false
        defer { if !committed { for backing in relationshipsCompared { backing.relationshipsChanged = true } } }
        guard !inserts.isEmpty || !deletes.isEmpty || !updates.isEmpty || !linkOwners.isEmpty else {
            committed = true
            return
        }
        NotificationCenter.default.post(name: Self.willSave, object: self)
        for model in inserts where entity(of: model)?.hasWillSaveHook == true { (model as? any WillSaveHook)?.willSave() }
        for (model, entity) in updates where entity.hasWillSaveHook { (model as? any WillSaveHook)?.willSave() }

        // Group the work by store.
        var storesTouched: Set<Int> = []
        var insertEntities: [(any PersistentModel, Schema.Entity)] = []
        insertEntities.reserveCapacity(inserts.count)
        var lastEntity: Schema.Entity?
        for model in inserts {
            let entity = try requireEntity(of: model)
            insertEntities.append((model, entity))
            // Inserts come in runs of one entity: the set is touched once per run.
            if entity !== lastEntity {
                storesTouched.insert(entity.storeIndex)
                lastEntity = entity
            }
        }
        let deleteEntities = try deletes.map { ($0, try requireEntity(of: $0)) }
        for (_, entity) in updates + deleteEntities + linkOwners { storesTouched.insert(entity.storeIndex) }
        for index in storesTouched where !container.stores[index].configuration.allowsSave {
            throw PersistenceError.readOnlyStore(path: container.stores[index].path)
        }
        try checkRelationshipCounts(inserted: insertEntities, changed: updates + linkOwners, deleted: deleteEntities)
        try checkDestinations(inserted: insertEntities, changed: updates)

        // Stored values as written, by position in insertEntities and updates.
        var insertedValues: [StoredValues?] = Array(repeating: nil, count: insertEntities.count)
        var updatedValues: [StoredValues?] = Array(repeating: nil, count: updates.count)
        var assigned: [(any PersistentModel, Int64)] = []
        do {
            for index in storesTouched.sorted() {
                let store = container.stores[index]
                try store.withDatabase { db in
                    let widened = try widenCache(db, rows: insertEntities.count + updates.count)
                    defer { if let widened { try? db.execute("PRAGMA cache_size = \(widened)") } }
                    // With one store (the usual case) the lists are passed as they are: a
                    // filtered copy of 100,000 inserts cost two retains and releases a row.
                    let single = storesTouched.count == 1
                    try db.transaction(.immediate) {
                        try writeDeny(single ? deleteEntities : deleteEntities.filter { $0.1.storeIndex == index }, db: db)
                        try assignKeys(single ? insertEntities : insertEntities.filter { $0.1.storeIndex == index }, db: db, assigned: &assigned)
                        var inserter = InsertStatements(db: db)
                        for (position, (model, entity)) in insertEntities.enumerated() where entity.storeIndex == index {
                            insertedValues[position] = try writeInsert(model, entity: entity, statement: inserter.statement(for: entity), db: db)
                        }
                        for (position, (model, entity)) in updates.enumerated() where entity.storeIndex == index {
                            updatedValues[position] = try writeUpdate(model, entity: entity, db: db)
                        }
                        var links = LinkWrites()
                        for (model, entity) in insertEntities where entity.storeIndex == index && entity.hasToManyRelationships {
                            try writeLinks(model, entity: entity, db: db, &links)
                        }
                        for (model, entity) in linkOwners where entity.storeIndex == index {
                            try writeLinks(model, entity: entity, db: db, &links)
                        }
                        try checkStoredReferences(to: single ? deleteEntities : deleteEntities.filter { $0.1.storeIndex == index }, db: db)
                        for (model, entity) in deleteEntities where entity.storeIndex == index {
                            try db.cachedStatement("DELETE FROM \(quoteIdentifier(entity.tableName)) WHERE \"pk\" = ?")
                                .execute([.integer(model.persistentBackingData.primaryKey)])
                        }
                        try willCommit(storeIndex: index, db: db, inserted: insertEntities, updated: updates, deleted: deleteEntities, linked: linkOwners)
                    }
                }
            }
        } catch {
            // Nothing was committed for the failing store: give inserted models back their
            // temporary keys so the context is as before.
            for (model, temporary) in assigned where model.persistentBackingData.state == .inserted {
                model.persistentBackingData.primaryKey = temporary
            }
            throw PersistenceError.wrap(error)
        }

        // Committed: the context's view becomes the stored state.
        committed = true
        var insertedIDs: [PersistentIdentifier] = [], updatedIDs: [PersistentIdentifier] = [], deletedIDs: [PersistentIdentifier] = []
        if let first = insertEntities.first?.1, insertEntities.count > 64 {
            identityTable(first).reserveCapacity(insertEntities.count)
        }
        insertedIDs.reserveCapacity(insertEntities.count)
        var table: (entity: Schema.Entity, identities: IdentityTable)?
        if !undoState.restoredKeys.isEmpty {
            for (model, _) in insertEntities { undoState.restoredKeys[ObjectIdentifier(model)] = nil }
        }
        for (position, (model, entity)) in insertEntities.enumerated() {
            let backing = model.persistentBackingData
            backing.state = .registered
            backing.snapshot = insertedValues[position]
            backing._$attributesWritten = false
            if table?.entity !== entity { table = (entity, identityTable(entity)) }
            table?.identities[backing.primaryKey] = model
            if !backing.relationships.isEmpty { markLinksSaved(model) }
            insertedIDs.append(identifier(of: model, entity: entity))
        }
        for (position, (model, entity)) in updates.enumerated() {
            model.persistentBackingData.snapshot = updatedValues[position]
            model.persistentBackingData._$attributesWritten = false
            updatedIDs.append(identifier(of: model, entity: entity))
        }
        // Their links are the stored ones now (markLinksSaved assigned them).
        for (model, _) in linkOwners {
            markLinksSaved(model)
            model.persistentBackingData.relationshipsChanged = false
        }
        for (model, _) in insertEntities { model.persistentBackingData.relationshipsChanged = false }
        for (model, entity) in deleteEntities {
            deletedIDs.append(identifier(of: model, entity: entity))
            registry[tableKey(entity)]?[model.persistentBackingData.primaryKey] = nil
            model.persistentBackingData.context = nil
        }
        if undoState.isEnabled && undoState.groupingLevel == 0 {
            // What the save itself changed (a WillSaveHook stamping a date) is stored, not a
            // step of its own: the models' undo baselines become their stored values. (Inside
            // an explicit group it belongs to that group, which is still open.)
            for (model, _) in insertEntities { undoState.baselines[ObjectIdentifier(model)] = nil }
            for (model, _) in updates { undoState.baselines[ObjectIdentifier(model)] = nil }
        }
        clearPending()
        // Committed; a failure to read which rows the database's delete actions removed is
        // thrown after the notifications (the registered models are then left as they are).
        var refreshError: (any Error)?
        if !deleteEntities.isEmpty {
            do { try forgetRowsDeletedBySQL() } catch { refreshError = error }
        }
        // The changed entities' names, once per run of one entity (no concatenated copy of the lists).
        var entityNames: Set<String> = []
        for list in [insertEntities, updates, deleteEntities, linkOwners] {
            var lastNamed: Schema.Entity?
            for (_, entity) in list where entity !== lastNamed {
                entityNames.insert(entity.name)
                lastNamed = entity
            }
        }
        postDidSave(inserted: insertedIDs, updated: updatedIDs, deleted: deletedIDs, entities: entityNames)
        if let refreshError { throw refreshError }
    }

    /// A loaded to-one relationship that points at a deleted model becomes nil, as the
    /// store's `ON DELETE SET NULL` makes its column (SwiftData's nullify). This is what
    /// reaches references without a declared inverse, which no delete rule visits.
    private func nullifyReferencesWithoutInverse(to deletes: [any PersistentModel]) {
        var deletedEntities: [Schema.Entity] = []
        for model in deletes {
            if let entity = entity(of: model), !deletedEntities.contains(where: { $0 === entity }) { deletedEntities.append(entity) }
        }
        for (_, models) in registry where !models.isEmpty {
            guard let sample = models.models.first, let root = entity(of: sample)?.rootEntity else { continue }
            // Only tables with such a relationship to a deleted entity need the scan.
            let pointing = root.hierarchy.contains { entity in
                entity.relationships.contains { relationship in
                    !relationship.isToMany && schema.destination(of: relationship).map { destination in deletedEntities.contains { $0.isKind(of: destination) } } == true
                }
            }
            guard pointing else { continue }
            // A model deleted itself keeps its references: its row goes, and undo brings it back
            // with them (recording the nullify as a change would end the undone step's redo).
            for model in models.models where model.persistentBackingData.state != .deleted {
                for (keyPath, content) in model.persistentBackingData.relationships {
                    guard case .toOne(let target as any PersistentModel) = content, target.persistentBackingData.state == .deleted else { continue }
                    // A non-optional one keeps its destination, and checkDestinations refuses the save.
                    if entity(of: model)?.relationship(for: keyPath)?.isOptional == false { continue }
                    if undoState.isEnabled { recordUndo(.relationship(model, keyPath)) }
                    model.persistentBackingData.relationships[keyPath] = .toOne(nil)
                }
            }
        }
        for model in insertionOrder {
            for (keyPath, content) in model.persistentBackingData.relationships {
                if case .toOne(let target as any PersistentModel) = content, target.persistentBackingData.state == .deleted,
                   entity(of: model)?.relationship(for: keyPath)?.isOptional != false {
                    model.persistentBackingData.relationships[keyPath] = .toOne(nil)
                }
            }
        }
    }

    /// Rows written in one save above which its connection's page cache is widened.
    static let largeSaveRows = 200_000
    /// The page cache of a large save, in KiB (SQLite's default is 2,000 KiB).
    static let largeSaveCacheKiB = 65_536

    /// Gives a save of more than ``largeSaveRows`` rows a page cache of ``largeSaveCacheKiB``
    /// for its transaction and returns the setting to restore after it (nil when unchanged).
    ///
    /// With SQLite's default 2 MiB cache a transaction larger than the cache spills dirty
    /// pages to the journal and reads them back: saving 1,000,000 new models then cost twice
    /// the CPU of the same rows written with room for them. The cache grows only as pages
    /// are used and shrinks back when the setting is restored.
    func widenCache(_ db: Database, rows: Int) throws -> Int? {
        guard rows > Self.largeSaveRows, let current = try db.scalar("PRAGMA cache_size", as: Int.self) else { return nil }
        let wanted = -Self.largeSaveCacheKiB
        let currentKiB = current < 0 ? -current : current * 4
        guard currentKiB < Self.largeSaveCacheKiB else { return nil }
        try db.execute("PRAGMA cache_size = \(wanted)")
        return current
    }

    private func identifier(of model: any PersistentModel, entity: Schema.Entity) -> PersistentIdentifier {
        PersistentIdentifier(storeIdentifier: model.persistentBackingData.storeIdentifier, entityName: entity.name,
                             primaryKey: model.persistentBackingData.primaryKey)
    }

    /// Posts ``didSave`` and tells the container's observers which entities changed
    /// (`entities`: the names in the identifiers, when the caller knows them already).
    func postDidSave(inserted: [PersistentIdentifier], updated: [PersistentIdentifier], deleted: [PersistentIdentifier],
                     entities: Set<String>? = nil) {
        NotificationCenter.default.post(name: Self.didSave, object: self, userInfo: [
            NotificationKey.insertedIdentifiers.rawValue: inserted,
            NotificationKey.updatedIdentifiers.rawValue: updated,
            NotificationKey.deletedIdentifiers.rawValue: deleted,
        ])
        container.notifySaved(entities: entities ?? Set((inserted + updated + deleted).map(\.entityName)))
    }

    // MARK: Writing

    /// Gives inserted models their primary keys: one past the table's largest, counted up.
    /// A model that undo or redo brought back after its row was deleted gets its old key
    /// again when no row holds it (see `UndoState.restoredKeys`).
    private func assignKeys(_ models: [(any PersistentModel, Schema.Entity)], db: Database, assigned: inout [(any PersistentModel, Int64)]) throws {
        var next: [ObjectIdentifier: Int64] = [:]
        var restored: Set<ObjectIdentifier> = []
        if !undoState.restoredKeys.isEmpty {
            var claimed: [ObjectIdentifier: Set<Int64>] = [:]
            for (model, entity) in models {
                let id = ObjectIdentifier(model)
                guard let wanted = undoState.restoredKeys[id]?.key else { continue }
                let table = ObjectIdentifier(entity.rootEntity)
                let taken = try db.scalar("SELECT count(*) FROM \(quoteIdentifier(entity.tableName)) WHERE \"pk\" = ?",
                                          [.integer(wanted)], as: Int64.self) ?? 0
                guard taken == 0, claimed[table, default: []].insert(wanted).inserted else { continue }
                assigned.append((model, model.persistentBackingData.primaryKey))
                model.persistentBackingData.primaryKey = wanted
                restored.insert(id)
                // Keys counted up for new models start past the restored ones.
                let largest = try db.scalar("SELECT max(\"pk\") FROM \(quoteIdentifier(entity.tableName))", as: Int64.self) ?? 0
                let afterLargest = try next[table] ?? Schema.Entity.key(after: largest, in: entity)
                next[table] = max(afterLargest, try Schema.Entity.key(after: wanted, in: entity))
            }
        }
        var currentTable: ObjectIdentifier?
        var key: Int64? = 1
        assigned.reserveCapacity(assigned.count + models.count)
        for (model, entity) in models {
            if !restored.isEmpty, restored.contains(ObjectIdentifier(model)) { continue }
            let table = ObjectIdentifier(entity.rootEntity)
            if table != currentTable {
                if let currentTable { next[currentTable] = key }
                if let known = next[table] {
                    key = known
                } else {
                    key = try Schema.Entity.key(after: db.scalar("SELECT max(\"pk\") FROM \(quoteIdentifier(entity.tableName))", as: Int64.self) ?? 0,
                                                in: entity)
                }
                currentTable = table
            }
            // The previous model took the largest key there is: none is left for this one.
            guard let free = key else { throw Schema.Entity.keysExhausted(entity) }
            assigned.append((model, model.persistentBackingData.primaryKey))
            model.persistentBackingData.primaryKey = free
            key = free == .max ? nil : free + 1
        }
    }

    /// The insert statement of each entity during one save, looked up once per run of
    /// inserts of one entity rather than by SQL text for every row.
    private struct InsertStatements {
        let db: Database
        var last: (entity: Schema.Entity, statement: Statement)?

        init(db: Database) { self.db = db }

        mutating func statement(for entity: Schema.Entity) throws -> Statement {
            if let last, last.entity === entity {
                last.statement.reset()
                return last.statement
            }
            let statement = try db.cachedStatement(entity.uniqueConstraints.isEmpty ? entity.insertStatementSQL : entity.upsertWithoutReturningSQL)
            last = (entity, statement)
            return statement
        }
    }

    private func writeInsert(_ model: any PersistentModel, entity: Schema.Entity, statement: Statement, db: Database) throws -> StoredValues {
        let backing = model.persistentBackingData
        func bind(_ statement: Statement) -> StoredValues {
            statement.bind(int64: backing.primaryKey, at: 1)
            var first: Int32 = 2
            if entity.usesDiscriminator {
                statement.bind(text: entity.name, at: 2)
                first = 3
            }
            return storedValues(of: model, entity: entity) { value, position in
                statement.bind(value, at: first + Int32(position))
            }
        }
        let values = bind(statement)
        if entity.uniqueConstraints.isEmpty {
            try statement.execute()
        } else {
            // The upsert without RETURNING (see `upsertWithoutReturningSQL`): when it inserted,
            // the row has the model's key (the marker set here is a key no model has); when it
            // collided and updated a row instead, the returning upsert (run again, it changes
            // nothing more) gives that row's key.
            db.setLastInsertRowID(backing.primaryKey == .min ? 0 : .min)
            try statement.execute()
            guard db.lastInsertRowID != backing.primaryKey else { return values }
            let returning = try db.cachedStatement(entity.insertStatementSQL)
            _ = bind(returning)
            defer { returning.reset() }
            if try returning.step() {
                let key = returning.int64(at: 0)
                if key != backing.primaryKey {
                    // Upsert: the model takes over the existing row.
                    if let previous = registry[tableKey(entity)]?[key], previous !== model {
                        previous.persistentBackingData.state = .detached
                        previous.persistentBackingData.context = nil
                    }
                    backing.primaryKey = key
                }
            }
            while try returning.step() {}
        }
        return values
    }

    private func writeUpdate(_ model: any PersistentModel, entity: Schema.Entity, db: Database) throws -> StoredValues {
        let values = storedValues(of: model, entity: entity)
        guard let snapshot = model.persistentBackingData.snapshot else { return values }
        let changed = values.indices.filter { values[$0] != snapshot[$0] }
        guard !changed.isEmpty else { return values }
        let sql = "UPDATE \(quoteIdentifier(entity.tableName)) SET "
            + changed.map { "\(quoteIdentifier(entity.columnNames[$0])) = ?" }.joined(separator: ", ") + " WHERE \"pk\" = ?"
        try db.cachedStatement(sql).execute(changed.map { values[$0] } + [.integer(model.persistentBackingData.primaryKey)])
        return values
    }

    private func hasLinkChanges(_ model: any PersistentModel) -> Bool {
        guard model.persistentBackingData.relationshipsChanged else { return false }
        return model.persistentBackingData.relationships.values.contains { content in
            if case .toMany(let current, let original) = content { return !sameMembers(current, original ?? []) }
            return false
        }
    }

    /// The join-table rows one save has written or deleted, by table. Both sides of a
    /// many-to-many relationship are kept in step in the context, so a link made from one side
    /// is a change of the other side too: each row is written once (a note given 20,000 new
    /// tags wrote its 20,000 rows, then each tag wrote its own again, ignored).
    struct LinkWrites {
        struct Row: Hashable { let source: Int64, target: Int64 }
        var inserted: [String: Set<Row>] = [:]
        var deleted: [String: Set<Row>] = [:]
    }

    /// Writes join-table rows for many-to-many relationships that changed.
    private func writeLinks(_ model: any PersistentModel, entity: Schema.Entity, db: Database, _ links: inout LinkWrites) throws {
        for relationship in entity.relationships where relationship.isToMany {
            guard case .toMany(let current, let original)? = model.persistentBackingData.relationships[relationship.keyPath],
                  case .joinTable(let table, let source, let target)? = schema.storage(ofToMany: relationship, in: entity) else { continue }
            let before = Set((original ?? []).map(ObjectIdentifier.init)), after = Set(current.map(ObjectIdentifier.init))
            let owner = model.persistentBackingData.primaryKey
            // The owner's column is `source` of the table, or `target` when the table is named
            // after the other side; rows are recorded as (source, target) of the table.
            let ownerIsSource = source == "source"
            func row(_ member: any PersistentModel) -> LinkWrites.Row {
                let other = member.persistentBackingData.primaryKey
                return ownerIsSource ? .init(source: owner, target: other) : .init(source: other, target: owner)
            }
            var insert: Statement?
            for case let member as any PersistentModel in current where !before.contains(ObjectIdentifier(member)) {
                guard links.inserted[table, default: []].insert(row(member)).inserted else { continue }
                if insert == nil {
                    insert = try db.cachedStatement("INSERT OR IGNORE INTO \(quoteIdentifier(table)) (\(quoteIdentifier(source)), \(quoteIdentifier(target))) VALUES (?, ?)")
                }
                try insert?.execute([.integer(owner), .integer(member.persistentBackingData.primaryKey)])
            }
            var delete: Statement?
            for case let member as any PersistentModel in original ?? [] where !after.contains(ObjectIdentifier(member)) {
                guard links.deleted[table, default: []].insert(row(member)).inserted else { continue }
                if delete == nil {
                    delete = try db.cachedStatement("DELETE FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(source)) = ? AND \(quoteIdentifier(target)) = ?")
                }
                try delete?.execute([.integer(owner), .integer(member.persistentBackingData.primaryKey)])
            }
        }
    }

    private func markLinksSaved(_ model: any PersistentModel) {
        for (keyPath, content) in model.persistentBackingData.relationships {
            if case .toMany(let current, _) = content {
                model.persistentBackingData.relationships[keyPath] = .toMany(current: current, original: current)
            }
        }
    }

    private func writeDeny(_ deletes: [(any PersistentModel, Schema.Entity)], db: Database) throws {
        let deleting = Set(deletes.map { ObjectIdentifier($0.0) })
        for (model, entity) in deletes {
            for relationship in entity.relationships where relationship.deleteRule == .deny {
                // Members also being deleted don't count.
                let members = try relatedModels(of: model, relationship, entity: entity)
                if members.contains(where: { !deleting.contains(ObjectIdentifier($0)) }) {
                    throw PersistenceError.deleteDenied(entity: entity.name, relationship: relationship.name)
                }
            }
        }
    }

    /// Checks `minimumModelCount` / `maximumModelCount` of every to-many relationship of the
    /// models the save writes, before anything is written (so a violation changes nothing).
    ///
    /// A new model's relationship that was never set has no members; a registered model's is
    /// read (from memory, or the store). Members the save deletes don't count, so deleting
    /// the members of a relationship with a minimum (a nullify rule takes them out of the
    /// owner's list, which makes the owner a changed model) is refused too.
    private func checkRelationshipCounts(inserted: [(any PersistentModel, Schema.Entity)], changed: [(any PersistentModel, Schema.Entity)],
                                         deleted: [(any PersistentModel, Schema.Entity)]) throws {
        let deleting = Set(deleted.map { ObjectIdentifier($0.0) })
        var checked: Set<ObjectIdentifier> = []
        func check(_ model: any PersistentModel, _ entity: Schema.Entity, isNew: Bool) throws {
            let bounded = entity.boundedRelationships
            guard !bounded.isEmpty, !deleting.contains(ObjectIdentifier(model)), checked.insert(ObjectIdentifier(model)).inserted else { return }
            for relationship in bounded {
                let members: [any PersistentModel]
                if isNew && model.persistentBackingData.relationships[relationship.keyPath] == nil {
                    members = []
                } else {
                    members = try relatedModels(of: model, relationship, entity: entity)
                }
                let count = members.reduce(0) { $0 + (deleting.contains(ObjectIdentifier($1)) ? 0 : 1) }
                let low = relationship.minimumModelCount ?? 0, high = relationship.maximumModelCount ?? Int.max
                if count < low || count > high {
                    throw PersistenceError.relationshipCount(entity: entity.name, relationship: relationship.name, count: count,
                                                             bounds: "\(low)...\(high == Int.max ? "" : String(high))")
                }
            }
        }
        var lastEntity: Schema.Entity?
        for (model, entity) in inserted {
            // Inserts come in runs of one entity; most entities have no bounds.
            if entity === lastEntity && entity.boundedRelationships.isEmpty { continue }
            lastEntity = entity
            try check(model, entity, isNew: true)
        }
        for (model, entity) in changed { try check(model, entity, isNew: false) }
    }
}

extension ModelContext {
    /// Refuses a save that would leave a non-optional to-one relationship of a model it
    /// writes without a destination: never set on a new model, emptied by a delete rule
    /// (`.nullify` on the inverse), or pointing to a model the save deletes. SwiftData
    /// fails such a save with a validation error; writing it would store a NULL that stops
    /// the program when the relationship is read.
    func checkDestinations(inserted: [(any PersistentModel, Schema.Entity)], changed: [(any PersistentModel, Schema.Entity)]) throws {
        // Most schemas have none: a save of many models then doesn't visit them again.
        guard schema.entities.contains(where: { $0.toOneColumns.contains { !$0.isOptional } }) else { return }
        var lastEntity: Schema.Entity?
        var mandatory: [Schema.Relationship] = []
        for (isNew, list) in [(true, inserted), (false, changed)] {
            for (model, entity) in list {
                if entity !== lastEntity {
                    lastEntity = entity
                    mandatory = entity.toOneColumns.filter { !$0.isOptional }
                }
                guard !mandatory.isEmpty else { continue }
                let relationships = model.persistentBackingData.relationships
                for relationship in mandatory {
                    switch relationships[relationship.keyPath] {
                    case .toOne(let target as any PersistentModel)?:
                        if target.persistentBackingData.state != .deleted { continue }
                    case nil:
                        // A stored model's key is still the one stored (checkStoredReferences
                        // covers its destination's delete); a new model was never given one.
                        if !isNew { continue }
                    default:
                        break
                    }
                    throw PersistenceError.missingDestination(entity: entity.name, relationship: relationship.name)
                }
            }
        }
    }

    /// The same for rows the context hasn't loaded: a stored row whose non-optional to-one
    /// points to a row this save deletes, where the foreign key would set it to NULL (no
    /// inverse, or an inverse whose delete rule nullifies). Runs in the save's transaction,
    /// after its updates and before its deletes.
    func checkStoredReferences(to deletes: [(any PersistentModel, Schema.Entity)], db: Database) throws {
        guard !deletes.isEmpty, schema.entities.contains(where: { $0.toOneColumns.contains { !$0.isOptional } }) else { return }
        var deletedKeys: [ObjectIdentifier: Set<Int64>] = [:]
        for (model, entity) in deletes { deletedKeys[ObjectIdentifier(entity.rootEntity), default: []].insert(model.persistentBackingData.primaryKey) }
        for referrer in schema.entities {
            for relationship in referrer.relationships where !relationship.isToMany && !relationship.isOptional {
                guard let destination = schema.destination(of: relationship),
                      let keys = deletedKeys[ObjectIdentifier(destination.rootEntity)],
                      (schema.inverse(of: relationship, in: referrer)?.deleteRule ?? .nullify) == .nullify else { continue }
                let deletedReferrers = deletedKeys[ObjectIdentifier(referrer.rootEntity)] ?? []
                let sortedKeys = keys.sorted()
                for start in stride(from: 0, to: sortedKeys.count, by: 500) {
                    let chunk = sortedKeys[start..<min(start + 500, sortedKeys.count)]
                    let sql = "SELECT \"pk\" FROM \(quoteIdentifier(referrer.rootEntity.tableName)) WHERE \(quoteIdentifier(relationship.name)) IN ("
                        + chunk.map { _ in "?" }.joined(separator: ",") + ")"
                    let rows = try db.prepare(sql).fetchAll(chunk.map { .integer($0) })
                    for case .integer(let pk)? in rows.map(\.first) where !deletedReferrers.contains(pk) {
                        throw PersistenceError.missingDestination(entity: referrer.name, relationship: relationship.name)
                    }
                }
            }
        }
    }
}

/// A model that wants to adjust itself right before it is written (for example to stamp a
/// modification date). Called for inserted and changed models.
public protocol WillSaveHook: AnyObject {
    func willSave()
}
