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
        /// Where each stored value (attributes, then to-one keys) sits in the row; -1 for an
        /// attribute the query left out.
        let positions: [Int32]
        let writers: [(AnyObject, SQLValue) -> Bool]
        /// The attributes the query left out (`propertiesToFetch`), read on first access.
        let unfetched: [Int]
    }

    private let context: ModelContext
    private let table: Schema.Entity
    private let identities: IdentityTable
    private let storeIdentifier: String
    private var plan: Plan
    /// The columns selected, when not all of the root's (`propertiesToFetch`).
    private let selected: [String]?

    /// Prepares to read rows selected with `table`'s columns (`Schema.Entity.selectColumns`
    /// of its root: the key first, then the discriminator if any), or with `selected`, a
    /// subset of them in the same order.
    init(context: ModelContext, table: Schema.Entity, selected: [String]? = nil) {
        self.context = context
        self.table = table
        self.selected = selected
        identities = context.identityTable(table)
        storeIdentifier = context.container.stores[table.storeIndex].identifier
        plan = Self.plan(for: table, selected: selected)
    }

    private static func plan(for entity: Schema.Entity, selected: [String]?) -> Plan {
        guard let selected else {
            return Plan(entity: entity, make: entity.make, positions: entity.selectPositions, writers: entity.writers, unfetched: [])
        }
        let positions = entity.columnNames.map { name in Int32(selected.firstIndex(of: name) ?? -1) }
        let unfetched = entity.attributes.indices.filter { positions[$0] < 0 }
        return Plan(entity: entity, make: entity.make, positions: positions, writers: entity.writers, unfetched: unfetched)
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
        var snapshot: StoredValues
        if plan.unfetched.isEmpty {
            snapshot = StoredValues.make(count: positions.count) { buffer in
                for index in 0..<positions.count {
                    let value = statement.value(at: positions[index])
                    if index < writers.count, !writers[index](model, value), failed == nil { failed = index }
                    (buffer + index).initialize(to: value)
                }
            }
        } else {
            // Attributes left out keep their initial values (NULL in the snapshot) until read.
            snapshot = StoredValues.make(count: positions.count) { buffer in
                for index in 0..<positions.count {
                    guard positions[index] >= 0 else {
                        (buffer + index).initialize(to: .null)
                        continue
                    }
                    let value = statement.value(at: positions[index])
                    if index < writers.count, !writers[index](model, value), failed == nil { failed = index }
                    (buffer + index).initialize(to: value)
                }
            }
            model.persistentBackingData.unfetchedAttributes = plan.unfetched
        }
        if let failed {
            throw context.externalStorageError(plan.entity)
                ?? PersistenceError.invalidStoredValue(entity: plan.entity.name, attribute: plan.entity.attributes[failed].name,
                                                       value: snapshot[failed].description)
        }
        if !plan.entity.reencodedAttributeIndexes.isEmpty {
            // A transformer may not give back the very bytes it was given (a keyed archive):
            // the snapshot holds what the value stores as now, so an unchanged value is unchanged.
            var values = Array(snapshot)
            for index in plan.entity.reencodedAttributeIndexes where positions[index] >= 0 { values[index] = plan.entity.readers[index](model) }
            snapshot = StoredValues.make(values)
        }
        let backing = model.persistentBackingData
        backing.snapshot = snapshot
        backing._$attributesWritten = false  // an init() that sets properties wrote what the row replaced
        backing.relationshipsChanged = !backing.relationships.isEmpty  // nothing loaded: the row's
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
        plan = Self.plan(for: sub, selected: selected)
    }
}
