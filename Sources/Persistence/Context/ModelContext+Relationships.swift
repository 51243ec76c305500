import Foundation
import SQLite

extension PersistentModel {
    /// The destination of a to-one relationship, loaded from the store on first access.
    ///
    /// Use it in the getter of a relationship property: `get { getValue(forKey: \.deck) }`.
    public func getValue<T: PersistentModel>(forKey keyPath: ReferenceWritableKeyPath<Self, T?>) -> T? {
        if case .toOne(let target)? = persistentBackingData.relationships[keyPath] { return target as? T }
        guard let context = persistentBackingData.context else { return nil }
        do { return try context.loadToOne(of: self, keyPath: keyPath) as? T }
        catch {
            // A property can't throw: the next save does (see ModelContext.deferredError).
            context.recordDeferredError(error)
            return nil
        }
    }

    /// Sets a to-one relationship, keeping its inverse in step.
    ///
    /// Use it in the setter: `set { setValue(forKey: \.deck, to: newValue) }`.
    public func setValue<T: PersistentModel>(forKey keyPath: ReferenceWritableKeyPath<Self, T?>, to newValue: T?) {
        let old = getValue(forKey: keyPath)
        if let context = persistentBackingData.context, context.undoState.isEnabled, old !== newValue { context.recordUndo(.relationship(self, keyPath)) }
        persistentBackingData.relationships[keyPath] = .toOne(newValue)
        guard old !== newValue else { return }
        // A model related to a registered one joins its context, as in SwiftData.
        guard let context = persistentBackingData.context ?? newValue?.persistentBackingData.context ?? old?.persistentBackingData.context else {
            linkInversesOutsideContext(keyPath, removed: old.map { [$0] } ?? [], added: newValue.map { [$0] } ?? [])
            return
        }
        if persistentBackingData.context == nil { context.insertModel(self) }
        if let newValue, newValue.persistentBackingData.context == nil { context.insertModel(newValue) }
        context.relationshipDidChange(self, keyPath: keyPath, removed: old.map { [$0] } ?? [], added: newValue.map { [$0] } ?? [])
    }

    /// The members of a to-many relationship, loaded from the store on first access.
    public func getValue<T: PersistentModel>(forKey keyPath: ReferenceWritableKeyPath<Self, [T]>) -> [T] {
        members(at: keyPath)
    }

    /// The members of an optional to-many relationship (`[T]?`): `[]` when there are none,
    /// never nil (the store keeps members, not whether the list was nil).
    public func getValue<T: PersistentModel>(forKey keyPath: ReferenceWritableKeyPath<Self, [T]?>) -> [T]? {
        members(at: keyPath) as [T]
    }

    /// Sets the members of an optional to-many relationship; nil removes them all.
    public func setValue<T: PersistentModel>(forKey keyPath: ReferenceWritableKeyPath<Self, [T]?>, to newValue: [T]?) {
        setMembers(at: keyPath, to: newValue ?? [])
    }

    /// Sets the members of a to-many relationship, keeping inverses in step.
    public func setValue<T: PersistentModel>(forKey keyPath: ReferenceWritableKeyPath<Self, [T]>, to newValue: [T]) {
        setMembers(at: keyPath, to: newValue)
    }

    /// The members of the to-many relationship at `keyPath` (`[T]` or `[T]?`).
    private func members<T: PersistentModel>(at keyPath: AnyKeyPath) -> [T] {
        if case .toMany(let current, _)? = persistentBackingData.relationships[keyPath] { return current.compactMap { $0 as? T } }
        guard let context = persistentBackingData.context else { return [] }
        do { return try context.loadToMany(of: self, keyPath: keyPath).compactMap { $0 as? T } }
        catch {
            context.recordDeferredError(error)
            return []
        }
    }

    private func setMembers<T: PersistentModel>(at keyPath: AnyKeyPath, to newValue: [T]) {
        let old: [T] = members(at: keyPath)
        if let context = persistentBackingData.context, context.undoState.isEnabled { context.recordUndo(.relationship(self, keyPath)) }
        var original: [AnyObject]? = nil
        if case .toMany(_, let stored)? = persistentBackingData.relationships[keyPath] { original = stored }
        persistentBackingData.relationships[keyPath] = .toMany(current: newValue, original: original)
        let oldIDs = Set(old.map(ObjectIdentifier.init)), newIDs = Set(newValue.map(ObjectIdentifier.init))
        let removed = old.filter { !newIDs.contains(ObjectIdentifier($0)) }
        let added = newValue.filter { !oldIDs.contains(ObjectIdentifier($0)) }
        guard !removed.isEmpty || !added.isEmpty else { return }
        guard let context = persistentBackingData.context ?? (added + removed).lazy.compactMap({ $0.persistentBackingData.context }).first else {
            linkInversesOutsideContext(keyPath, removed: removed, added: added)
            return
        }
        if persistentBackingData.context == nil { context.insertModel(self) }
        for model in added where model.persistentBackingData.context == nil { context.insertModel(model) }
        context.relationshipDidChange(self, keyPath: keyPath, removed: removed, added: added)
    }
}

extension PersistentModel {
    /// Keeps inverses in step between models that are in no context yet (a context does it
    /// for registered ones), so `shelf.items = [item]` before any insert sets `item.shelf`.
    func linkInversesOutsideContext(_ keyPath: AnyKeyPath, removed: [any PersistentModel], added: [any PersistentModel]) {
        guard let relationship = Self.declaredRelationship(of: type(of: self), keyPath: keyPath) else { return }
        for target in removed + added {
            let inverse = relationship.inverseKeyPath.flatMap { Self.declaredRelationship(of: type(of: target), keyPath: $0) }
                ?? Self.declaredRelationships(of: type(of: target)).first { $0.inverseKeyPath == keyPath }
            guard let inverse else { continue }
            let isAdded = added.contains { $0 === target }
            let backing = target.persistentBackingData
            if inverse.isToMany {
                var members: [AnyObject] = []
                var original: [AnyObject]? = nil
                if case .toMany(let current, let stored)? = backing.relationships[inverse.keyPath] { (members, original) = (current, stored) }
                members.removeAll { $0 === self }
                if isAdded { members.append(self) }
                backing.relationships[inverse.keyPath] = .toMany(current: members, original: original)
            } else if isAdded {
                backing.relationships[inverse.keyPath] = .toOne(self)
            } else if case .toOne(let current)? = backing.relationships[inverse.keyPath], current === self {
                backing.relationships[inverse.keyPath] = .toOne(nil)
            }
        }
    }

    private static func declaredRelationships(of type: any PersistentModel.Type) -> [Schema.Relationship] {
        type.schemaMetadata.compactMap { if case .relationship(let relationship) = $0.kind { relationship } else { nil } }
    }

    private static func declaredRelationship(of type: any PersistentModel.Type, keyPath: AnyKeyPath) -> Schema.Relationship? {
        declaredRelationships(of: type).first { $0.keyPath == keyPath }
    }
}

extension ModelContext {
    /// Loads a to-one destination from the stored key.
    func loadToOne(of model: any PersistentModel, keyPath: AnyKeyPath) throws -> AnyObject? {
        guard let entity = entity(of: model), let relationship = entity.relationship(for: keyPath),
              let index = entity.toOneColumnIndex(of: relationship), let destination = schema.destination(of: relationship) else { return nil }
        var target: AnyObject? = nil
        if let snapshot = model.persistentBackingData.snapshot, case .integer(let key) = snapshot[entity.attributes.count + index] {
            target = try fetchRow(entity: destination, primaryKey: key)
        }
        model.persistentBackingData.relationships[keyPath] = .toOne(target)
        return target
    }

    /// Loads a to-many relationship's members from the store.
    func loadToMany(of model: any PersistentModel, keyPath: AnyKeyPath) throws -> [AnyObject] {
        guard let entity = entity(of: model), let relationship = entity.relationship(for: keyPath) else { return [] }
        var members: [AnyObject] = []
        if model.persistentBackingData.state == .registered || model.persistentBackingData.state == .deleted {
            members = try fetchMembers(of: [model.persistentBackingData.primaryKey], relationship, entity: entity)[model.persistentBackingData.primaryKey] ?? []
        }
        model.persistentBackingData.relationships[keyPath] = .toMany(current: members, original: members)
        return members
    }

    /// The members of a to-many relationship for several owners, in one query.
    func fetchMembers(of owners: [Int64], _ relationship: Schema.Relationship, entity: Schema.Entity) throws -> [Int64: [AnyObject]] {
        guard let destination = schema.destination(of: relationship), !owners.isEmpty else { return [:] }
        let table = destination.rootEntity
        let columns = table.selectColumns.map { "d." + quoteIdentifier($0) }.joined(separator: ", ")
        var result: [Int64: [AnyObject]] = [:]
        for start in stride(from: 0, to: owners.count, by: 500) {
            let chunk = Array(owners[start..<min(start + 500, owners.count)])
            let placeholders = chunk.map { _ in "?" }.joined(separator: ",")
            let sql: String
            switch schema.storage(ofToMany: relationship, in: entity) {
            case .inverseColumn(_, let column)?:
                sql = "SELECT \(columns), d.\(quoteIdentifier(column)) FROM \(quoteIdentifier(table.tableName)) d WHERE d.\(quoteIdentifier(column)) IN (\(placeholders)) ORDER BY d.\"pk\""
            case .joinTable(let join, let source, let target)?:
                sql = "SELECT \(columns), j.\(quoteIdentifier(source)) FROM \(quoteIdentifier(table.tableName)) d JOIN \(quoteIdentifier(join)) j ON j.\(quoteIdentifier(target)) = d.\"pk\" WHERE j.\(quoteIdentifier(source)) IN (\(placeholders)) ORDER BY d.\"pk\""
            case nil:
                return [:]
            }
            try container.store(for: destination).withDatabase { db in
                do {
                    let statement = try keyedLoadStatement(db, sql, keys: chunk.count)
                    defer { statement.reset() }
                    try statement.bind(chunk.map { .integer($0) })
                    let ownerColumn = Int32(table.selectColumns.count)
                    while try statement.step() {
                        let owner = statement.int64(at: ownerColumn)
                        let member = try materialize(statement, table: table)
                        if member.persistentBackingData.state != .deleted { result[owner, default: []].append(member) }
                    }
                } catch { throw PersistenceError.wrap(error) }
            }
        }
        return result
    }

    /// The models a relationship of `model` points to (loading them when needed).
    func relatedModels(of model: any PersistentModel, _ relationship: Schema.Relationship, entity: Schema.Entity) throws -> [any PersistentModel] {
        switch model.persistentBackingData.relationships[relationship.keyPath] {
        case .toOne(let target)?: return [target as? any PersistentModel].compactMap { $0 }
        case .toMany(let current, _)?: return current.compactMap { $0 as? any PersistentModel }
        case nil:
            if relationship.isToMany { return try loadToMany(of: model, keyPath: relationship.keyPath).compactMap { $0 as? any PersistentModel } }
            return [try loadToOne(of: model, keyPath: relationship.keyPath) as? any PersistentModel].compactMap { $0 }
        }
    }

    /// Keeps the inverse side in step after `model`'s relationship changed.
    func relationshipDidChange(_ model: any PersistentModel, keyPath: AnyKeyPath, removed: [any PersistentModel], added: [any PersistentModel]) {
        guard let entity = entity(of: model), let relationship = entity.relationship(for: keyPath),
              let inverse = schema.inverse(of: relationship, in: entity) else { return }
        for target in removed { removeInverse(model, from: target, inverse: inverse) }
        for target in added { addInverse(model, to: target, inverse: inverse) }
    }

    func removeInverse(_ model: any PersistentModel, from target: any PersistentModel, inverse: Schema.Relationship) {
        if undoState.isEnabled { recordUndo(.relationship(target, inverse.keyPath)) }
        if inverse.isToMany {
            modifyMembers(of: target, inverse) { members in members.removeAll { $0 === model } }
        } else if case .toOne(let current)? = target.persistentBackingData.relationships[inverse.keyPath], current !== model {
            return
        } else {
            target.persistentBackingData.relationships[inverse.keyPath] = .toOne(nil)
        }
    }

    func addInverse(_ model: any PersistentModel, to target: any PersistentModel, inverse: Schema.Relationship) {
        if undoState.isEnabled { recordUndo(.relationship(target, inverse.keyPath)) }
        if inverse.isToMany {
            modifyMembers(of: target, inverse) { members in
                // The two sides are kept in step, so `model` can't be here already; the
                // check is kept for small lists only, where it costs nothing (for a tag of
                // 100,000 cards it would make each link linear).
                if members.count <= 32, members.contains(where: { $0 === model }) { return }
                members.append(model)
            }
        } else {
            // The target moves from its previous owner to `model`.
            if case .toOne(let previous as any PersistentModel)? = target.persistentBackingData.relationships[inverse.keyPath],
               previous !== model, let targetEntity = entity(of: target),
               let back = schema.inverse(of: inverse, in: targetEntity), back.isToMany {
                if undoState.isEnabled { recordUndo(.relationship(previous, back.keyPath)) }
                modifyMembers(of: previous, back) { members in members.removeAll { $0 === target } }
            }
            target.persistentBackingData.relationships[inverse.keyPath] = .toOne(model)
        }
    }

    /// Changes a to-many relationship's members in place: the stored list is taken out
    /// first, so appending to it doesn't copy it (which made building a large relationship
    /// one link at a time quadratic).
    private func modifyMembers(of model: any PersistentModel, _ relationship: Schema.Relationship, _ body: (inout [AnyObject]) -> Void) {
        var members: [AnyObject] = []
        var original: [AnyObject]?
        if case .toMany(var current, let stored)? = model.persistentBackingData.relationships.removeValue(forKey: relationship.keyPath) {
            swap(&members, &current)  // a move: `members` holds the only reference
            original = stored
        } else {
            if model.persistentBackingData.context === self {
                do { members = try loadToMany(of: model, keyPath: relationship.keyPath) }
                catch {
                    // Changing a list that couldn't be read would store a wrong list.
                    recordDeferredError(error)
                    return
                }
            }
            // loadToMany stored the list; take it out again so the change below is in place.
            if case .toMany(_, let stored)? = model.persistentBackingData.relationships.removeValue(forKey: relationship.keyPath) {
                original = stored
            }
        }
        body(&members)
        model.persistentBackingData.relationships[relationship.keyPath] = .toMany(current: members, original: original)
    }

    /// Loads relationships of fetched models in one query per relationship (no N+1).
    func prefetch<T: PersistentModel>(_ models: [T], keyPaths: [PartialKeyPath<T>], entity: Schema.Entity) throws {
        for keyPath in keyPaths {
            guard let relationship = entity.relationship(for: keyPath) else {
                throw PersistenceError.unsupportedPredicate("prefetching \(keyPath), which is not a relationship of \(entity.name)")
            }
            if relationship.isToMany {
                let owners = models.filter { $0.persistentBackingData.relationships[keyPath] == nil && $0.persistentBackingData.state == .registered }
                let members = try fetchMembers(of: owners.map { $0.persistentBackingData.primaryKey }, relationship, entity: entity)
                for owner in owners {
                    let list = members[owner.persistentBackingData.primaryKey] ?? []
                    owner.persistentBackingData.relationships[keyPath] = .toMany(current: list, original: list)
                }
            } else {
                guard let destination = schema.destination(of: relationship), let index = entity.toOneColumnIndex(of: relationship) else { continue }
                var keys: [Int64] = []
                for model in models where model.persistentBackingData.relationships[keyPath] == nil {
                    if case .integer(let key)? = model.persistentBackingData.snapshot?[entity.attributes.count + index] { keys.append(key) }
                }
                try fetchRows(entity: destination, primaryKeys: keys)
            }
        }
    }

    /// The statement of a load by `keys` keys: cached for one (the lazy load of one model's
    /// relationship, again and again with one shape: a note's cards for each card studied),
    /// compiled for more (a statement per count would fill the cache).
    private func keyedLoadStatement(_ db: Database, _ sql: String, keys: Int) throws(DatabaseError) -> Statement {
        keys == 1 ? try db.cachedStatement(sql) : try db.prepare(sql)
    }

    /// Registers the rows with these keys (one query per 500 keys).
    func fetchRows(entity: Schema.Entity, primaryKeys: [Int64]) throws {
        let table = entity.rootEntity
        let missing = Array(Set(primaryKeys.filter { registry[tableKey(entity)]?[$0] == nil }))
        for start in stride(from: 0, to: missing.count, by: 500) {
            let chunk = Array(missing[start..<min(start + 500, missing.count)])
            let sql = "SELECT " + table.selectColumns.map { "t0." + quoteIdentifier($0) }.joined(separator: ", ")
                + " FROM \(quoteIdentifier(table.tableName)) t0 WHERE t0.\"pk\" IN (" + chunk.map { _ in "?" }.joined(separator: ",") + ")"
            try container.store(for: entity).withDatabase { db in
                do {
                    let statement = try keyedLoadStatement(db, sql, keys: chunk.count)
                    defer { statement.reset() }
                    try statement.bind(chunk.map { .integer($0) })
                    while try statement.step() { _ = try materialize(statement, table: table) }
                } catch { throw PersistenceError.wrap(error) }
            }
        }
    }

    /// The name of a `.deny` relationship that still has members among rows about to be
    /// deleted, or nil.
    func denyViolation(entity: Schema.Entity, keys: [Int64], db: Database) throws -> String? {
        guard !keys.isEmpty else { return nil }
        for relationship in entity.relationships where relationship.deleteRule == .deny {
            let placeholders = keys.map { _ in "?" }.joined(separator: ",")
            let sql: String
            switch schema.storage(ofToMany: relationship, in: entity) {
            case .inverseColumn(let destination, let column)?:
                sql = "SELECT 1 FROM \(quoteIdentifier(destination.tableName)) WHERE \(quoteIdentifier(column)) IN (\(placeholders)) LIMIT 1"
            case .joinTable(let table, let source, _)?:
                sql = "SELECT 1 FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(source)) IN (\(placeholders)) LIMIT 1"
            case nil:
                continue
            }
            if try db.prepare(sql).fetchAll(keys.map { .integer($0) }).isEmpty == false { return relationship.name }
        }
        return nil
    }
}
