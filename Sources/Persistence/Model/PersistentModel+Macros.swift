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
        if backing.hasRegistrar { backing.registrar?.willSet(self, keyPath: keyPath) }
    }

    /// Tells observers, if any, that `keyPath` changed.
    @inlinable
    public func _$didSet<V>(_ keyPath: KeyPath<Self, V>) {
        let backing = persistentBackingData
        if backing.hasRegistrar { backing.registrar?.didSet(self, keyPath: keyPath) }
    }

    /// The setter of an attribute kept in backing storage of its own type: records the
    /// write for the next save and stores the value, between `willSet` and `didSet` when the
    /// model is observed. One call instead of the statements it stands for, which the type
    /// checker would check again in every property of every model.
    @inlinable
    public func _$write<V>(_ keyPath: KeyPath<Self, V>, _ newValue: V, _ storage: inout V) {
        let backing = persistentBackingData
        backing._$attributesWritten = true
        if backing._$isObserved {
            _$willSet(keyPath)
            storage = newValue
            _$didSet(keyPath)
        } else {
            storage = newValue
        }
    }

    // MARK: Relationships declared with `@Relationship`

    // One call per accessor, of a name chosen by the macro from the property's type as
    // written (`[T]`, `T?`, `T`), so the type checker has one candidate to match rather than
    // the three overloads of `getValue`/`setValue` plus the observation calls around them.

    /// The getter of a to-many relationship: observed, then read (loaded on first access).
    @inlinable
    public func _$getToMany<T: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Self, [T]>) -> [T] {
        _$access(keyPath)
        return getValue(forKey: keyPath)
    }

    /// The setter of a to-many relationship, between `willSet` and `didSet` of observers.
    @inlinable
    public func _$setToMany<T: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Self, [T]>, _ newValue: [T]) {
        _$willSet(keyPath)
        setValue(forKey: keyPath, to: newValue)
        _$didSet(keyPath)
    }

    /// The getter of an optional to-many relationship (`[T]?`).
    @inlinable
    public func _$getToManyOptional<T: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Self, [T]?>) -> [T]? {
        _$access(keyPath)
        return getValue(forKey: keyPath)
    }

    /// The setter of an optional to-many relationship; nil removes every member.
    @inlinable
    public func _$setToManyOptional<T: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Self, [T]?>, _ newValue: [T]?) {
        _$willSet(keyPath)
        setValue(forKey: keyPath, to: newValue)
        _$didSet(keyPath)
    }

    /// The getter of an optional to-one relationship.
    @inlinable
    public func _$getToOptional<T: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Self, T?>) -> T? {
        _$access(keyPath)
        return getValue(forKey: keyPath)
    }

    /// The setter of an optional to-one relationship.
    @inlinable
    public func _$setToOptional<T: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Self, T?>, _ newValue: T?) {
        _$willSet(keyPath)
        setValue(forKey: keyPath, to: newValue)
        _$didSet(keyPath)
    }

    /// The getter of a non-optional to-one relationship.
    @inlinable
    public func _$getToOne<T: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Self, T>) -> T {
        _$access(keyPath)
        return getValue(forKey: keyPath)
    }

    /// The setter of a non-optional to-one relationship.
    @inlinable
    public func _$setToOne<T: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Self, T>, _ newValue: T) {
        _$willSet(keyPath)
        setValue(forKey: keyPath, to: newValue)
        _$didSet(keyPath)
    }

    // MARK: Properties of a type the macro can't classify (an enum, a struct or a model)

    // One generic entry each, deciding at run time whether the value is a relationship: an
    // overload set here (attribute, to-one, to-many) made the type checker try every
    // candidate in every such accessor of every model, which is what made a module of
    // models slow to build. The schema line (`persisted`) still checks the type at compile time.

    /// An attribute kept in storage of its own type, or a relationship (`T?`, `[T]` of a
    /// model `T`; the storage is then unused).
    @inlinable
    public func _$get<V>(_ keyPath: KeyPath<Self, V>, _ storage: V) -> V {
        _$access(keyPath)
        if let relationship = V.self as? any UndecidedRelationship.Type, let value = relationship._$get(self, keyPath) as? V {
            return value
        }
        return storage
    }

    /// A non-optional attribute kept in optional storage (set by every initializer, so nil
    /// only in a model the context is still filling from a row), or a non-optional to-one
    /// relationship (the storage is unused).
    @inlinable
    public func _$getUnwrapped<V>(_ keyPath: KeyPath<Self, V>, _ storage: V?) -> V {
        _$access(keyPath)
        if let destination = V.self as? any PersistentModel.Type {
            if let value = destination._$destination(of: self, keyPath) as? V { return value }
            preconditionFailure("\(Self.self).\(keyPath) is not a relationship of the model")
        }
        guard let storage else { preconditionFailure("\(Self.self).\(keyPath) was read before it was set") }
        return storage
    }

    @inlinable
    public func _$set<V>(_ keyPath: KeyPath<Self, V>, _ newValue: V, storage: ReferenceWritableKeyPath<Self, V>) {
        persistentBackingData._$attributesWritten = true
        _$willSet(keyPath)
        if let relationship = V.self as? any UndecidedRelationship.Type {
            relationship._$set(self, keyPath, newValue)
        } else {
            self[keyPath: storage] = newValue
        }
        _$didSet(keyPath)
    }

    @inlinable
    public func _$setUnwrapped<V>(_ keyPath: KeyPath<Self, V>, _ newValue: V, storage: ReferenceWritableKeyPath<Self, V?>) {
        persistentBackingData._$attributesWritten = true
        _$willSet(keyPath)
        if let destination = V.self as? any PersistentModel.Type {
            destination._$setDestination(of: self, keyPath, newValue)
        } else {
            self[keyPath: storage] = newValue
        }
        _$didSet(keyPath)
    }
}

/// The relationship values a property of undecided type may hold: an optional to-one
/// (`T?`) or a to-many (`[T]`) of a model `T`, read and written through the relationship
/// machinery rather than the property's (unused) storage.
@usableFromInline
protocol UndecidedRelationship {
    /// The value of the relationship at `keyPath` of `owner`, as `Self`.
    static func _$get<Owner: PersistentModel>(_ owner: Owner, _ keyPath: AnyKeyPath) -> Any
    /// Sets the relationship at `keyPath` of `owner` to `value` (a `Self`).
    static func _$set<Owner: PersistentModel>(_ owner: Owner, _ keyPath: AnyKeyPath, _ value: Any)
}

extension Optional: UndecidedRelationship where Wrapped: OptionalRelationshipValue {
    @usableFromInline
    static func _$get<Owner: PersistentModel>(_ owner: Owner, _ keyPath: AnyKeyPath) -> Any {
        Wrapped._$getOptional(owner, keyPath)
    }

    @usableFromInline
    static func _$set<Owner: PersistentModel>(_ owner: Owner, _ keyPath: AnyKeyPath, _ value: Any) {
        Wrapped._$setOptional(owner, keyPath, value)
    }
}

/// What an optional relationship of undecided type can wrap: a model (`T?`, to-one) or an
/// array of models (`[T]?`, to-many). One protocol, because `Optional` can conform to
/// ``UndecidedRelationship`` only once.
public protocol OptionalRelationshipValue {
    /// The value of the optional relationship at `keyPath` of `owner`, as `Self?`.
    static func _$getOptional<Owner: PersistentModel>(_ owner: Owner, _ keyPath: AnyKeyPath) -> Any
    /// Sets the optional relationship at `keyPath` of `owner` to `value` (a `Self?`).
    static func _$setOptional<Owner: PersistentModel>(_ owner: Owner, _ keyPath: AnyKeyPath, _ value: Any)
}

extension PersistentModel {
    public static func _$getOptional<Owner: PersistentModel>(_ owner: Owner, _ keyPath: AnyKeyPath) -> Any {
        guard let keyPath = keyPath as? ReferenceWritableKeyPath<Owner, Self?> else {
            preconditionFailure("\(Owner.self).\(keyPath) is not a settable relationship")
        }
        return owner.getValue(forKey: keyPath) as Any
    }

    public static func _$setOptional<Owner: PersistentModel>(_ owner: Owner, _ keyPath: AnyKeyPath, _ value: Any) {
        guard let keyPath = keyPath as? ReferenceWritableKeyPath<Owner, Self?>, let value = value as? Self? else {
            preconditionFailure("\(Owner.self).\(keyPath) is not a settable relationship")
        }
        owner.setValue(forKey: keyPath, to: value)
    }
}

extension Array: OptionalRelationshipValue where Element: PersistentModel {
    public static func _$getOptional<Owner: PersistentModel>(_ owner: Owner, _ keyPath: AnyKeyPath) -> Any {
        guard let keyPath = keyPath as? ReferenceWritableKeyPath<Owner, [Element]?> else {
            preconditionFailure("\(Owner.self).\(keyPath) is not a settable relationship")
        }
        return owner.getValue(forKey: keyPath) as Any
    }

    public static func _$setOptional<Owner: PersistentModel>(_ owner: Owner, _ keyPath: AnyKeyPath, _ value: Any) {
        guard let keyPath = keyPath as? ReferenceWritableKeyPath<Owner, [Element]?>, let value = value as? [Element]? else {
            preconditionFailure("\(Owner.self).\(keyPath) is not a settable relationship")
        }
        owner.setValue(forKey: keyPath, to: value)
    }
}

extension Array: UndecidedRelationship where Element: PersistentModel {
    @usableFromInline
    static func _$get<Owner: PersistentModel>(_ owner: Owner, _ keyPath: AnyKeyPath) -> Any {
        guard let keyPath = keyPath as? ReferenceWritableKeyPath<Owner, [Element]> else {
            preconditionFailure("\(Owner.self).\(keyPath) is not a settable relationship")
        }
        return owner.getValue(forKey: keyPath)
    }

    @usableFromInline
    static func _$set<Owner: PersistentModel>(_ owner: Owner, _ keyPath: AnyKeyPath, _ value: Any) {
        guard let keyPath = keyPath as? ReferenceWritableKeyPath<Owner, [Element]>, let value = value as? [Element] else {
            preconditionFailure("\(Owner.self).\(keyPath) is not a settable relationship")
        }
        owner.setValue(forKey: keyPath, to: value)
    }
}

extension PersistentModel {
    /// The destination of `owner`'s non-optional to-one relationship at `keyPath` (whose
    /// destination type is `Self`).
    @usableFromInline
    static func _$destination<Owner: PersistentModel>(of owner: Owner, _ keyPath: AnyKeyPath) -> Any {
        guard let keyPath = keyPath as? ReferenceWritableKeyPath<Owner, Self> else {
            preconditionFailure("\(Owner.self).\(keyPath) is not a settable relationship")
        }
        return owner.getValue(forKey: keyPath)
    }

    /// Sets `owner`'s non-optional to-one relationship at `keyPath` to `value` (a `Self`).
    @usableFromInline
    static func _$setDestination<Owner: PersistentModel>(of owner: Owner, _ keyPath: AnyKeyPath, _ value: Any) {
        guard let keyPath = keyPath as? ReferenceWritableKeyPath<Owner, Self>, let value = value as? Self else {
            preconditionFailure("\(Owner.self).\(keyPath) is not a settable relationship")
        }
        owner.setValue(forKey: keyPath, to: value)
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
        let name = persistentBackingData.context?.entity(of: self)?.relationship(for: keyPath)?.name ?? "\(keyPath)"
        preconditionFailure("\(Self.self).\(name) is a non-optional relationship that has no destination")
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
