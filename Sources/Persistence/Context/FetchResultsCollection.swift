import Foundation
import SQLite

/// The result of ``ModelContext/fetch(_:batchSize:)``: a random-access collection of models
/// read from the store one batch at a time, with at most two batches held.
///
/// Like the models in it, the collection belongs to its context's thread.
public struct FetchResultsCollection<Element: PersistentModel>: RandomAccessCollection {
    let storage: FetchResultsStorage<Element>

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }

    /// The model at `position`, reading its batch first when needed.
    public subscript(position: Int) -> Element { storage.model(at: position) }

    /// The error of the last batch that couldn't be read, if any (its elements were given as
    /// empty detached models, and the context's next save throws it).
    public var loadError: (any Error)? { storage.loadError }
}

final class FetchResultsStorage<T: PersistentModel> {
    private let context: ModelContext?
    private let entity: Schema.Entity?
    private let keys: [Int64]
    private let batchSize: Int
    /// Every model, for a collection made from a plain fetch.
    private let models: [T]?
    /// The held batches by number, the most recently used last.
    private var batches: [(number: Int, models: [T], fresh: [Int64])] = []
    private(set) var loadError: (any Error)?
    private static var heldBatches: Int { 2 }

    init(context: ModelContext, entity: Schema.Entity, keys: [Int64], batchSize: Int) {
        self.context = context
        self.entity = entity
        self.keys = keys
        self.batchSize = batchSize
        self.models = nil
    }

    init(models: [T]) {
        self.context = nil
        self.entity = nil
        self.keys = []
        self.batchSize = max(1, models.count)
        self.models = models
    }

    var count: Int { models?.count ?? keys.count }

    func model(at position: Int) -> T {
        if let models { return models[position] }
        precondition(position >= 0 && position < keys.count, "index out of range")
        let number = position / batchSize
        if let held = batches.lastIndex(where: { $0.number == number }) {
            if held != batches.count - 1 { batches.append(batches.remove(at: held)) }
            return batches[batches.count - 1].models[position - number * batchSize]
        }
        do {
            try load(batch: number)
        } catch {
            loadError = error
            context?.recordDeferredError(error)
            let blanks = (0..<min(batchSize, keys.count - number * batchSize)).compactMap { _ in entity?.make() as? T }
            batches.append((number, blanks, []))
            trim()
        }
        return batches[batches.count - 1].models[position - number * batchSize]
    }

    /// Reads batch `number` into the context (rows already registered are reused).
    func load(batch number: Int) throws {
        guard let context, let entity else { return }
        let start = number * batchSize
        guard start < keys.count else { return }
        let wanted = Array(keys[start..<min(start + batchSize, keys.count)])
        let table = context.identityTable(entity)
        let fresh = wanted.filter { table[$0] == nil }
        try context.fetchRows(entity: entity, primaryKeys: fresh)
        var loaded: [T] = []
        loaded.reserveCapacity(wanted.count)
        for key in wanted {
            guard let model = table[key] as? T else {
                throw PersistenceError.modelNotFound(PersistentIdentifier(storeIdentifier: context.container.store(for: entity).identifier,
                                                                          entityName: entity.name, primaryKey: key))
            }
            loaded.append(model)
        }
        batches.append((number, loaded, fresh))
        trim()
    }

    /// Drops the least recently used batches beyond the held number; their freshly read,
    /// unchanged models leave the context.
    private func trim() {
        while batches.count > Self.heldBatches {
            let dropped = batches.removeFirst()
            guard let context, let entity else { continue }
            let table = context.identityTable(entity)
            let stillHeld = Set(batches.flatMap { $0.models.map(ObjectIdentifier.init) })
            for key in dropped.fresh {
                guard let model = table[key], !stillHeld.contains(ObjectIdentifier(model)),
                      model.persistentBackingData.state == .registered, !context.isChanged(model) else { continue }
                _ = table.removeValue(forKey: key)
                model.persistentBackingData.state = .detached
                model.persistentBackingData.context = nil
            }
        }
    }
}
