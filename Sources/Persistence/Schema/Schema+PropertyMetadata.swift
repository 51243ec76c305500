import Foundation
import SQLite

extension Schema {
    /// One line of a model's schema: an attribute, a relationship, a compound unique
    /// constraint or an index, the equivalents of `@Attribute`, `@Relationship`, `#Unique`
    /// and `#Index`.
    public struct PropertyMetadata: @unchecked Sendable {
        @usableFromInline
        enum Kind {
            case attribute(Attribute)
            case relationship(Relationship)
            case unique([AnyKeyPath])
            case index([AnyKeyPath])
            case uniqueIndex([AnyKeyPath])
        }
        let kind: Kind
        @usableFromInline
        init(kind: Kind) { self.kind = kind }
    }
}

private func unsafeModel<M: AnyObject>(_ object: AnyObject, as type: M.Type) -> M {
    unsafeDowncast(object, to: M.self)
}

extension Schema.PropertyMetadata {
    // MARK: Attributes

    /// An attribute of any type that converts to a database value (numbers, `Bool`,
    /// `String`, `Data`, `Date`, `UUID`, `URL`, `Decimal`, and optionals of each).
    ///
    /// Inlinable so that the accessors are specialised for the model's concrete types.
    @inlinable
    public static func attribute<M: PersistentModel, V: DatabaseValueConvertible>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self {
        let property = StoredProperty(keyPath)
        return Self(kind: .attribute(Schema.Attribute(
            name: name, keyPath: keyPath, options: options, originalName: originalName,
            isOptional: V.isDatabaseOptional, sqlType: sqlType(for: V.self),
            valueTypeName: _typeName(V.self, qualified: false),
            read: { property.get($0).databaseValue },
            write: { object, value in
                guard let converted = V.fromDatabaseValue(value) else { return false }
                property.set(object, converted)
                return true
            },
            bind: { object, statement, index in property.get(object).bind(to: statement, at: index) },
            resolve: { prototype in property.resolve(prototype: prototype) { $0.databaseValue == $1.databaseValue } })))
    }

    /// An enum attribute, stored as its raw value.
    public static func attribute<M: PersistentModel, V: RawRepresentable>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self where V.RawValue: DatabaseValueConvertible {
        let property = StoredProperty(keyPath)
        return Self(kind: .attribute(Schema.Attribute(
            name: name, keyPath: keyPath, options: options, originalName: originalName,
            isOptional: false, sqlType: sqlType(for: V.RawValue.self), valueTypeName: _typeName(V.self, qualified: false),
            read: { property.get($0).rawValue.databaseValue },
            write: { object, value in
                guard let raw = V.RawValue.fromDatabaseValue(value), let converted = V(rawValue: raw) else { return false }
                property.set(object, converted)
                return true
            },
            bind: { object, statement, index in property.get(object).rawValue.bind(to: statement, at: index) },
            resolve: { prototype in property.resolve(prototype: prototype) { $0.rawValue.databaseValue == $1.rawValue.databaseValue } })))
    }

    /// An optional enum attribute, stored as its raw value or NULL.
    public static func attribute<M: PersistentModel, V: RawRepresentable>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, V?>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self where V.RawValue: DatabaseValueConvertible {
        Self(kind: .attribute(Schema.Attribute(
            name: name, keyPath: keyPath, options: options, originalName: originalName,
            isOptional: true, sqlType: sqlType(for: V.RawValue.self), valueTypeName: _typeName(V?.self, qualified: false),
            read: { unsafeModel($0, as: M.self)[keyPath: keyPath]?.rawValue.databaseValue ?? .null },
            write: { object, value in
                if value.isNull { unsafeModel(object, as: M.self)[keyPath: keyPath] = nil; return true }
                guard let raw = V.RawValue.fromDatabaseValue(value), let converted = V(rawValue: raw) else { return false }
                unsafeModel(object, as: M.self)[keyPath: keyPath] = converted
                return true
            },
            bind: { object, statement, index in
                (unsafeModel(object, as: M.self)[keyPath: keyPath]?.rawValue).bind(to: statement, at: index)
            },
            resolve: { _ in })))
    }

    /// A `Codable` value (a struct, an array, a dictionary) stored as JSON text.
    ///
    /// Keys are sorted so equal values store equal text. Predicates can compare such an
    /// attribute only for equality with a whole value.
    public static func codable<M: PersistentModel, V: Codable>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option> = [], originalName: String? = nil
    ) -> Self {
        let isOptional = V.self is any OptionalProtocol.Type
        return Self(kind: .attribute(Schema.Attribute(
            name: name, keyPath: keyPath, options: options, originalName: originalName,
            isOptional: isOptional, sqlType: "TEXT", valueTypeName: _typeName(V.self, qualified: false),
            read: { encodeJSON(unsafeModel($0, as: M.self)[keyPath: keyPath]) },
            write: { object, value in
                guard let converted: V = decodeJSON(value) else { return false }
                unsafeModel(object, as: M.self)[keyPath: keyPath] = converted
                return true
            },
            bind: { object, statement, index in
                statement.bind(encodeJSON(unsafeModel(object, as: M.self)[keyPath: keyPath]), at: index)
            },
            resolve: { _ in })))
    }

    /// A value of any type stored as the `Data` a ``ValueTransformer`` makes: `options` holds
    /// `.transformable(by: MyTransformer.self)` (SwiftData's `@Attribute(.transformable(by:))`).
    /// The transformer's reverse transformation reads it back.
    public static func transformed<M: PersistentModel, V>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, V>,
        options: Set<Schema.Attribute.Option>, originalName: String? = nil
    ) -> Self {
        let transform = AttributeTransform(options: options)
        return Self(kind: .attribute(Schema.Attribute(
            name: name, keyPath: keyPath, options: options, originalName: originalName,
            isOptional: V.self is any OptionalProtocol.Type, sqlType: "BLOB", valueTypeName: _typeName(V.self, qualified: false),
            read: { transformedColumnValue(unsafeModel($0, as: M.self)[keyPath: keyPath], transform) },
            write: { object, value in
                guard let converted: V = untransformedValue(value, transform) else { return false }
                unsafeModel(object, as: M.self)[keyPath: keyPath] = converted
                return true
            },
            bind: { object, statement, index in
                statement.bind(transformedColumnValue(unsafeModel(object, as: M.self)[keyPath: keyPath], transform), at: index)
            },
            resolve: { _ in })))
    }

    // MARK: Relationships

    /// A to-one relationship.
    ///
    /// - Parameters:
    ///   - deleteRule: what deleting this model does to the destination (default `.nullify`).
    ///   - inverse: the destination's relationship back to this model, kept in step.
    public static func relationship<M: PersistentModel, T: PersistentModel>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, T?>,
        deleteRule: Schema.DeleteRule = .nullify, inverse: PartialKeyPath<T>? = nil, originalName: String? = nil
    ) -> Self {
        Self(kind: .relationship(Schema.Relationship(
            name: name, keyPath: keyPath, isToMany: false, deleteRule: deleteRule, inverseKeyPath: inverse,
            minimumModelCount: nil, maximumModelCount: nil, originalName: originalName, destination: T.self)))
    }

    /// A non-optional to-one relationship (`var photo: Photo`): the model must be given its
    /// destination before it is saved, and reading it before then stops the program. A save
    /// that would leave it without one (its destination deleted) throws
    /// ``PersistenceError/missingDestination(entity:relationship:)``.
    public static func relationship<M: PersistentModel, T: PersistentModel>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, T>,
        deleteRule: Schema.DeleteRule = .nullify, inverse: PartialKeyPath<T>? = nil, originalName: String? = nil
    ) -> Self {
        Self(kind: .relationship(Schema.Relationship(
            name: name, keyPath: keyPath, isToMany: false, deleteRule: deleteRule, inverseKeyPath: inverse,
            minimumModelCount: nil, maximumModelCount: nil, originalName: originalName, destination: T.self, isOptional: false)))
    }

    /// A to-many relationship; with a to-one inverse it is one-to-many, otherwise many-to-many.
    ///
    /// A count of 0 (SwiftData's default for both bounds) means no bound.
    public static func relationship<M: PersistentModel, T: PersistentModel>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, [T]>,
        deleteRule: Schema.DeleteRule = .nullify, inverse: PartialKeyPath<T>? = nil,
        minimumModelCount: Int? = nil, maximumModelCount: Int? = nil, originalName: String? = nil
    ) -> Self {
        Self(kind: .relationship(Schema.Relationship(
            name: name, keyPath: keyPath, isToMany: true, deleteRule: deleteRule, inverseKeyPath: inverse,
            minimumModelCount: minimumModelCount == 0 ? nil : minimumModelCount,
            maximumModelCount: maximumModelCount == 0 ? nil : maximumModelCount,
            originalName: originalName, destination: T.self)))
    }

    /// An optional to-many relationship (`var songs: [Song]? = []`, the form CloudKit-synced
    /// SwiftData models use). The store keeps members only: setting nil removes them all, and
    /// reading gives the members, `[]` when there are none.
    public static func relationship<M: PersistentModel, T: PersistentModel>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<M, [T]?>,
        deleteRule: Schema.DeleteRule = .nullify, inverse: PartialKeyPath<T>? = nil,
        minimumModelCount: Int? = nil, maximumModelCount: Int? = nil, originalName: String? = nil
    ) -> Self {
        Self(kind: .relationship(Schema.Relationship(
            name: name, keyPath: keyPath, isToMany: true, deleteRule: deleteRule, inverseKeyPath: inverse,
            minimumModelCount: minimumModelCount == 0 ? nil : minimumModelCount,
            maximumModelCount: maximumModelCount == 0 ? nil : maximumModelCount,
            originalName: originalName, destination: T.self)))
    }

    // MARK: Constraints

    /// A compound unique constraint, the equivalent of `#Unique<M>([\.a, \.b])`: an insert
    /// that collides on all of these updates the existing row.
    public static func unique<M: PersistentModel>(_ keyPaths: PartialKeyPath<M>...) -> Self {
        Self(kind: .unique(keyPaths))
    }

    /// An index over one or more attributes, the equivalent of `#Index<M>([\.a, \.b])`.
    public static func index<M: PersistentModel>(_ keyPaths: PartialKeyPath<M>...) -> Self {
        Self(kind: .index(keyPaths))
    }

    /// A `UNIQUE` index over one or more attributes or to-one relationships, named like any
    /// index (`<table>_<columns>`). Unlike ``unique(_:)`` it is not a table constraint and an
    /// insert that collides fails the save instead of updating the existing row (the rule of
    /// a model whose duplicates are a bug, such as one card per template of a note).
    public static func uniqueIndex<M: PersistentModel>(_ keyPaths: PartialKeyPath<M>...) -> Self {
        Self(kind: .uniqueIndex(keyPaths))
    }
}

private let jsonEncoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .secondsSince1970
    return encoder
}()

@usableFromInline
func encodeJSON<V: Encodable>(_ value: V) -> SQLValue {
    if let optional = value as? any OptionalProtocol, optional.isNone { return .null }
    guard let data = try? jsonEncoder.encode(value) else { return .null }
    return .text(String(decoding: data, as: UTF8.self))
}

@usableFromInline
func decodeJSON<V: Decodable>(_ value: SQLValue) -> V? {
    if value.isNull, let none = Optional<Any>.none as? V { return none }
    guard let text = String.fromDatabaseValue(value) else { return nil }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    return try? decoder.decode(V.self, from: Data(text.utf8))
}

/// The column value of a transformable attribute's value (NULL for nil).
@usableFromInline
func transformedColumnValue<V>(_ value: V, _ transform: AttributeTransform) -> SQLValue {
    if let optional = value as? any OptionalProtocol, optional.isNone { return .null }
    return transform.columnValue(value)
}

/// A transformable attribute's value from its column, nil when it doesn't convert.
@usableFromInline
func untransformedValue<V>(_ value: SQLValue, _ transform: AttributeTransform) -> V? {
    if value.isNull, let none = Optional<Any>.none as? V { return none }
    guard let object = transform.modelValue(value) else { return nil }
    return object as? V
}
