import SQLite

/// Turns the rows of one table into a context's models, for the length of one query.
///
/// Everything that doesn't change from row to row (the identity map, the store's
/// identifier, and for the concrete entity of the rows: its factory, column positions and
/// attribute writers) is looked up once here rather than once per row; with inheritance the
/// last concrete entity is kept, since rows of one type tend to come in runs.
struct RowMaterializer {
    private struct Plan {
        let entity: Schema.Entity
        let make: () -> any PersistentModel
        let positions: [Int32]
        let writers: [(AnyObject, SQLValue) -> Bool]
    }

    private let context: ModelContext
    private let table: Schema.Entity
    private let identities: IdentityTable
    private let storeIdentifier: String
    private var plan: Plan

    /// Prepares to read rows selected with `table`'s columns (`Schema.Entity.selectColumns`
    /// of its root: the key first, then the discriminator if any).
    init(context: ModelContext, table: Schema.Entity) {
        self.context = context
        self.table = table
        identities = context.identityTable(table)
        storeIdentifier = context.container.stores[table.storeIndex].identifier
        plan = Self.plan(for: table)
    }

    private static func plan(for entity: Schema.Entity) -> Plan {
        Plan(entity: entity, make: entity.make, positions: entity.selectPositions, writers: entity.writers)
    }

    /// The registered model for the statement's current row, or a new one filled from it and
    /// registered.
    /// - Throws: ``PersistenceError/invalidStoredValue(entity:attribute:value:)`` when a
    ///   column doesn't convert to its attribute's type (or names an unknown entity).
    mutating func materialize(_ statement: Statement) throws -> any PersistentModel {
        let pk = statement.int64(at: 0)
        if let existing = identities[pk] { return existing }
        if table.usesDiscriminator { try choosePlan(named: statement.string(at: 1)) }
        let plan = plan
        let model = plan.make()
        let positions = plan.positions, writers = plan.writers
        var failed: Int?
        let snapshot = StoredValues.make(count: positions.count) { buffer in
            for index in 0..<positions.count {
                let value = statement.value(at: positions[index])
                if index < writers.count, !writers[index](model, value), failed == nil { failed = index }
                (buffer + index).initialize(to: value)
            }
        }
        if let failed {
            throw context.externalStorageError(plan.entity)
                ?? PersistenceError.invalidStoredValue(entity: plan.entity.name, attribute: plan.entity.attributes[failed].name,
                                                       value: snapshot[failed].description)
        }
        let backing = model.persistentBackingData
        backing.snapshot = snapshot
        backing.primaryKey = pk
        backing.state = .registered
        backing.context = context
        backing.storeIdentifier = storeIdentifier
        identities[pk] = model
        return model
    }

    /// Switches to the concrete entity a row's discriminator names.
    private mutating func choosePlan(named name: String) throws {
        if plan.entity.name == name { return }
        guard let sub = context.schema.entity(named: name), sub.rootEntity === table.rootEntity else {
            throw PersistenceError.invalidStoredValue(entity: table.name, attribute: "entity", value: name)
        }
        plan = Self.plan(for: sub)
    }
}
