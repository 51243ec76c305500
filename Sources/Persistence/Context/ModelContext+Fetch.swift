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
        let query = try makeQuery(descriptor, entity: entity, columns: .rows)
        // Rows are gathered as unmanaged references owned by this array (+1 each), so that
        // handing them to `[T]` at the end moves them instead of retaining and releasing each.
        var rows: [Unmanaged<AnyObject>] = []
        var exact = true
        try container.store(for: entity).withDatabase { db in
            do {
                let statement = try db.cachedStatement(query.sql)
                defer { statement.reset() }
                try statement.bind(query.arguments)
                var reader = RowMaterializer(context: self, table: entity)
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
        if descriptor.includePendingChanges {
            results = try mergePending(results, descriptor: descriptor, entity: entity)
        }
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(results, keyPaths: descriptor.relationshipKeyPathsForPrefetching, entity: entity)
        }
        return results
    }

    /// The models matching a descriptor, fetched `batchSize` rows at a time.
    ///
    /// SwiftData's `fetch(_:batchSize:)` returns a lazily faulting collection; here the
    /// batches are loaded eagerly, in pages of `batchSize` (use ``enumerate(_:batchSize:allowEscapingMutations:block:)``
    /// when memory must stay bounded).
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> [T] {
        var all: [T] = []
        try enumerate(descriptor, batchSize: batchSize, allowEscapingMutations: true) { all.append($0) }
        return all
    }

    /// The number of models matching a descriptor, counted in SQL (pending inserts included
    /// when `includePendingChanges`).
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let entity = try requireEntity(T.self)
        var plain = descriptor
        plain.sortBy = []
        let query = try makeQuery(plain, entity: entity, columns: .count)
        var count = try container.store(for: entity).withDatabase { db in
            do { return try db.scalar(query.sql, query.arguments, as: Int.self) ?? 0 }
            catch { throw PersistenceError.wrap(error) }
        }
        if descriptor.includePendingChanges && descriptor.fetchLimit == nil && descriptor.fetchOffset == nil {
            for case let model as T in insertionOrder where try descriptor.predicate?.evaluate(model) ?? true { count += 1 }
            for case let model as T in deletedModels.values where model.persistentBackingData.state == .deleted {
                if try descriptor.predicate?.evaluate(model) ?? true { count -= 1 }
            }
        }
        return count
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

    enum QueryColumns { case rows, count, identifiers }

    struct Query {
        let sql: String
        let arguments: [SQLValue]
    }

    func discriminatorCondition(_ entity: Schema.Entity, includeSubclasses: Bool, alias: String) -> String {
        let names = includeSubclasses ? entity.entityNamesIncludingSubentities : [entity.name]
        if entity.superentity == nil && includeSubclasses { return "1" }
        return "\(alias).\"entity\" IN (" + names.map { sqlLiteral(.text($0)) }.joined(separator: ", ") + ")"
    }

    func makeQuery<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity, columns: QueryColumns) throws -> Query {
        var translator = SQLTranslator(schema: schema)
        var conditions: [String] = []
        if let predicate = descriptor.predicate {
            conditions.append(try translator.translate(predicate, entity: entity, alias: "t0"))
        }
        if entity.usesDiscriminator {
            let condition = discriminatorCondition(entity, includeSubclasses: descriptor.includeSubclasses, alias: "t0")
            if condition != "1" { conditions.append(condition) }
        }
        let table = entity.rootEntity
        let select: String
        switch columns {
        case .rows: select = table.selectColumns.map { "t0." + quoteIdentifier($0) }.joined(separator: ", ")
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
        return Query(sql: sql, arguments: arguments)
    }

    /// Adds matching unsaved inserts to fetched results, then re-sorts and re-limits.
    private func mergePending<T: PersistentModel>(_ results: [T], descriptor: FetchDescriptor<T>, entity: Schema.Entity) throws -> [T] {
        let pending = try insertionOrder.compactMap { $0 as? T }.filter { try descriptor.predicate?.evaluate($0) ?? true }
        guard !pending.isEmpty else { return results }
        var merged = results + pending
        if !descriptor.sortBy.isEmpty {
            merged.sort { a, b in
                for sort in descriptor.sortBy {
                    switch sort.compare(a, b) {
                    case .orderedAscending: return true
                    case .orderedDescending: return false
                    case .orderedSame: continue
                    }
                }
                return false
            }
        }
        if let limit = descriptor.fetchLimit, merged.count > limit { merged = Array(merged.prefix(limit)) }
        return merged
    }

}

