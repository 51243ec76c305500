import Foundation
import Observation

// What the accessors `@Model` generates call. They are public because the generated code
// lives in the model's module; the `_$` names keep them out of the way of a model's own.

extension PersistentModel where Self: Observable {
    /// Tells an enclosing `withObservationTracking` that `keyPath` was read.
    @inlinable
    public func _$access<V>(_ keyPath: KeyPath<Self, V>) {
        let backing = persistentBackingData
        if !backing.unfetchedAttributes.isEmpty { _$readUnfetched() }
        backing.observationRegistrar().access(self, keyPath: keyPath)
    }

    /// Tells observers, if any, that `keyPath` is about to change.
    @inlinable
    public func _$willSet<V>(_ keyPath: KeyPath<Self, V>) {
        let backing = persistentBackingData
        if !backing.unfetchedAttributes.isEmpty { _$readUnfetched() }
        backing.registrar?.willSet(self, keyPath: keyPath)
    }

    /// Tells observers, if any, that `keyPath` changed.
    @inlinable
    public func _$didSet<V>(_ keyPath: KeyPath<Self, V>) {
        persistentBackingData.registrar?.didSet(self, keyPath: keyPath)
    }

    // MARK: Properties of a type the macro can't classify (an enum, a struct or a model)

    /// An attribute kept in storage of its own type.
    @inlinable
    public func _$get<V>(_ keyPath: KeyPath<Self, V>, _ storage: V) -> V {
        _$access(keyPath)
        return storage
    }

    /// An optional to-one relationship (the storage is unused).
    @inlinable
    public func _$get<T: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Self, T?>, _ storage: T?) -> T? {
        _$access(keyPath)
        return getValue(forKey: keyPath)
    }

    /// A to-many relationship (the storage is unused).
    @inlinable
    public func _$get<T: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Self, [T]>, _ storage: [T]) -> [T] {
        _$access(keyPath)
        return getValue(forKey: keyPath)
    }

    /// A non-optional attribute kept in optional storage: set by every initializer (the
    /// compiler sees to it), so nil only in a model the context is still filling from a row.
    @inlinable
    public func _$getUnwrapped<V>(_ keyPath: KeyPath<Self, V>, _ storage: V?) -> V {
        _$access(keyPath)
        guard let storage else { preconditionFailure("\(Self.self).\(keyPath) was read before it was set") }
        return storage
    }

    /// A non-optional to-one relationship (the storage is unused).
    @inlinable
    public func _$getUnwrapped<T: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Self, T>, _ storage: T?) -> T {
        _$access(keyPath)
        return getValue(forKey: keyPath)
    }

    @inlinable
    public func _$set<V>(_ keyPath: KeyPath<Self, V>, _ newValue: V, storage: ReferenceWritableKeyPath<Self, V>) {
        _$willSet(keyPath)
        self[keyPath: storage] = newValue
        _$didSet(keyPath)
    }

    @inlinable
    public func _$set<T: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Self, T?>, _ newValue: T?, storage: ReferenceWritableKeyPath<Self, T?>) {
        _$willSet(keyPath)
        setValue(forKey: keyPath, to: newValue)
        _$didSet(keyPath)
    }

    @inlinable
    public func _$set<T: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Self, [T]>, _ newValue: [T], storage: ReferenceWritableKeyPath<Self, [T]>) {
        _$willSet(keyPath)
        setValue(forKey: keyPath, to: newValue)
        _$didSet(keyPath)
    }

    @inlinable
    public func _$setUnwrapped<V>(_ keyPath: KeyPath<Self, V>, _ newValue: V, storage: ReferenceWritableKeyPath<Self, V?>) {
        _$willSet(keyPath)
        self[keyPath: storage] = newValue
        _$didSet(keyPath)
    }

    @inlinable
    public func _$setUnwrapped<T: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Self, T>, _ newValue: T, storage: ReferenceWritableKeyPath<Self, T?>) {
        _$willSet(keyPath)
        setValue(forKey: keyPath, to: newValue)
        _$didSet(keyPath)
    }
}

extension PersistentModel {
    /// Reads the attributes a `propertiesToFetch` fetch left out (see
    /// ``ModelContext/readUnfetchedAttributes(of:)``).
    @usableFromInline
    func _$readUnfetched() {
        if let context = persistentBackingData.context {
            context.readUnfetchedAttributes(of: self)
        } else {
            persistentBackingData.unfetchedAttributes = []
        }
    }

    /// The destination of a non-optional to-one relationship (`var photo: Photo`).
    ///
    /// A model must be given the destination before anything reads it, as in SwiftData;
    /// reading it before then (or when the store holds no destination for the row) stops the
    /// program with a message naming the relationship.
    public func getValue<T: PersistentModel>(forKey keyPath: ReferenceWritableKeyPath<Self, T>) -> T {
        if case .toOne(let target as T)? = persistentBackingData.relationships[keyPath] { return target }
        if let context = persistentBackingData.context {
            do {
                if let loaded = try context.loadToOne(of: self, keyPath: keyPath) as? T { return loaded }
            } catch {
                preconditionFailure("\(Self.self).\(keyPath) could not be read: \(error)")
            }
        }
        preconditionFailure("\(Self.self).\(keyPath) is a non-optional relationship that has no destination")
    }

    /// Sets a non-optional to-one relationship, keeping its inverse in step.
    public func setValue<T: PersistentModel>(forKey keyPath: ReferenceWritableKeyPath<Self, T>, to newValue: T) {
        var old: T? = nil
        if case .toOne(let target)? = persistentBackingData.relationships[keyPath] {
            old = target as? T
        } else if let context = persistentBackingData.context {
            old = (try? context.loadToOne(of: self, keyPath: keyPath)) as? T
        }
        if let context = persistentBackingData.context, context.undoState.isEnabled, old !== newValue { context.recordUndo(.relationship(self, keyPath)) }
        persistentBackingData.relationships[keyPath] = .toOne(newValue)
        guard old !== newValue else { return }
        guard let context = persistentBackingData.context ?? newValue.persistentBackingData.context ?? old?.persistentBackingData.context else {
            linkInversesOutsideContext(keyPath, removed: old.map { [$0] } ?? [], added: [newValue])
            return
        }
        if persistentBackingData.context == nil { context.insertModel(self) }
        if newValue.persistentBackingData.context == nil { context.insertModel(newValue) }
        context.relationshipDidChange(self, keyPath: keyPath, removed: old.map { [$0] } ?? [], added: [newValue])
    }
}
