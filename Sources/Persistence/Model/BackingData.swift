import Foundation
import Observation
import SQLite

/// The persistence state a context keeps inside each model: identity, the last stored
/// values, and relationship contents.
///
/// Declare it once per model as `let persistentBackingData = BackingData()` and leave it to
/// the context; it is the hand-written counterpart of `@Model`'s generated backing data.
/// It is a class so that the context reaches it through the protocol without copying.
public final class BackingData {
    enum State: UInt8 { case detached, inserted, registered, deleted }

    @exclusivity(unchecked) var state: State = .detached
    weak var context: ModelContext?
    /// The row's primary key once saved; the temporary number before.
    @exclusivity(unchecked) var primaryKey: Int64 = 0
    @exclusivity(unchecked) var storeIdentifier = ""
    /// Stored values (attributes, then to-one keys) as last fetched or saved; nil when new.
    @exclusivity(unchecked) var snapshot: StoredValues?
    /// Loaded or assigned relationship contents, by relationship key path. Every change of
    /// it sets ``relationshipsChanged``.
    @exclusivity(unchecked) var relationships: [AnyKeyPath: RelationshipContent] = [:] {
        didSet { relationshipsChanged = true }
    }
    /// Whether ``relationships`` may differ from the stored state (a to-one key other than the
    /// snapshot's, to-many links other than their `original`, a destination not yet in a
    /// context): set by every change of ``relationships`` (an assignment, an inverse kept in
    /// step, a lazy load), and true for a new model; cleared where the model is read from a
    /// row with nothing loaded and where a save has compared or written the model. While it
    /// is false, a save, ``ModelContext/hasChanges`` and `processPendingChanges` skip the
    /// model's relationships, so a save costs what changed, not what is registered (a study
    /// session answering card after card kept every card, note and review it touched).
    @exclusivity(unchecked) var relationshipsChanged = true
    /// The observation registrar of a `@Model` class, made on the first read through an
    /// accessor: until then nobody can be observing the model, so a setter skips the
    /// notification, and models the context makes and fills never pay for one.
    @exclusivity(unchecked) @usableFromInline var registrar: ObservationRegistrar?
    /// Whether ``registrar`` is set: what setters test. `ObservationRegistrar` belongs to a
    /// resilient module, so `registrar != nil` copies and destroys it through its value
    /// witnesses (about 500 instructions); `@Model` initializers that assign their
    /// attributes paid that four times a model when inserting 100,000.
    @exclusivity(unchecked) @usableFromInline var hasRegistrar = false

    /// The attributes (by index in the entity) a fetch with `propertiesToFetch` left out:
    /// the first read or write through an accessor reads them from the store. Empty for a
    /// model read whole.
    @exclusivity(unchecked) @usableFromInline var unfetchedAttributes: [Int] = []

    /// Whether an attribute of a `@Model` class may differ from ``snapshot``: set by every
    /// write through its accessors and by the context's own writes a save must store (undo);
    /// cleared where the stored values become the model's (a fetch, a save, a refresh, a
    /// rollback). While it is false a save and ``ModelContext/hasChanges`` know the attributes
    /// are unchanged without reading them, so a save costs what changed, not what is
    /// registered. Hand-written models have no accessors to set it and are always compared.
    @exclusivity(unchecked) public var _$attributesWritten = false

    public init() {}

    /// The registrar, made on first use.
    @usableFromInline
    func observationRegistrar() -> ObservationRegistrar {
        if let registrar { return registrar }
        let made = ObservationRegistrar()
        registrar = made
        hasRegistrar = true
        return made
    }

    /// Whether a setter `@Model` generates must take the slow path: something may be
    /// observing the model (an accessor was read), or attributes are still to be read.
    @inlinable
    public var _$isObserved: Bool { hasRegistrar || !unfetchedAttributes.isEmpty }

    func identifier(entityName: String) -> PersistentIdentifier {
        PersistentIdentifier(storeIdentifier: storeIdentifier, entityName: entityName,
                             primaryKey: primaryKey, isTemporary: state == .inserted || state == .detached)
    }
}

/// What a relationship currently holds in memory.
enum RelationshipContent {
    /// A to-one destination (nil for none).
    case toOne(AnyObject?)
    /// A to-many destination list; `original` is the list as last stored, for diffing links.
    case toMany(current: [AnyObject], original: [AnyObject]?)
}
