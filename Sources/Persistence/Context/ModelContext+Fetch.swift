import Foundation
import SQLite

extension ModelContext {
    // MARK: Fetching

    /// The models matching a descriptor, as registered instances.
    ///
    /// Runs one SQL query; rows already registered in this context come back as the same
    /// instances, with their unsaved changes. With `includePendingChanges`, unsaved inserted
    /// models that match are included and deleted ones left out.
    /// - Throws: ``PersistenceError/unsupportedPredicate(_:)`` for a predicate or sort that
    ///   can't be translated; ``PersistenceError/database(_:)`` from SQLite.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let entity = try requireEntity(T.self)
        if descriptor.includePendingChanges, let pending = pendingChanges(descriptor, entity: entity, forCount: false) {
            return try fetchMerging(pending, descriptor: descriptor, entity: entity)
        }
        let results = try fetchStored(descriptor, entity: entity)
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(results, keyPaths: descriptor.relationshipKeyPathsForPrefetching, entity: entity)
        }
        return results
    }

    /// The stored rows matching a descriptor as models (pending changes not considered;
    /// models deleted in this context left out).
    func fetchStored<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity) throws -> [T] {
        let partial = partialSelectColumns(descriptor, entity: entity)
        let query = try makeQuery(descriptor, entity: entity, columns: partial.map { .partialRows($0) } ?? .rows)
        // Rows are gathered as unmanaged references owned by this array (+1 each), so that
        // handing them to `[T]` at the end moves them instead of retaining and releasing each.
        var rows: [Unmanaged<AnyObject>] = []
        var exact = true
        try container.store(for: entity).withDatabase { db in
            do {
                let statement = try db.cachedStatement(query.sql)
                defer { statement.reset() }
                try statement.bind(query.arguments)
                var reader = RowMaterializer(context: self, table: entity, selected: partial)
                while try statement.step() {
                    let model = try reader.materialize(statement)
                    guard model.persistentBackingData.state != .deleted else { continue }
                    if exact && ObjectIdentifier(type(of: model)) != ObjectIdentifier(T.self) { exact = false }
                    rows.append(Unmanaged.passRetained(model as AnyObject))
                }
            } catch {
                for row in rows { row.release() }
                throw PersistenceError.wrap(error)
            }
        }
        var results: [T]
        if rows.isEmpty {
            // Not through `unsafeUninitializedCapacity`: with no rows it would write its count
            // into the empty-array singleton, a data race between two threads fetching nothing.
            results = []
        } else if exact {
            results = [T](unsafeUninitializedCapacity: rows.count) { buffer, count in
                for (index, row) in rows.enumerated() {
                    (buffer.baseAddress! + index).initialize(to: unsafeDowncast(row.takeRetainedValue(), to: T.self))
                }
                count = rows.count
            }
        } else {
            results = rows.compactMap { $0.takeRetainedValue() as? T }
        }
        return results
    }

    /// The models matching a descriptor as a collection that loads them `batchSize` rows at
    /// a time, as SwiftData's `fetch(_:batchSize:)`.
    ///
    /// The fetch reads the matching primary keys (one query, 8 bytes a row) and the first
    /// batch; other batches are read when an element of theirs is first accessed. The
    /// collection keeps two batches: when it drops one, the models it read that are
    /// unchanged leave the context (as with ``enumerate(_:batchSize:allowEscapingMutations:block:)``),
    /// so iterating a large result keeps memory bounded. Models edited while their batch was
    /// held stay registered, and models registered before the fetch are never dropped. A
    /// model kept past its batch's drop is detached: read the element again (a new
    /// instance) or call ``model(for:)`` before editing it.
    ///
    /// When unsaved changes could change the answer (see ``fetch(_:)``), the collection holds
    /// the models of a plain fetch instead. A later batch that can't be read (its rows deleted
    /// by another context, the store gone) gives empty detached models for its elements,
    /// sets ``FetchResultsCollection/loadError`` and makes the next ``save()`` throw.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        let entity = try requireEntity(T.self)
        if descriptor.includePendingChanges, pendingChanges(descriptor, entity: entity, forCount: false) != nil {
            return FetchResultsCollection(storage: FetchResultsStorage(models: try fetch(descriptor)))
        }
        let keys = try fetchIdentifiers(descriptor).map(\.primaryKey)
        let storage = FetchResultsStorage<T>(context: self, entity: entity, keys: keys, batchSize: max(1, batchSize))
        try storage.load(batch: 0)
        return FetchResultsCollection(storage: storage)
    }

    /// The identifiers of the matching models, read `batchSize` rows at a time (the rows are
    /// stepped through one statement, so this is ``fetchIdentifiers(_:)``; the parameter is
    /// SwiftData's).
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> [PersistentIdentifier] {
        try fetchIdentifiers(descriptor)
    }

    /// The number of models matching a descriptor, counted in SQL (pending inserts included
    /// when `includePendingChanges`).
    ///
    /// With `includePendingChanges` the count is that of ``fetch(_:)``: unsaved inserts and
    /// edits that match are counted, deleted models and models edited out of the predicate
    /// are not, and `fetchOffset`/`fetchLimit` apply to the whole.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let entity = try requireEntity(T.self)
        var plain = descriptor
        plain.sortBy = []
        plain.fetchLimit = nil
        plain.fetchOffset = nil
        var count = try storedCount(plain, entity: entity, keys: nil)
        if descriptor.includePendingChanges, let pending = pendingChanges(descriptor, entity: entity, forCount: true) {
            // Stored rows that matched but were deleted or edited since, then what matches now.
            if !pending.replacedKeys.isEmpty {
                let keys = Array(pending.replacedKeys)
                for start in stride(from: 0, to: keys.count, by: 500) {
                    count -= try storedCount(plain, entity: entity, keys: Array(keys[start..<min(start + 500, keys.count)]))
                }
            }
            for model in pending.changed + pending.inserted where try descriptor.predicate?.evaluate(model) ?? true { count += 1 }
        }
        count = max(0, count - max(0, descriptor.fetchOffset ?? 0))
        if let limit = descriptor.fetchLimit { count = min(count, max(0, limit)) }
        return count
    }

    private func storedCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity, keys: [Int64]?) throws -> Int {
        let query = try makeQuery(descriptor, entity: entity, columns: .count, keys: keys)
        return try container.store(for: entity).withDatabase { db in
            do { return try db.scalar(query.sql, query.arguments, as: Int.self) ?? 0 }
            catch { throw PersistenceError.wrap(error) }
        }
    }

    /// The identifiers of the models matching a descriptor, without materialising them.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        let entity = try requireEntity(T.self)
        let query = try makeQuery(descriptor, entity: entity, columns: .identifiers)
        let store = container.store(for: entity)
        return try store.withDatabase { db in
            do {
                let statement = try db.cachedStatement(query.sql)
                defer { statement.reset() }
                try statement.bind(query.arguments)
                var ids: [PersistentIdentifier] = []
                while try statement.step() {
                    let name = entity.usesDiscriminator ? statement.string(at: 1) : entity.name
                    ids.append(PersistentIdentifier(storeIdentifier: store.identifier, entityName: name, primaryKey: statement.int64(at: 0)))
                }
                return ids
            } catch { throw PersistenceError.wrap(error) }
        }
    }

    /// Calls `block` for every matching model, `batchSize` rows at a time, with bounded memory.
    ///
    /// Models that `block` leaves unchanged are released after each batch, so memory stays
    /// flat however large the table. With `allowEscapingMutations: false` (the default), a
    /// model changed by `block` makes the call throw ``PersistenceError/escapingMutation(entity:)``
    /// at the end of its batch; with `true`, changed models stay registered for a later save.
    public func enumerate<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int = 5000,
                                              allowEscapingMutations: Bool = false, block: (T) throws -> Void) throws {
        let entity = try requireEntity(T.self)
        let key = tableKey(entity)
        let query = try makeQuery(descriptor, entity: entity, columns: .rows)
        let size = max(1, batchSize)
        try container.store(for: entity).withDatabase { db in
            do {
                // One statement stepped through the whole result; its own, so that `block`
                // may run other queries meanwhile.
                let statement = try db.prepare(query.sql)
                try statement.bind(query.arguments)
                var reader = RowMaterializer(context: self, table: entity)
                var done = false
                while !done {
                    var batch: [T] = []
                    var fresh: [Int64] = []
                    while batch.count < size {
                        guard try statement.step() else { done = true; break }
                        let pk = statement.int64(at: 0)
                        let wasRegistered = registry[key]?[pk] != nil
                        guard let model = cast(try reader.materialize(statement), to: T.self) else { continue }
                        if !wasRegistered { fresh.append(pk) }
                        if model.persistentBackingData.state != .deleted { batch.append(model) }
                    }
                    for model in batch { try block(model) }
                    batch.removeAll()
                    // Release what this batch loaded, unless it changed.
                    var mutated = false
                    for pk in fresh {
                        guard let model = registry[key]?[pk] else { continue }
                        if isChanged(model) || model.persistentBackingData.state == .deleted {
                            mutated = true
                            continue
                        }
                        registry[key]?[pk] = nil
                        model.persistentBackingData.state = .detached
                        model.persistentBackingData.context = nil
                    }
                    if mutated && !allowEscapingMutations { throw PersistenceError.escapingMutation(entity: entity.name) }
                }
            } catch { throw PersistenceError.wrap(error) }
        }
    }

    /// The model with an identifier: the registered instance, or one fetched from its store.
    /// - Throws: ``PersistenceError/modelNotFound(_:)`` when no row has that identifier.
    public func model(for identifier: PersistentIdentifier) throws -> any PersistentModel {
        if let model = registeredModel(for: identifier) as (any PersistentModel)? { return model }
        guard !identifier.isTemporary, let entity = schema.entity(named: identifier.entityName) else {
            throw PersistenceError.modelNotFound(identifier)
        }
        guard let model = try fetchRow(entity: entity, primaryKey: identifier.primaryKey) else {
            throw PersistenceError.modelNotFound(identifier)
        }
        return model
    }

    /// The model with an identifier if it is registered in this context, without touching the store.
    public func registeredModel<T: PersistentModel>(for identifier: PersistentIdentifier) -> T? {
        registeredModel(for: identifier) as (any PersistentModel)? as? T
    }

    func registeredModel(for identifier: PersistentIdentifier) -> (any PersistentModel)? {
        if identifier.isTemporary {
            return insertionOrder.first { $0.persistentBackingData.primaryKey == identifier.primaryKey && type(of: $0).entityName == identifier.entityName }
        }
        guard let entity = schema.entity(named: identifier.entityName) else { return nil }
        return registry[tableKey(entity)]?[identifier.primaryKey]
    }

    // MARK: Rows to models

    /// A model as `T`: a plain reinterpretation when it is exactly `T` (the common case in
    /// a fetch loop), a checked cast otherwise.
    @inline(__always)
    func cast<T: PersistentModel>(_ model: any PersistentModel, to type: T.Type) -> T? {
        if ObjectIdentifier(Swift.type(of: model)) == ObjectIdentifier(T.self) { return unsafeDowncast(model, to: T.self) }
        return model as? T
    }

    func requireEntity<T: PersistentModel>(_ type: T.Type) throws -> Schema.Entity {
        guard let entity = schema.entity(for: type) else { throw PersistenceError.unknownEntity(T.entityName) }
        return entity
    }

    /// The registered model for the current row, or a new one filled from it.
    func materialize(_ statement: Statement, table entity: Schema.Entity) throws -> any PersistentModel {
        var reader = RowMaterializer(context: self, table: entity)
        return try reader.materialize(statement)
    }

    /// Reads the attributes a fetch with `propertiesToFetch` left out of `model` (one query),
    /// on the first read or write of one of them through an accessor.
    ///
    /// The values go into the model and its snapshot as if fetched at first: observers are
    /// not told. An accessor can't throw, so a failure (the row deleted meanwhile, a value
    /// that doesn't convert) leaves the attributes at their initial values and is thrown by
    /// the context's next ``save()``, as a relationship that fails to load is.
    func readUnfetchedAttributes(of model: any PersistentModel) {
        let backing = model.persistentBackingData
        let unfetched = backing.unfetchedAttributes
        backing.unfetchedAttributes = []
        guard !unfetched.isEmpty, let entity = entity(of: model), let snapshot = backing.snapshot else { return }
        let sql = "SELECT " + unfetched.map { quoteIdentifier(entity.attributes[$0].name) }.joined(separator: ", ")
            + " FROM \(quoteIdentifier(entity.tableName)) WHERE \"pk\" = ?"
        do {
            let values = try container.store(for: entity).withDatabase { db -> [SQLValue]? in
                let statement = try db.cachedStatement(sql)
                defer { statement.reset() }
                statement.bind(int64: backing.primaryKey, at: 1)
                guard try statement.step() else { return nil }
                return (0..<unfetched.count).map { statement.value(at: Int32($0)) }
            }
            guard let values else { throw PersistenceError.modelNotFound(model.persistentModelID) }
            var updated = Array(snapshot)
            let writers = entity.writers
            for (position, index) in unfetched.enumerated() {
                guard writers[index](model, values[position]) else {
                    throw externalStorageError(entity)
                        ?? PersistenceError.invalidStoredValue(entity: entity.name, attribute: entity.attributes[index].name,
                                                               value: values[position].description)
                }
                updated[index] = entity.reencodedAttributeIndexes.contains(index) ? entity.readers[index](model) : values[position]
            }
            backing.snapshot = StoredValues.make(updated)
        } catch {
            recordDeferredError(error)
        }
    }

    /// The columns a fetch with `propertiesToFetch` selects from the root table, or nil when
    /// it reads whole rows: the key, the discriminator, every to-one key, and the attributes
    /// named or not able to fault in.
    func partialSelectColumns<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity) -> [String]? {
        guard !descriptor.propertiesToFetch.isEmpty, !undoState.isEnabled else { return nil }
        let requested = Set(descriptor.propertiesToFetch.compactMap { entity.attribute(for: $0)?.name })
        var leftOut: Set<String> = []
        for member in entity.rootEntity.hierarchy {
            for attribute in member.attributes where attribute.faultsOnAccess && !requested.contains(attribute.name) {
                leftOut.insert(attribute.name)
            }
        }
        // A column some entity of the table can't fault in is read.
        for member in entity.rootEntity.hierarchy {
            for attribute in member.attributes where !attribute.faultsOnAccess { leftOut.remove(attribute.name) }
        }
        guard !leftOut.isEmpty else { return nil }
        return entity.rootEntity.selectColumns.filter { !leftOut.contains($0) }
    }

    /// Fetches one row by primary key (or returns the registered model).
    func fetchRow(entity: Schema.Entity, primaryKey: Int64) throws -> (any PersistentModel)? {
        if let existing = registry[tableKey(entity)]?[primaryKey] { return existing }
        let table = entity.rootEntity
        let sql = "SELECT " + table.selectColumns.map { "t0." + quoteIdentifier($0) }.joined(separator: ", ")
            + " FROM \(quoteIdentifier(table.tableName)) t0 WHERE t0.\"pk\" = ?"
        return try container.store(for: entity).withDatabase { db in
            do {
                let statement = try db.cachedStatement(sql)
                defer { statement.reset() }
                statement.bind(int64: primaryKey, at: 1)
                guard try statement.step() else { return nil }
                return try materialize(statement, table: table)
            } catch { throw PersistenceError.wrap(error) }
        }
    }

    // MARK: Queries

    enum QueryColumns: Equatable {
        case rows, count, identifiers
        /// Rows with only these columns of the root table (`propertiesToFetch`).
        case partialRows([String])
    }

    struct SQLQuery {
        let sql: String
        let arguments: [SQLValue]
    }

    func discriminatorCondition(_ entity: Schema.Entity, includeSubclasses: Bool, alias: String) -> String {
        let names = includeSubclasses ? entity.entityNamesIncludingSubentities : [entity.name]
        if entity.superentity == nil && includeSubclasses { return "1" }
        return "\(alias).\"entity\" IN (" + names.map { sqlLiteral(.text($0)) }.joined(separator: ", ") + ")"
    }

    /// The SQL of a descriptor; `keys` restricts it to rows with these primary keys.
    func makeQuery<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity, columns: QueryColumns, keys: [Int64]? = nil) throws -> SQLQuery {
        var translator = SQLTranslator(schema: schema)
        var conditions: [String] = []
        if let predicate = descriptor.predicate {
            conditions.append(try translator.translate(predicate, entity: entity, alias: "t0"))
        }
        if entity.usesDiscriminator {
            let condition = discriminatorCondition(entity, includeSubclasses: descriptor.includeSubclasses, alias: "t0")
            if condition != "1" { conditions.append(condition) }
        }
        if let keys {
            conditions.append("t0.\"pk\" IN (" + keys.map { translator.parameter(.integer($0)) }.joined(separator: ", ") + ")")
        }
        let table = entity.rootEntity
        let select: String
        switch columns {
        case .rows: select = table.selectColumns.map { "t0." + quoteIdentifier($0) }.joined(separator: ", ")
        case .partialRows(let columns): select = columns.map { "t0." + quoteIdentifier($0) }.joined(separator: ", ")
        case .count: select = "count(*)"
        case .identifiers: select = entity.usesDiscriminator ? "t0.\"pk\", t0.\"entity\"" : "t0.\"pk\""
        }
        var sql = "SELECT \(select) FROM \(quoteIdentifier(entity.tableName)) t0"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        let order = try translator.orderBy(descriptor.sortBy, entity: entity, alias: "t0")
        if columns != .count {
            // A stable order: the sort, then the primary key.
            sql += " ORDER BY " + (order + ["t0.\"pk\""]).joined(separator: ", ")
        }
        var arguments = translator.arguments
        if columns == .count {
            if descriptor.fetchLimit != nil || descriptor.fetchOffset != nil {
                sql = "SELECT count(*) FROM (SELECT 1 FROM \(quoteIdentifier(entity.tableName)) t0"
                    + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
                    + " LIMIT ? OFFSET ?)"
                arguments += [.integer(Int64(descriptor.fetchLimit ?? -1)), .integer(Int64(descriptor.fetchOffset ?? 0))]
            }
        } else if descriptor.fetchLimit != nil || descriptor.fetchOffset != nil {
            sql += " LIMIT ? OFFSET ?"
            arguments += [.integer(Int64(descriptor.fetchLimit ?? -1)), .integer(Int64(descriptor.fetchOffset ?? 0))]
        }
        return SQLQuery(sql: sql, arguments: arguments)
    }

    // MARK: Pending changes

    /// The unsaved changes a fetch of `descriptor` must take into account.
    struct PendingChanges<T: PersistentModel> {
        /// Inserted models of the entity (not yet matched against the predicate).
        var inserted: [T] = []
        /// Registered models of the entity with unsaved edits.
        var changed: [T] = []
        /// Primary keys of stored rows whose stored values no longer count: the changed
        /// models' and the deleted ones'.
        var replacedKeys: Set<Int64> = []
    }

    /// The pending inserts, edits and deletes of the descriptor's entity, or nil when there
    /// are none that could change the result (the fetch is then one SQL query).
    ///
    /// Edits are looked for (a scan of the entity's registered models) only when they can
    /// change the answer: with a predicate, and for a fetch also with a sort or a window.
    func pendingChanges<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity, forCount: Bool) -> PendingChanges<T>? {
        func relevant(_ model: any PersistentModel) -> T? {
            guard let typed = model as? T else { return nil }
            if !descriptor.includeSubclasses, self.entity(of: model) !== entity { return nil }
            return typed
        }
        var pending = PendingChanges<T>()
        pending.inserted = insertionOrder.compactMap(relevant)
        let windowed = descriptor.fetchLimit != nil || descriptor.fetchOffset != nil
        // Deleted rows are skipped by the fetch itself; they matter to a count and a window.
        if forCount || windowed {
            for model in deletedModels.values where model.persistentBackingData.state == .deleted {
                if relevant(model) != nil { pending.replacedKeys.insert(model.persistentBackingData.primaryKey) }
            }
        }
        let scanEdits = descriptor.predicate != nil || (!forCount && (!descriptor.sortBy.isEmpty || windowed))
        if scanEdits, let table = registry[tableKey(entity)], !table.isEmpty {
            for model in table.models where isChanged(model) {
                guard let typed = relevant(model) else { continue }
                pending.changed.append(typed)
                pending.replacedKeys.insert(model.persistentBackingData.primaryKey)
            }
        }
        if pending.inserted.isEmpty && pending.changed.isEmpty && pending.replacedKeys.isEmpty { return nil }
        return pending
    }

    /// A fetch that merges pending changes: the stored rows (without those replaced by
    /// edits or deletes), then the inserted and edited models that match now, in the
    /// descriptor's order as SQLite would sort them, then the window.
    private func fetchMerging<T: PersistentModel>(_ pending: PendingChanges<T>, descriptor: FetchDescriptor<T>, entity: Schema.Entity) throws -> [T] {
        var stored = descriptor
        let offset = max(0, descriptor.fetchOffset ?? 0)
        stored.fetchOffset = nil
        if let limit = descriptor.fetchLimit { stored.fetchLimit = offset + max(0, limit) + pending.replacedKeys.count }
        let changed = Set(pending.changed.map(ObjectIdentifier.init))
        var merged = try fetchStored(stored, entity: entity).filter { !changed.contains(ObjectIdentifier($0)) }
        let matching = try (pending.changed + pending.inserted).filter { try descriptor.predicate?.evaluate($0) ?? true }
        if !matching.isEmpty {
            merged += matching
            merged = try sortedAsStored(merged, by: descriptor.sortBy, entity: entity)
        }
        if offset > 0 { merged = Array(merged.dropFirst(offset)) }
        if let limit = descriptor.fetchLimit, merged.count > limit { merged = Array(merged.prefix(max(0, limit))) }
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(merged, keyPaths: descriptor.relationshipKeyPathsForPrefetching, entity: entity)
        }
        return merged
    }

    /// Models in the order of the SQL `ORDER BY` a fetch uses: each sort's column value as it
    /// would be stored now, compared as SQLite compares values (NULL, then numbers, then
    /// text byte by byte, then blobs), then the primary key, unsaved models last in
    /// insertion order.
    private func sortedAsStored<T: PersistentModel>(_ models: [T], by sorts: [SortDescriptor<T>], entity: Schema.Entity) throws -> [T] {
        var columns: [(keyPath: AnyKeyPath, forward: Bool)] = []
        for sort in sorts {
            guard let keyPath = sort.keyPath, entity.columnName(for: keyPath) != nil else {
                throw PersistenceError.unsupportedPredicate("sorting by \(String(describing: sort.keyPath)), which is not a stored attribute of \(entity.name)")
            }
            columns.append((keyPath, sort.order == .forward))
        }
        let insertedPosition = Dictionary(insertionOrder.enumerated().map { (ObjectIdentifier($0.element), $0.offset) }, uniquingKeysWith: { a, _ in a })
        let keyed = models.map { model -> (model: T, values: [SQLValue], tie: (Int, Int64)) in
            let values = columns.map { columnValue(of: model, keyPath: $0.keyPath) }
            let tie = model.persistentBackingData.state == .inserted && model.persistentBackingData.primaryKey < 0
                ? (1, Int64(insertedPosition[ObjectIdentifier(model)] ?? 0)) : (0, model.persistentBackingData.primaryKey)
            return (model, values, tie)
        }
        return keyed.sorted { a, b in
            for (index, column) in columns.enumerated() {
                let order = compareAsSQLite(a.values[index], b.values[index])
                if order != 0 { return column.forward ? order < 0 : order > 0 }
            }
            return a.tie < b.tie
        }.map(\.model)
    }

    /// The value a model would store now in the column of an attribute or to-one key path.
    private func columnValue(of model: any PersistentModel, keyPath: AnyKeyPath) -> SQLValue {
        guard let entity = entity(of: model) else { return .null }
        if let attribute = entity.attribute(for: keyPath) { return attribute.read(model) }
        guard let relationship = entity.relationship(for: keyPath), !relationship.isToMany else { return .null }
        if case .toOne(let target)? = model.persistentBackingData.relationships[relationship.keyPath] { return keyValue(of: target) }
        guard let index = entity.toOneColumnIndex(of: relationship) else { return .null }
        return model.persistentBackingData.snapshot?[entity.attributes.count + index] ?? .null
    }
}

/// SQLite's order of two values with the BINARY collation: NULL, then numbers by value,
/// then text by bytes, then blobs by bytes. Negative, zero or positive.
func compareAsSQLite(_ a: SQLValue, _ b: SQLValue) -> Int {
    func rank(_ value: SQLValue) -> Int {
        switch value {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }
    let (ra, rb) = (rank(a), rank(b))
    if ra != rb { return ra < rb ? -1 : 1 }
    func bytes<S: Sequence<UInt8>>(_ x: S, _ y: S) -> Int {
        var i = x.makeIterator(), j = y.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (p?, q?): if p != q { return p < q ? -1 : 1 }
            }
        }
    }
    switch (a, b) {
    case let (.integer(x), .integer(y)): return x == y ? 0 : (x < y ? -1 : 1)
    case let (.integer(x), .real(y)): let d = Double(x); return d == y ? 0 : (d < y ? -1 : 1)
    case let (.real(x), .integer(y)): let d = Double(y); return x == d ? 0 : (x < d ? -1 : 1)
    case let (.real(x), .real(y)): return x == y ? 0 : (x < y ? -1 : 1)
    case let (.text(x), .text(y)): return bytes(Array(x.utf8), Array(y.utf8))
    case let (.blob(x), .blob(y)): return bytes(Array(x), Array(y))
    default: return 0
    }
}
