import Foundation
import Observation
import SQLite

// The schema lines `@Model` generates. A macro model keeps each attribute in a private
// backing stored property (`_front` behind `front`), so the context reads and writes it in
// place while the public property is an observable accessor. These factories take both key
// paths: the public one names the attribute (predicates, sorts, observers), the storage one
// is where the value lives. Both are autoclosures, made only when first used: the storage
// key path when the attribute is first read or written (see `StoredProperty`), the public one
// when a predicate, a sort or an observer asks for it (`Schema.Attribute.keyPath`), not for
// every attribute of every model when a schema is built.
//
// `storage:` holds the value with the property's own type; `unwrappedStorage:` holds it as an
// optional for a non-optional property of a type the macro can't give a placeholder value
// (an enum, a struct): it is nil only until an initializer sets the property.

extension Schema.PropertyMetadata {
    /// An attribute over backing storage: observed writes (rollback, undo, another context's
    /// save) tell the model's observers; writes into a model just made from a row don't.
    @inlinable
    static func storedAttribute<M: PersistentModel & Observable, V, S>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, S>,
        options: Set<Schema.Attribute.Option>, originalName: String?, isOptional: Bool, sqlType: String,
        encode: @escaping (S) -> SQLValue, decode: @escaping (SQLValue) -> S?, bind: @escaping (S, Statement, Int32) -> Void
    ) -> Self {
        let property = StoredProperty(lazy: storage, same: { encode($0) == encode($1) })
        let source = Schema.Attribute.KeyPathSource(lazy: keyPath)
        return Self(kind: .attribute(Schema.Attribute(
            name: name, keyPath: source, options: options, originalName: originalName,
            isOptional: isOptional, sqlType: sqlType, valueTypeName: _typeName(V.self, qualified: false),
            read: { encode(property.get($0)) },
            write: { object, value in
                guard let converted = decode(value) else { return false }
                let model = unsafeDowncast(object, to: M.self)
                if model.persistentBackingData.hasRegistrar, let registrar = model.persistentBackingData.registrar {
                    let keyPath = unsafeDowncast(source.keyPath, to: KeyPath<M, V>.self)
                    registrar.willSet(model, keyPath: keyPath)
                    property.set(object, converted)
                    registrar.didSet(model, keyPath: keyPath)
                } else {
                    property.set(object, converted)
                }
                return true
            },
            materialize: { object, value in
                guard let converted = decode(value) else { return false }
                property.set(object, converted)
                return true
            },
            bind: { object, statement, index in bind(property.get(object), statement, index) },
            resolve: { prototype in property.resolve(prototype: prototype) { encode($0) == encode($1) } },
            faultsOnAccess: true)))
    }

    // MARK: Values that convert to a column (numbers, strings, dates, data, UUID, URL, Decimal)

    /// An attribute of a `@Model` class kept in backing storage of its own type.
    ///
    /// The common case, written out rather than through ``storedAttribute``: its accessors
    /// call the conversions directly instead of through captured closures, which is what a
    /// fetch and a save run per row and column (the hand-written model's factory has the
    /// same shape).
    @inlinable
    public static func _$column<M: PersistentModel & Observable, V: DatabaseValueConvertible>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self {
        let property = StoredProperty(lazy: storage, same: { $0.databaseValue == $1.databaseValue })
        let source = Schema.Attribute.KeyPathSource(lazy: keyPath)
        return Self(kind: .attribute(Schema.Attribute(
            name: name, keyPath: source, options: options, originalName: originalName,
            isOptional: V.isDatabaseOptional, sqlType: sqlType(for: V.self),
            valueTypeName: _typeName(V.self, qualified: false),
            read: { property.get($0).databaseValue },
            write: { object, value in
                guard let converted = V.fromDatabaseValue(value) else { return false }
                let model = unsafeDowncast(object, to: M.self)
                if model.persistentBackingData.hasRegistrar, let registrar = model.persistentBackingData.registrar {
                    let keyPath = unsafeDowncast(source.keyPath, to: KeyPath<M, V>.self)
                    registrar.willSet(model, keyPath: keyPath)
                    property.set(object, converted)
                    registrar.didSet(model, keyPath: keyPath)
                } else {
                    property.set(object, converted)
                }
                return true
            },
            materialize: { object, value in
                guard let converted = V.fromDatabaseValue(value) else { return false }
                property.set(object, converted)
                return true
            },
            bind: { object, statement, index in property.get(object).bind(to: statement, at: index) },
            resolve: { prototype in property.resolve(prototype: prototype) { $0.databaseValue == $1.databaseValue } },
            faultsOnAccess: true)))
    }

    /// An attribute of a `@Model` class kept in optional backing storage.
    @inlinable
    public static func _$columnUnwrapped<M: PersistentModel & Observable, V: DatabaseValueConvertible>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, unwrappedStorage storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self {
        storedAttribute(name, keyPath(), storage: storage(), options: options, originalName: originalName,
                        isOptional: false, sqlType: sqlType(for: V.self),
                        encode: { $0.databaseValue }, decode: { V.fromDatabaseValue($0).map { Optional($0) } },
                        bind: { value, statement, index in value.bind(to: statement, at: index) })
    }

    // MARK: Enums (stored as their raw value)

    /// An enum attribute of a `@Model` class, stored as its raw value.
    @inlinable
    public static func _$rawValue<M: PersistentModel & Observable, V: RawRepresentable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self where V.RawValue: DatabaseValueConvertible {
        storedAttribute(name, keyPath(), storage: storage(), options: options, originalName: originalName,
                        isOptional: false, sqlType: sqlType(for: V.RawValue.self),
                        encode: { $0.rawValue.databaseValue },
                        decode: { V.RawValue.fromDatabaseValue($0).flatMap(V.init(rawValue:)) },
                        bind: { value, statement, index in value.rawValue.bind(to: statement, at: index) })
    }

    /// An optional enum attribute of a `@Model` class, stored as its raw value or NULL.
    @inlinable
    public static func _$optionalRawValue<M: PersistentModel & Observable, V: RawRepresentable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V?>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self where V.RawValue: DatabaseValueConvertible {
        storedAttribute(name, keyPath(), storage: storage(), options: options, originalName: originalName,
                        isOptional: true, sqlType: sqlType(for: V.RawValue.self),
                        encode: { $0?.rawValue.databaseValue ?? .null },
                        decode: { value -> V?? in
                            if value.isNull { return .some(nil) }
                            return V.RawValue.fromDatabaseValue(value).flatMap(V.init(rawValue:)).map { Optional($0) }
                        },
                        bind: { value, statement, index in value?.rawValue.bind(to: statement, at: index) ?? statement.bind(.null, at: index) })
    }

    /// A non-optional enum attribute of a `@Model` class kept in optional backing storage.
    @inlinable
    public static func _$rawValueUnwrapped<M: PersistentModel & Observable, V: RawRepresentable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, unwrappedStorage storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self where V.RawValue: DatabaseValueConvertible {
        storedAttribute(name, keyPath(), storage: storage(), options: options, originalName: originalName,
                        isOptional: false, sqlType: sqlType(for: V.RawValue.self),
                        encode: { $0?.rawValue.databaseValue ?? .null },
                        decode: { V.RawValue.fromDatabaseValue($0).flatMap(V.init(rawValue:)).map { Optional($0) } },
                        bind: { value, statement, index in value?.rawValue.bind(to: statement, at: index) ?? statement.bind(.null, at: index) })
    }

    // MARK: Codable values (stored as JSON text)

    /// A `Codable` attribute of a `@Model` class (a struct, an array, a dictionary), stored as
    /// JSON text with sorted keys.
    @inlinable
    public static func _$codable<M: PersistentModel & Observable, V: Codable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self {
        storedAttribute(name, keyPath(), storage: storage(), options: options, originalName: originalName,
                        isOptional: V.self is any OptionalProtocol.Type, sqlType: "TEXT",
                        encode: { encodeJSON($0) }, decode: { decodeJSON($0) },
                        bind: { value, statement, index in statement.bind(encodeJSON(value), at: index) })
    }

    /// A non-optional `Codable` attribute of a `@Model` class kept in optional backing storage.
    @inlinable
    public static func _$codableUnwrapped<M: PersistentModel & Observable, V: Codable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, unwrappedStorage storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self {
        storedAttribute(name, keyPath(), storage: storage(), options: options, originalName: originalName,
                        isOptional: false, sqlType: "TEXT",
                        encode: { $0.map { encodeJSON($0) } ?? .null },
                        decode: { value -> V?? in (decodeJSON(value) as V?).map { Optional($0) } },
                        bind: { value, statement, index in statement.bind(value.map { encodeJSON($0) } ?? .null, at: index) })
    }

    // MARK: Transformable values (stored as the Data a ValueTransformer makes)

    /// A `@Attribute(.transformable(by:))` attribute of a `@Model` class, of any type: the
    /// option's ``ValueTransformer`` makes the `Data` stored in a BLOB column and reads it back.
    @inlinable
    public static func _$transformed<M: PersistentModel & Observable, V>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option>, originalName: String? = nil
    ) -> Self {
        let transform = AttributeTransform(options: options)
        return storedAttribute(name, keyPath(), storage: storage(), options: options, originalName: originalName,
                               isOptional: V.self is any OptionalProtocol.Type, sqlType: "BLOB",
                               encode: { transformedColumnValue($0, transform) }, decode: { untransformedValue($0, transform) },
                               bind: { value, statement, index in statement.bind(transformedColumnValue(value, transform), at: index) })
    }

    /// A non-optional transformable attribute of a `@Model` class kept in optional storage.
    @inlinable
    public static func _$transformedUnwrapped<M: PersistentModel & Observable, V>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, unwrappedStorage storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V?>,
        options: Set<Schema.Attribute.Option>, originalName: String? = nil
    ) -> Self {
        let transform = AttributeTransform(options: options)
        return storedAttribute(name, keyPath(), storage: storage(), options: options, originalName: originalName,
                               isOptional: false, sqlType: "BLOB",
                               encode: { $0.map { transformedColumnValue($0, transform) } ?? .null },
                               decode: { value -> V?? in (untransformedValue(value, transform) as V?).map { Optional($0) } },
                               bind: { value, statement, index in
                                   statement.bind(value.map { transformedColumnValue($0, transform) } ?? .null, at: index)
                               })
    }

    // MARK: Properties whose type the macro can't classify

    // `@Model` can't tell from the syntax alone whether `var category: Category` is an enum,
    // a `Codable` struct or another model; it writes `persisted(...)` and these overloads
    // pick the attribute or the relationship from the type.

    @inlinable
    public static func persisted<M: PersistentModel & Observable, V: DatabaseValueConvertible>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { _$column(name, keyPath(), storage: storage(), options: options, originalName: originalName) }

    @inlinable
    public static func persisted<M: PersistentModel & Observable, V: RawRepresentable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self where V.RawValue: DatabaseValueConvertible { _$rawValue(name, keyPath(), storage: storage(), options: options, originalName: originalName) }

    @inlinable
    public static func persisted<M: PersistentModel & Observable, V: RawRepresentable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V?>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self where V.RawValue: DatabaseValueConvertible { _$optionalRawValue(name, keyPath(), storage: storage(), options: options, originalName: originalName) }

    @inlinable @_disfavoredOverload
    public static func persisted<M: PersistentModel & Observable, V: Codable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { _$codable(name, keyPath(), storage: storage(), options: options, originalName: originalName) }

    /// An optional to-one relationship declared without `@Relationship`.
    public static func persisted<M: PersistentModel & Observable, T: PersistentModel>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, T?>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, T?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { relationship(name, keyPath, originalName: originalName) }

    /// An optional to-many relationship declared without `@Relationship`.
    public static func persisted<M: PersistentModel & Observable, T: PersistentModel>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, [T]?>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, [T]?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { relationship(name, keyPath, originalName: originalName) }

    /// A to-many relationship declared without `@Relationship`.
    public static func persisted<M: PersistentModel & Observable, T: PersistentModel>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, [T]>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, [T]>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { relationship(name, keyPath, originalName: originalName) }

    @inlinable
    public static func persisted<M: PersistentModel & Observable, V: DatabaseValueConvertible>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, unwrappedStorage storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { _$columnUnwrapped(name, keyPath(), unwrappedStorage: storage(), options: options, originalName: originalName) }

    @inlinable
    public static func persisted<M: PersistentModel & Observable, V: RawRepresentable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, unwrappedStorage storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self where V.RawValue: DatabaseValueConvertible {
        _$rawValueUnwrapped(name, keyPath(), unwrappedStorage: storage(), options: options, originalName: originalName)
    }

    @inlinable @_disfavoredOverload
    public static func persisted<M: PersistentModel & Observable, V: Codable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, unwrappedStorage storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { _$codableUnwrapped(name, keyPath(), unwrappedStorage: storage(), options: options, originalName: originalName) }

    /// A non-optional to-one relationship declared without `@Relationship`.
    public static func persisted<M: PersistentModel & Observable, T: PersistentModel>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, T>, unwrappedStorage storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, T?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { relationship(name, keyPath, originalName: originalName) }
}

// MARK: Properties whose type the macro can't classify, by the shape of the type

// `@Model` sees whether such a type is written optional (`Category?`), as an array
// (`[Stop]`) or plain (`Category`), and names the overloads that can apply to that shape
// only: the type checker then weighs two to four candidates per schema line instead of every
// overload of `persisted`. Each calls the factory `persisted` would have chosen.

extension Schema.PropertyMetadata {
    /// An undecided plain type: a column value, an enum stored as its raw value, or JSON.
    @inlinable
    public static func _$persistedValue<M: PersistentModel & Observable, V: DatabaseValueConvertible>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { _$column(name, keyPath(), storage: storage(), options: options, originalName: originalName) }

    @inlinable
    public static func _$persistedValue<M: PersistentModel & Observable, V: RawRepresentable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self where V.RawValue: DatabaseValueConvertible { _$rawValue(name, keyPath(), storage: storage(), options: options, originalName: originalName) }

    @inlinable @_disfavoredOverload
    public static func _$persistedValue<M: PersistentModel & Observable, V: Codable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { _$codable(name, keyPath(), storage: storage(), options: options, originalName: originalName) }

    /// An undecided optional type: a column value, an enum's raw value or NULL, an optional
    /// to-one relationship, or JSON.
    @inlinable
    public static func _$persistedOptional<M: PersistentModel & Observable, V: DatabaseValueConvertible>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { _$column(name, keyPath(), storage: storage(), options: options, originalName: originalName) }

    @inlinable
    public static func _$persistedOptional<M: PersistentModel & Observable, V: RawRepresentable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V?>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self where V.RawValue: DatabaseValueConvertible { _$optionalRawValue(name, keyPath(), storage: storage(), options: options, originalName: originalName) }

    public static func _$persistedOptional<M: PersistentModel & Observable, T: PersistentModel>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, T?>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, T?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { relationship(name, keyPath, originalName: originalName) }

    public static func _$persistedOptional<M: PersistentModel & Observable, T: PersistentModel>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, [T]?>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, [T]?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { relationship(name, keyPath, originalName: originalName) }

    @inlinable @_disfavoredOverload
    public static func _$persistedOptional<M: PersistentModel & Observable, V: Codable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { _$codable(name, keyPath(), storage: storage(), options: options, originalName: originalName) }

    /// An undecided array type: a to-many relationship, or JSON.
    public static func _$persistedArray<M: PersistentModel & Observable, T: PersistentModel>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, [T]>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, [T]>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { relationship(name, keyPath, originalName: originalName) }

    @inlinable @_disfavoredOverload
    public static func _$persistedArray<M: PersistentModel & Observable, V: Codable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { _$codable(name, keyPath(), storage: storage(), options: options, originalName: originalName) }

    /// An undecided plain type without an initial value (kept in optional storage): a
    /// column value, an enum's raw value, JSON, or a non-optional to-one relationship.
    @inlinable
    public static func _$persistedUnwrapped<M: PersistentModel & Observable, V: DatabaseValueConvertible>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, unwrappedStorage storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { _$columnUnwrapped(name, keyPath(), unwrappedStorage: storage(), options: options, originalName: originalName) }

    @inlinable
    public static func _$persistedUnwrapped<M: PersistentModel & Observable, V: RawRepresentable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, unwrappedStorage storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self where V.RawValue: DatabaseValueConvertible {
        _$rawValueUnwrapped(name, keyPath(), unwrappedStorage: storage(), options: options, originalName: originalName)
    }

    @inlinable @_disfavoredOverload
    public static func _$persistedUnwrapped<M: PersistentModel & Observable, V: Codable>(
        _ name: String, _ keyPath: @autoclosure @escaping () -> KeyPath<M, V>, unwrappedStorage storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, V?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { _$codableUnwrapped(name, keyPath(), unwrappedStorage: storage(), options: options, originalName: originalName) }

    public static func _$persistedUnwrapped<M: PersistentModel & Observable, T: PersistentModel>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, T>, unwrappedStorage storage: @autoclosure @escaping () -> ReferenceWritableKeyPath<M, T?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self { relationship(name, keyPath, originalName: originalName) }
}
