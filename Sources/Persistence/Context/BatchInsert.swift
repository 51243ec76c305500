import Foundation
import SQLite

extension ModelContext {
    /// Writes many new models straight to their stores, without tracking them: the
    /// counterpart of Core Data's `NSBatchInsertRequest` for imports of thousands of rows.
    ///
    /// `body` hands models to the ``BatchInsert``, which writes their rows in groups with one
    /// prepared multi-row `INSERT` per entity; everything `body` wrote is committed when it
    /// returns (or rolled back when it, or a write, throws). Inside a transaction already open
    /// on the store's connection (say, in ``ModelContainer/withDatabase(for:_:)``), the batch
    /// joins it as a savepoint.
    ///
    /// What it skips, compared with ``insert(_:)`` and ``save()``: the models are not
    /// registered in this context (no identity map, no snapshot, no undo, no autosave) and
    /// stay detached, so memory does not grow with the batch; no ``willSave`` or ``didSave``
    /// notification is posted (as with Core Data's batch requests). What it keeps: the
    /// ``WillSaveHook`` of each model, primary keys (one past the largest), the inheritance
    /// discriminator, unique-constraint upserts, `.externalStorage` files, one change-history
    /// transaction per store listing the inserted identifiers when history is on (with this
    /// context's ``author``), and the refetch of live ``QueryObservation``s of the inserted
    /// entities after the commit.
    /// - Throws: ``PersistenceError/readOnlyStore(path:)``; ``PersistenceError/batchInsert(entity:reason:)``
    ///   for a model the batch can't write; ``PersistenceError/database(_:)`` with SQLite's
    ///   error; whatever `body` throws. Nothing of the batch stays in the store then.
    public func batchInsert<T>(_ body: (BatchInsert) throws -> T) throws -> T {
        let batch = BatchInsert(context: self)
        let result: T
        do {
            result = try body(batch)
            try batch.commit()
        } catch {
            batch.rollBack()
            throw PersistenceError.wrap(error)
        }
        container.notifySaved(entities: batch.entitiesWritten)
        return result
    }
}

/// A batch of new models being written straight to the store (see
/// ``ModelContext/batchInsert(_:)``). Not `Sendable`: use it inside the closure only.
///
/// Rows are written in groups of up to 64 per entity (one multi-row `INSERT`, which keeps
/// SQLite's cursors positioned between rows), so a row may reach the store after its
/// ``insert(_:)`` returned: the store sees every row at the latest at ``flush()`` or the
/// commit, and an error such as a constraint failure may surface there (the whole batch rolls
/// back either way). Primary keys are handed out by the batch, one past the table's largest:
/// while a batch is open, don't insert into its tables by other means in the same transaction.
/// Entities with unique constraints are written one row at a time (their upsert decides the key).
public final class BatchInsert {
    /// The context whose container, history author and schema the batch uses.
    public let context: ModelContext
    /// Models written so far, including the one-to-many members written with their owners.
    public private(set) var count = 0

    /// The next key of one table.
    private final class KeyCounter {
        var next: Int64?
    }

    /// Rows bound and waiting in a multi-row statement.
    private final class RowBuffer {
        /// `INSERT … SELECT * FROM (VALUES (…), (…), …) LIMIT ?`: `capacity` rows of `width`
        /// parameters, then the number of rows to take.
        let statement: Statement
        let capacity: Int
        let width: Int32
        /// The statement as errors show it (the full text repeats the row `capacity` times).
        let summary: String
        var count = 0

        init(statement: Statement, capacity: Int, width: Int32, summary: String) {
            self.statement = statement
            self.capacity = capacity
            self.width = width
            self.summary = summary
        }

        /// Writes the bound rows.
        func flush() throws {
            guard count > 0 else { return }
            statement.bind(int64: Int64(count), at: Int32(capacity) * width + 1)
            let rows = count
            count = 0
            do {
                try statement.execute()
            } catch {
                throw DatabaseError(extendedCode: error.extendedCode, message: error.message, sql: "\(summary) (\(rows) rows)")
            }
        }
    }

    /// The write plan of one model type: its entity, statement and accessors, built once.
    private final class Plan {
        let entity: Schema.Entity
        let store: Store
        let keys: KeyCounter
        /// The single-row upsert of entities with unique constraints (nil when rows are buffered).
        let upsert: Statement?
        let buffer: RowBuffer?
        let binders: [(AnyObject, Statement, Int32) -> Void]
        /// Calls the model's `willSave()` (a cast per row costs a conformance lookup).
        var willSave: ((AnyObject) -> Void)?
        /// Whether a row of the entity was written (for `entitiesWritten`, without hashing its name per row).
        var wrote = false
        let toOne: [Schema.Relationship]
        /// One-to-many relationships whose members carry the key (written after the owner).
        let members: [Schema.Relationship]
        /// Many-to-many relationships and the statement that links one pair.
        let links: [(relationship: Schema.Relationship, statement: Statement)]
        var hasRelationships: Bool { !members.isEmpty || !links.isEmpty }

        init(entity: Schema.Entity, store: Store, keys: KeyCounter, upsert: Statement?, buffer: RowBuffer?,
             binders: [(AnyObject, Statement, Int32) -> Void], toOne: [Schema.Relationship], members: [Schema.Relationship],
             links: [(relationship: Schema.Relationship, statement: Statement)]) {
            self.entity = entity
            self.store = store
            self.keys = keys
            self.upsert = upsert
            self.buffer = buffer
            self.binders = binders
            self.toOne = toOne
            self.members = members
            self.links = links
        }
    }

    private enum Opened { case transaction, savepoint }
    private static let savepointName = "persistence_batch_insert"
    /// Rows per multi-row statement (kept under SQLite's historical 999-parameter limit).
    private static let rowsPerStatement = 64

    private var plans: [ObjectIdentifier: Plan] = [:]
    /// Plans in the order they were made: buffers are flushed in this order.
    private var planOrder: [Plan] = []
    private var counters: [ObjectIdentifier: KeyCounter] = [:]
    private var lastType: ObjectIdentifier?
    private var lastPlan: Plan?
    /// Stores with an open transaction or savepoint, in the order they were opened.
    private var opened: [(store: Store, kind: Opened)] = []
    /// Inserted keys per store index, kept only when the container records history.
    private var history: [Int: [(entity: String, key: Int64)]] = [:]
    private let recordsHistory: Bool
    /// The owners of the one-to-many members being written, innermost last.
    private var owners: [(model: AnyObject, key: Int64)] = []
    /// Entities with at least one row written, for query observations.
    private(set) var entitiesWritten: Set<String> = []
    /// The first write error: a group of rows may be half written, so the batch refuses to
    /// go on (or commit) and can only be rolled back.
    private var failure: (any Error)?

    init(context: ModelContext) {
        self.context = context
        recordsHistory = context.container.isHistoryEnabled
    }

    /// Writes `model` as a new row and returns its permanent identifier.
    ///
    /// The model's stored attributes and to-one keys are written as ``ModelContext/save()``
    /// would write them (its ``WillSaveHook`` runs first). A to-one destination must have a
    /// row already (saved, or the owner this model is written with); members of a one-to-many
    /// relationship that are new models (set outside any context) are written right after it
    /// with their key pointing to it; members of a many-to-many relationship must have rows,
    /// and the links to them are written. Afterwards the model is spent: it stays detached (its
    /// identifier remains temporary; fetch the row to work with it) and its relationship
    /// contents are dropped, so the batch holds no reference to it.
    /// - Throws: ``PersistenceError/batchInsert(entity:reason:)`` for a model already in a context
    ///   or a relationship it can't write; ``PersistenceError/database(_:)`` (a constraint, a
    ///   full disk…, possibly of rows inserted before); ``PersistenceError/readOnlyStore(path:)``.
    @discardableResult
    public func insert(_ model: some PersistentModel) throws -> PersistentIdentifier {
        let plan = try plan(for: model)
        let key = try write(model, plan: plan)
        return PersistentIdentifier(storeIdentifier: plan.store.identifier, entityName: plan.entity.name, primaryKey: key)
    }

    /// Writes `model` and returns only its primary key (the cheapest form of ``insert(_:)``).
    /// - Throws: as ``insert(_:)``.
    @discardableResult
    public func insertReturningKey(_ model: some PersistentModel) throws -> Int64 {
        try write(model, plan: try plan(for: model))
    }

    /// Writes the rows still waiting in the batch's multi-row statements, so that queries and
    /// statements on the same connection (say, links with immediate foreign keys) see them.
    /// - Throws: ``PersistenceError/database(_:)``.
    public func flush() throws {
        for plan in planOrder { try flush(plan) }
    }

    // MARK: Writing

    private func write(_ model: any PersistentModel, plan: Plan) throws -> Int64 {
        let backing = model.persistentBackingData
        guard backing.state == .detached, backing.context == nil else {
            throw PersistenceError.batchInsert(entity: plan.entity.name, reason: "the model is already in a context; a batch writes new models only")
        }
        if let failure { throw failure }
        let entity = plan.entity
        plan.willSave?(model)
        let key: Int64
        do {
            key = try plan.store.withDatabase { db in
                try open(plan.store, db: db)
                let key: Int64
                if let next = plan.keys.next {
                    key = next
                } else {
                    key = try Schema.Entity.key(after: db.scalar("SELECT max(\"pk\") FROM \(quoteIdentifier(entity.tableName))", as: Int64.self) ?? 0,
                                                in: entity)
                }
                guard let statement = plan.buffer?.statement ?? plan.upsert else { return key }
                var index: Int32 = 1
                if let buffer = plan.buffer { index = Int32(buffer.count) * buffer.width + 1 }
                statement.bind(int64: key, at: index)
                index += 1
                if entity.usesDiscriminator {
                    statement.bind(text: entity.name, at: index)
                    index += 1
                }
                plan.binders.withUnsafeBufferPointer { binders in
                    for bind in binders {
                        bind(model, statement, index)
                        index += 1
                    }
                }
                for relationship in plan.toOne {
                    statement.bind(try foreignKey(of: model, relationship, entity: entity), at: index)
                    index += 1
                }
                if let buffer = plan.buffer {
                    buffer.count += 1
                    // After the largest key the next insert asks the table again (and is refused).
                    plan.keys.next = key == .max ? nil : key + 1
                    if buffer.count == buffer.capacity { try buffer.flush() }
                    return key
                }
                // An upsert gives the key of the row it inserted or updated.
                defer { statement.reset() }
                let stored = try statement.step() ? statement.int64(at: 0) : key
                while try statement.step() {}
                plan.keys.next = stored != key ? key : key == .max ? nil : key + 1
                return stored
            }
        } catch {
            throw failed(error)
        }
        count += 1
        if recordsHistory { history[plan.store.index, default: []].append((entity.name, key)) }
        if !plan.wrote {
            plan.wrote = true
            entitiesWritten.insert(entity.name)
        }
        if plan.hasRelationships { try writeRelated(of: model, key: key, plan: plan) }
        if !backing.relationships.isEmpty { backing.relationships.removeAll() }
        return key
    }

    /// The column value of a to-one relationship: the destination's key.
    private func foreignKey(of model: any PersistentModel, _ relationship: Schema.Relationship, entity: Schema.Entity) throws -> SQLValue {
        guard case .toOne(let target?)? = model.persistentBackingData.relationships[relationship.keyPath] else { return .null }
        if let owner = owners.last(where: { $0.model === target }) { return .integer(owner.key) }
        if let key = Self.storedKey(of: target) { return .integer(key) }
        throw PersistenceError.batchInsert(entity: entity.name,
                                           reason: "\(relationship.name) points to a model that has no row yet; save it or insert this model through its owner")
    }

    /// The primary key of a model that has a row (saved in a context), or nil.
    private static func storedKey(of object: AnyObject) -> Int64? {
        guard let model = object as? any PersistentModel else { return nil }
        let backing = model.persistentBackingData
        switch backing.state {
        case .registered: return backing.primaryKey
        case .inserted where backing.primaryKey > 0: return backing.primaryKey
        default: return nil
        }
    }

    /// Writes the new members of one-to-many relationships and the many-to-many links of a
    /// model just written.
    private func writeRelated(of model: any PersistentModel, key: Int64, plan: Plan) throws {
        let relationships = model.persistentBackingData.relationships
        guard !relationships.isEmpty else { return }
        owners.append((model, key))
        defer { owners.removeLast() }
        for relationship in plan.members {
            guard case .toMany(let current, _)? = relationships[relationship.keyPath] else { continue }
            for case let member as any PersistentModel in current {
                guard member.persistentBackingData.state == .detached else {
                    throw PersistenceError.batchInsert(entity: plan.entity.name,
                                                       reason: "\(relationship.name) holds a model that already has a row; a batch writes new members only")
                }
                _ = try write(member, plan: try self.plan(for: member))
            }
        }
        for (relationship, statement) in plan.links {
            guard case .toMany(let current, _)? = relationships[relationship.keyPath], !current.isEmpty else { continue }
            // Link rows have immediate foreign keys: the owner's row must be there.
            try flush(plan)
            for member in current {
                guard let target = Self.storedKey(of: member) else {
                    throw PersistenceError.batchInsert(entity: plan.entity.name,
                                                       reason: "\(relationship.name) holds a model that has no row yet; save it first")
                }
                try plan.store.withDatabase { _ in
                    statement.bind(int64: key, at: 1)
                    statement.bind(int64: target, at: 2)
                    do { try statement.execute() } catch { throw failed(error) }
                }
            }
        }
    }

    private func flush(_ plan: Plan) throws {
        guard let buffer = plan.buffer, buffer.count > 0 else { return }
        if let failure { throw failure }
        do {
            try plan.store.withDatabase { _ in try buffer.flush() }
        } catch {
            throw failed(error)
        }
    }

    /// Latches the first write error (see `failure`) and returns it wrapped.
    private func failed(_ error: any Error) -> any Error {
        let wrapped = PersistenceError.wrap(error)
        if failure == nil { failure = wrapped }
        return wrapped
    }

    // MARK: Plans and transactions

    private func plan(for model: any PersistentModel) throws -> Plan {
        let type = ObjectIdentifier(Swift.type(of: model))
        if type == lastType, let lastPlan { return lastPlan }
        let plan: Plan
        if let known = plans[type] {
            plan = known
        } else {
            plan = try makePlan(for: Swift.type(of: model))
            plans[type] = plan
            planOrder.append(plan)
        }
        lastType = type
        lastPlan = plan
        return plan
    }

    /// A call of `willSave()` on instances of exactly `type`, when it has the hook.
    private static func willSaveCall(for type: any PersistentModel.Type) -> ((AnyObject) -> Void)? {
        func call<Hooked: WillSaveHook>(_: Hooked.Type) -> (AnyObject) -> Void {
            { unsafeDowncast($0, to: Hooked.self).willSave() }
        }
        guard let hooked = type as? any WillSaveHook.Type else { return nil }
        return call(hooked)
    }

    private func makePlan(for type: any PersistentModel.Type) throws -> Plan {
        let schema = context.container.schema
        guard let entity = schema.entity(forType: type) else { throw PersistenceError.unknownEntity(type.entityName) }
        let store = context.container.store(for: entity)
        guard store.configuration.allowsSave else { throw PersistenceError.readOnlyStore(path: store.path) }
        var members: [Schema.Relationship] = []
        var joins: [(Schema.Relationship, String)] = []
        for relationship in entity.relationships where relationship.isToMany {
            switch schema.storage(ofToMany: relationship, in: entity) {
            case .inverseColumn?: members.append(relationship)
            case .joinTable(let table, let source, let target)?:
                joins.append((relationship, "INSERT OR IGNORE INTO \(quoteIdentifier(table)) (\(quoteIdentifier(source)), \(quoteIdentifier(target))) VALUES (?, ?)"))
            case nil: continue
            }
        }
        let table = ObjectIdentifier(entity.rootEntity)
        let keys = counters[table] ?? KeyCounter()
        counters[table] = keys
        return try store.withDatabase { db in
            do {
                var upsert: Statement?
                var buffer: RowBuffer?
                if entity.uniqueConstraints.isEmpty {
                    // The columns of the entity's INSERT, as the save writes them. OR FAIL: a
                    // failing row leaves the statement's earlier rows in place, so SQLite keeps
                    // no statement journal (the batch is rolled back as a whole anyway, see `failure`).
                    let columns = ["pk"] + (entity.usesDiscriminator ? ["entity"] : []) + entity.columnNames
                    let capacity = Self.rowsPerStatement
                    let row = "(" + columns.map { _ in "?" }.joined(separator: ", ") + ")"
                    let sql = "INSERT OR FAIL INTO \(quoteIdentifier(entity.tableName)) (" + columns.map(quoteIdentifier).joined(separator: ", ")
                        + ") SELECT * FROM (VALUES " + Array(repeating: row, count: capacity).joined(separator: ", ") + ") LIMIT ?"
                    let summary = "INSERT INTO \(quoteIdentifier(entity.tableName)) (" + columns.map(quoteIdentifier).joined(separator: ", ") + ") VALUES …"
                    buffer = RowBuffer(statement: try db.prepare(sql), capacity: capacity, width: Int32(columns.count), summary: summary)
                } else {
                    upsert = try db.prepare(entity.insertStatementSQL)
                }
                let plan = Plan(entity: entity, store: store, keys: keys, upsert: upsert, buffer: buffer,
                                binders: entity.attributes.map(\.bind), toOne: entity.toOneColumns, members: members,
                                links: try joins.map { ($0.0, try db.prepare($0.1)) })
                plan.willSave = Self.willSaveCall(for: type)
                return plan
            } catch { throw PersistenceError.wrap(error) }
        }
    }

    /// Opens the batch's transaction on `store` the first time it is written.
    private func open(_ store: Store, db: Database) throws {
        if let last = opened.last, last.store === store { return }
        guard !opened.contains(where: { $0.store === store }) else { return }
        if db.isInTransaction {
            try db.execute("SAVEPOINT \(quoteIdentifier(Self.savepointName))")
            opened.append((store, .savepoint))
        } else {
            try db.execute("BEGIN IMMEDIATE TRANSACTION")
            opened.append((store, .transaction))
        }
    }

    /// Writes waiting rows, records history, writes external-storage files, then commits each store.
    func commit() throws {
        if let failure { throw failure }
        try flush()
        for (store, kind) in opened {
            try store.withDatabase { db in
                if let keys = history[store.index], !keys.isEmpty {
                    try context.recordHistory(db: db, inserted: keys, updated: [], deleted: [])
                }
                try store.externalStorage?.flush()
                try db.execute(kind == .savepoint ? "RELEASE \(quoteIdentifier(Self.savepointName))" : "COMMIT")
            }
        }
        opened.removeAll()
        history.removeAll()
    }

    /// Undoes everything the batch wrote in the stores not yet committed.
    func rollBack() {
        for plan in planOrder { plan.buffer?.count = 0 }
        for (store, kind) in opened.reversed() {
            store.withDatabase { db in
                switch kind {
                case .savepoint:
                    try? db.execute("ROLLBACK TO \(quoteIdentifier(Self.savepointName))")
                    try? db.execute("RELEASE \(quoteIdentifier(Self.savepointName))")
                case .transaction:
                    if db.isInTransaction { try? db.execute("ROLLBACK") }
                }
            }
        }
        opened.removeAll()
        history.removeAll()
        entitiesWritten.removeAll()
        for plan in planOrder { plan.wrote = false }
    }
}
