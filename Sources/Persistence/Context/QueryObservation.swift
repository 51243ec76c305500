import Foundation
import Observation
import SQLite

/// Something the container tells after every save (query observations).
protocol SaveObserving: AnyObject {
    /// Entity names whose saves matter to the observer.
    var observedEntities: Set<String> { get }
    func containerDidSave(entities: Set<String>)
}

struct WeakSaveObserver {
    weak var observer: (any SaveObserving)?
}

/// A live query, the equivalent of SwiftData's `@Query`: the results of a descriptor, fetched
/// again after every save that touches its entity, by any context of the container.
///
/// ```swift
/// let query = try QueryObservation(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front)]), in: container.mainContext)
/// query.onChange = { cards in print(cards.count) }
/// for await ids in query.identifierUpdates() { … }   // from another task
/// ```
///
/// The class is `@Observable`, so a SwiftUI view (where available) reading ``results``
/// redraws when they change. Results are models of `context`: models that other contexts
/// saved are re-read into it first (those with unsaved changes here are left alone).
/// The refetch runs on the thread of the save that caused it, so use the observation on
/// the thread its context lives on, or consume ``identifierUpdates()`` from elsewhere.
/// The observation lasts as long as the object does (or until ``cancel()``).
@Observable
public final class QueryObservation<T: PersistentModel>: SaveObserving {
    /// The current results.
    public private(set) var results: [T] = []
    /// The error of the last refetch, if it failed (results then keep their last value).
    public private(set) var lastError: (any Error)?

    /// Called with fresh results after each refetch.
    @ObservationIgnored public var onChange: (([T]) -> Void)?
    @ObservationIgnored public let descriptor: FetchDescriptor<T>
    @ObservationIgnored public let context: ModelContext
    @ObservationIgnored let observedEntities: Set<String>
    @ObservationIgnored private var continuations: [UUID: AsyncStream<[PersistentIdentifier]>.Continuation] = [:]
    @ObservationIgnored private var cancelled = false

    /// Fetches the descriptor now and starts observing saves.
    /// - Throws: what ``ModelContext/fetch(_:)`` throws for the first fetch.
    public init(_ descriptor: FetchDescriptor<T>, in context: ModelContext) throws {
        guard let entity = context.container.schema.entity(for: T.self) else { throw PersistenceError.unknownEntity(T.entityName) }
        self.descriptor = descriptor
        self.context = context
        self.observedEntities = Set(descriptor.includeSubclasses ? entity.entityNamesIncludingSubentities : [entity.name])
        self.results = try context.fetch(descriptor)
        context.container.addObserver(self)
    }

    deinit {
        for continuation in continuations.values { continuation.finish() }
    }

    /// Stops observing; streams finish.
    public func cancel() {
        cancelled = true
        context.container.removeObserver(self)
        for continuation in continuations.values { continuation.finish() }
        continuations.removeAll()
    }

    /// The identifiers of the results after every refetch, starting with the current ones;
    /// `Sendable`, so another task can follow the query and fetch in its own context.
    public func identifierUpdates() -> AsyncStream<[PersistentIdentifier]> {
        let (stream, continuation) = AsyncStream<[PersistentIdentifier]>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        continuation.yield(results.map(\.persistentModelID))
        if cancelled { continuation.finish() } else { continuations[id] = continuation }
        return stream
    }

    /// Fetches again (also called after saves).
    public func refresh() {
        do {
            try context.refreshRegistered(entityNames: observedEntities)
            results = try context.fetch(descriptor)
            lastError = nil
        } catch {
            lastError = error
            return
        }
        onChange?(results)
        let ids = results.map(\.persistentModelID)
        for continuation in continuations.values { continuation.yield(ids) }
    }

    func containerDidSave(entities: Set<String>) {
        guard !cancelled else { return }
        refresh()
    }
}

extension ModelContext {
    /// Re-reads the registered models of these entities' tables that have no unsaved
    /// changes, so that saves of other contexts show here, and forgets the ones whose rows
    /// are gone.
    func refreshRegistered(entityNames: Set<String>) throws {
        var roots: [ObjectIdentifier: Schema.Entity] = [:]
        for name in entityNames {
            if let root = schema.entity(named: name)?.rootEntity { roots[ObjectIdentifier(root)] = root }
        }
        for root in roots.values {
            guard let table = registry[tableKey(root)] else { continue }
            let keys = table.models.filter { $0.persistentBackingData.state == .registered && !isChanged($0) }
                .map { $0.persistentBackingData.primaryKey }
            guard !keys.isEmpty else { continue }
            var found: Set<Int64> = []
            try container.store(for: root).withDatabase { db in
                for start in stride(from: 0, to: keys.count, by: 500) {
                    let chunk = Array(keys[start..<min(start + 500, keys.count)])
                    let sql = "SELECT " + root.selectColumns.map { "t0." + quoteIdentifier($0) }.joined(separator: ", ")
                        + " FROM \(quoteIdentifier(root.tableName)) t0 WHERE t0.\"pk\" IN (" + chunk.map { _ in "?" }.joined(separator: ",") + ")"
                    do {
                        let statement = try db.prepare(sql)
                        try statement.bind(chunk.map { .integer($0) })
                        while try statement.step() {
                            let pk = statement.int64(at: 0)
                            found.insert(pk)
                            if let model = registry[tableKey(root)]?[pk] { try reload(model, from: statement) }
                        }
                    } catch { throw PersistenceError.wrap(error) }
                }
            }
            for pk in keys where !found.contains(pk) {
                guard let model = registry[tableKey(root)]?[pk] else { continue }
                registry[tableKey(root)]?[pk] = nil
                model.persistentBackingData.state = .deleted
                model.persistentBackingData.context = nil
            }
        }
    }

    /// Overwrites an unchanged model's attributes and stored values with the current row.
    private func reload(_ model: any PersistentModel, from statement: Statement) throws {
        guard let entity = entity(of: model) else { return }
        let attributes = entity.attributes
        var snapshot: [SQLValue] = []
        snapshot.reserveCapacity(entity.selectPositions.count)
        for (index, position) in entity.selectPositions.enumerated() {
            let value = statement.value(at: position)
            if index < attributes.count, attributes[index].read(model) != value, !attributes[index].write(model, value) {
                throw externalStorageError(entity) ?? PersistenceError.invalidStoredValue(entity: entity.name, attribute: attributes[index].name, value: value.description)
            }
            snapshot.append(value)
        }
        let backing = model.persistentBackingData
        backing._$attributesWritten = false  // its attributes are the row's now
        if !(backing.snapshot.map { $0.elementsEqual(snapshot) } ?? false) {
            backing.snapshot = StoredValues.make(snapshot)
            // Relationships load again from the new values.
            backing.relationships.removeAll()
        }
    }
}
