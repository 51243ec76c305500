import Foundation

/// Runs a model context's work: the executor of a ``ModelActor``, as in SwiftData.
public protocol ModelExecutor: AnyObject, Sendable {
    /// The context the executor's jobs use.
    var modelContext: ModelContext { get }
}

/// A model executor that runs one job at a time, so an actor can use it as its executor.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// The executor `@ModelActor` gives an actor: a serial queue of its own, so the actor's
/// context is only ever used by one job at a time, off the main thread.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    // Sendable: the context is used only by the jobs this executor runs, one at a time.
    public let modelContext: ModelContext
    private let queue: DispatchQueue

    /// An executor for `modelContext` (a context made for it; autosave stays off).
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        self.queue = DispatchQueue(label: "Persistence.DefaultSerialModelExecutor")
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// An actor that owns a model context and does its work on it, as SwiftData's `ModelActor`
/// (declared by hand here, or by the `@ModelActor` macro):
///
/// ```swift
/// actor Importer: ModelActor {
///     nonisolated let modelExecutor: any ModelExecutor
///     nonisolated let modelContainer: ModelContainer
///     init(modelContainer: ModelContainer) {
///         self.modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
///         self.modelContainer = modelContainer
///     }
///     func add(_ fronts: [String]) throws -> [PersistentIdentifier] {
///         let cards = fronts.map { Card(front: $0, back: "") }
///         for card in cards { modelContext.insert(card) }
///         try modelContext.save()
///         return cards.map(\.persistentModelID)
///     }
/// }
/// ```
///
/// The actor runs on its executor, so its `modelContext` is used by one job at a time; pass
/// ``PersistentIdentifier``s (which are `Sendable`) in and out, never models.
public protocol ModelActor: Actor {
    /// The container of the actor's context.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor the actor runs on; it must be a ``SerialModelExecutor``.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor's executor: its model executor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        guard let serial = modelExecutor as? any SerialModelExecutor else {
            preconditionFailure("a ModelActor's modelExecutor must be a SerialModelExecutor (DefaultSerialModelExecutor)")
        }
        return serial.asUnownedSerialExecutor()
    }

    /// The actor's context.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The model with an identifier, if it exists and has that type. A store that can't be
    /// read gives nil too, and the context's next save throws the error.
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as type: T.Type) -> T? {
        do { return try modelContext.model(for: id) as? T }
        catch PersistenceError.modelNotFound(_) { return nil }
        catch {
            modelContext.recordDeferredError(error)
            return nil
        }
    }
}
