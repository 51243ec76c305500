import Foundation
import SQLite

/// The owner of a schema and its stores: the object an app creates once per document.
///
/// ```swift
/// let container = try ModelContainer(for: Card.self,
///     configurations: ModelConfiguration(url: storeURL))
/// let context = container.mainContext
/// ```
///
/// A container with several configurations keeps each configuration's models in its own
/// store file. Two containers share nothing, so many documents can be open at once.
/// Containers are `Sendable`; create a ``ModelContext`` per task to work on another task.
public final class ModelContainer: @unchecked Sendable {
    /// The schema of every model the container stores.
    public let schema: Schema
    /// The configurations, in the order given.
    public let configurations: [ModelConfiguration]
    let stores: [Store]
    private let lock = NSLock()
    private var _mainContext: ModelContext?
    private var closed = false
    private var historyEnabled = false
    /// Query observations, held weakly (see QueryObservation.swift).
    private var observers: [WeakSaveObserver] = []

    /// Creates a container for model types (and the types their relationships reach).
    ///
    /// With no configuration, the store is a file in the program's default location, as in
    /// SwiftData: `default.store` in ``ModelConfiguration/defaultStoreDirectory(environment:programName:)``
    /// (`~/.local/share/<program>/`). Ask for memory with `isStoredInMemoryOnly: true` or a
    /// configuration.
    /// - Throws: ``PersistenceError`` when a store can't be opened, is newer than the schema,
    ///   or doesn't match it.
    public convenience init(for types: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: ModelConfiguration...) throws {
        try self.init(for: Schema(types), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Creates a container for model types in memory (previews, tests) or in the default
    /// location (SwiftUI's `.modelContainer(for:isStoredInMemoryOnly:)`, as an initializer).
    public convenience init(for types: any PersistentModel.Type..., isStoredInMemoryOnly: Bool) throws {
        try self.init(for: Schema(types), configurations: [ModelConfiguration(isStoredInMemoryOnly: isStoredInMemoryOnly)])
    }

    /// Creates a container for a schema, migrating stores with `migrationPlan` when needed.
    public convenience init(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: ModelConfiguration...) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Creates a container for a schema, migrating stores with `migrationPlan` when needed;
    /// an empty list means one store in the default location.
    public init(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                configurations: [ModelConfiguration]) throws {
        let schema = schema.forContainer()
        self.schema = schema
        let configurations = configurations.isEmpty ? [ModelConfiguration()] : configurations
        self.configurations = configurations
        // Assign every entity hierarchy to the first configuration that names it, else to the
        // first configuration without a subset.
        var assignment: [Int: [Schema.Entity]] = [:]
        let fallback = configurations.firstIndex { $0.schemaTypeNames == nil } ?? 0
        for entity in schema.entities {
            let root = entity.rootEntity.name
            let index = configurations.firstIndex { $0.schemaTypeNames?.contains(root) == true } ?? fallback
            entity.storeIndex = index
            assignment[index, default: []].append(entity)
        }
        var stores: [Store] = []
        for (index, configuration) in configurations.enumerated() {
            let store = try Store(configuration: configuration, entities: assignment[index] ?? [], index: index)
            Self.attachExternalStorage(to: store)
            try StoreSetup(store: store, schema: schema, migrationPlan: migrationPlan).run()
            stores.append(store)
        }
        self.stores = stores
    }

    /// A container over an already open store, with another schema version: the context a
    /// custom migration stage hands to `willMigrate` / `didMigrate`. Closing it leaves the
    /// store open.
    init(migrating schema: Schema, sharing store: Store) {
        let schema = schema.forContainer()
        self.schema = schema
        self.configurations = [store.configuration]
        for entity in schema.entities { entity.storeIndex = 0 }
        let view = Store(sharing: store, entities: schema.entities)
        Self.attachExternalStorage(to: view)
        self.stores = [view]
    }

    /// Gives a store (and its entities) external storage when one of them needs it.
    private static func attachExternalStorage(to store: Store) {
        guard store.entities.contains(where: { !$0.externalAttributeIndexes.isEmpty }) else { return }
        let storage = ExternalStorage(store: store, entities: store.entities)
        store.externalStorage = storage
        for entity in store.entities { entity.externalStorage = storage }
    }

    deinit { closeStores() }

    /// The main context: autosave on, as in SwiftData, and isolated to the main actor as
    /// there (its autosave checks run on the main queue).
    @MainActor public var mainContext: ModelContext { sharedMainContext }

    /// The same context as ``mainContext``, reachable from any isolation, for code that
    /// owns a container on one thread and predates actors (a command-line document: see
    /// DeckDocument). The caller keeps all use of it on one thread at a time; autosave's
    /// checks still run on the main queue, so turn autosave off when the main loop isn't
    /// running or the context is used on another thread.
    public var sharedMainContext: ModelContext {
        lock.lock()
        defer { lock.unlock() }
        if let context = _mainContext { return context }
        let context = ModelContext(self)
        context.autosaveEnabled = true
        _mainContext = context
        return context
    }

    func store(for entity: Schema.Entity) -> Store { stores[entity.storeIndex] }

    /// Deletes every row of every model in every store.
    public func deleteAllData() throws {
        for store in stores {
            try store.withDatabase { db in
                guard store.configuration.allowsSave else { throw PersistenceError.readOnlyStore(path: store.path) }
                do {
                    try db.transaction {
                        let tables = try db.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> ?", [.text(Schema.metadataTable)])
                        for case .text(let table)? in tables.map(\.first) {
                            try db.execute("DELETE FROM \(quoteIdentifier(table))")
                        }
                    }
                } catch { throw PersistenceError.wrap(error) }
            }
        }
        _mainContext?.resetAfterExternalChange()
    }

    /// Saves the main context if autosave is on, checkpoints and closes every store.
    ///
    /// Afterwards a file store is a single file with no `-wal` or `-shm` beside it. Further
    /// use of the container or its contexts fails.
    public func close() throws {
        if let context = _mainContext, context.autosaveEnabled, context.hasChanges, stores.allSatisfy({ $0.configuration.allowsSave }) {
            try context.save()
        }
        try? removeUnreferencedExternalStorage()
        closeStores()
    }

    func addObserver(_ observer: any SaveObserving) {
        lock.lock()
        defer { lock.unlock() }
        observers.removeAll { $0.observer == nil }
        observers.append(WeakSaveObserver(observer: observer))
    }

    func removeObserver(_ observer: any SaveObserving) {
        lock.lock()
        defer { lock.unlock() }
        observers.removeAll { $0.observer == nil || $0.observer === observer }
    }

    private func liveObservers() -> [any SaveObserving] {
        lock.lock()
        defer { lock.unlock() }
        return observers.compactMap(\.observer)
    }

    /// Whether saves record a transaction in the change history (see ``fetchHistory(after:)``).
    ///
    /// Off by default: a save then costs one more row per store, with the identifiers of
    /// every model it wrote. Turn it on before the saves that readers must see.
    public var isHistoryEnabled: Bool {
        get { lock.lock(); defer { lock.unlock() }; return historyEnabled }
        set { lock.lock(); historyEnabled = newValue; lock.unlock() }
    }

    /// Whether ``close()`` ran.
    var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }

    private func closeStores() {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        closed = true
        for store in stores { store.close() }
    }

    /// Runs `body` with the raw connection of the store holding `type` (for bookkeeping,
    /// full-text indexes and other SQL a model layer can't express).
    public func withDatabase<T>(for type: any PersistentModel.Type, _ body: (Database) throws -> T) throws -> T {
        guard let entity = schema.entity(forType: type) else { throw PersistenceError.unknownEntity(type.entityName) }
        return try store(for: entity).withDatabase(body)
    }
}

extension ModelContainer {
    /// Called after any context of this container saved changes to these entities: tells
    /// every live query observation that watches one of them.
    func notifySaved(entities: Set<String>) {
        guard !entities.isEmpty else { return }
        removeReplacedExternalStorage()
        for observer in liveObservers() where !observer.observedEntities.isDisjoint(with: entities) {
            observer.containerDidSave(entities: entities)
        }
    }
}
