import Foundation
import SQLite

extension Schema {
    /// A stored property of a model: its name, key path, options and storage.
    ///
    /// Created by the ``PropertyMetadata/attribute(_:_:options:originalName:)`` family of
    /// factories in a model's ``PersistentModel/schemaMetadata``.
    public struct Attribute: @unchecked Sendable, CustomStringConvertible {
        /// Options that change how an attribute is stored, as in SwiftData's `@Attribute`.
        public enum Option: Hashable, Sendable {
            /// Values are unique across the entity: inserting a colliding model updates the existing row.
            case unique
            /// An index on the column speeds up predicates and sorts on it.
            case index
            /// Large values are kept in files beside the store (see issue 3's external storage).
            case externalStorage
            /// Observed but not stored (`@Attribute(.ephemeral)`): the macro leaves it out of the schema.
            case ephemeral
            /// The value is kept in the history's record of a deletion (SwiftData's tombstone).
            case preserveValueOnDeletion
            /// Stored as `Data` (a BLOB) made by the ``ValueTransformer`` registered under this
            /// name, and read back through its reverse transformation.
            case transformable(by: String)
            /// Accepted for SwiftData source compatibility: Spotlight indexing, which Linux lacks.
            case spotlight
            /// Accepted for SwiftData source compatibility: CloudKit encryption, which Linux lacks.
            case allowsCloudEncryption
        }

        /// The property (and column) name.
        public let name: String
        /// The key path of the property.
        ///
        /// A `@Model` attribute's key path is made when first asked for (a predicate, a sort,
        /// an observer), not when the schema is built: making one instantiates the key path
        /// class for its root and value types, and the ~120 attributes of a deck's models
        /// were most of what building its schema cost (1.3 ms of a 20 ms `deck search`).
        public var keyPath: AnyKeyPath { keyPathSource.keyPath }
        let keyPathSource: KeyPathSource
        public let options: Set<Option>
        /// The column's name in an older schema version, for renames during migration.
        public let originalName: String?
        /// Whether the property is optional (the column accepts NULL).
        public let isOptional: Bool
        /// The SQLite type affinity of the column: INTEGER, REAL, TEXT or BLOB.
        public let sqlType: String
        /// The Swift type of the value, for messages.
        public let valueTypeName: String

        /// Reads the attribute of a model as a stored value.
        let read: (AnyObject) -> SQLValue
        /// Writes a stored value to the attribute of a model; false when it does not convert.
        /// Observers of the model are told (rollback, undo, another context's save).
        let write: (AnyObject, SQLValue) -> Bool
        /// Writes a stored value into a model the context has just made from a row (nobody
        /// observes it yet): in place for a `@Model` class, else as ``write``.
        let materialize: (AnyObject, SQLValue) -> Bool
        /// Binds the attribute of a model straight to a statement parameter (fast path).
        let bind: (AnyObject, Statement, Int32) -> Void
        /// Prepares fast access with a prototype instance of the model.
        let resolve: (AnyObject) -> Void
        /// Whether the model's accessor reads the value from the store when it wasn't
        /// fetched (the attributes of `@Model` classes), so a fetch may leave it out. The same
        /// accessors record every write (``BackingData/_$attributesWritten``).
        let faultsOnAccess: Bool

        @usableFromInline
        init(name: String, keyPath: AnyKeyPath, options: Set<Option>, originalName: String?, isOptional: Bool,
             sqlType: String, valueTypeName: String, read: @escaping (AnyObject) -> SQLValue,
             write: @escaping (AnyObject, SQLValue) -> Bool, materialize: ((AnyObject, SQLValue) -> Bool)? = nil,
             bind: @escaping (AnyObject, Statement, Int32) -> Void, resolve: @escaping (AnyObject) -> Void,
             faultsOnAccess: Bool = false) {
            self.init(name: name, keyPath: KeyPathSource(keyPath), options: options, originalName: originalName,
                      isOptional: isOptional, sqlType: sqlType, valueTypeName: valueTypeName, read: read, write: write,
                      materialize: materialize, bind: bind, resolve: resolve, faultsOnAccess: faultsOnAccess)
        }

        @usableFromInline
        init(name: String, keyPath: KeyPathSource, options: Set<Option>, originalName: String?, isOptional: Bool,
             sqlType: String, valueTypeName: String, read: @escaping (AnyObject) -> SQLValue,
             write: @escaping (AnyObject, SQLValue) -> Bool, materialize: ((AnyObject, SQLValue) -> Bool)? = nil,
             bind: @escaping (AnyObject, Statement, Int32) -> Void, resolve: @escaping (AnyObject) -> Void,
             faultsOnAccess: Bool = false) {
            self.name = name
            self.keyPathSource = keyPath
            self.options = options
            self.originalName = originalName
            self.isOptional = isOptional
            self.sqlType = sqlType
            self.valueTypeName = valueTypeName
            self.read = read
            self.write = write
            self.materialize = materialize ?? write
            self.bind = bind
            self.resolve = resolve
            self.faultsOnAccess = faultsOnAccess
        }

        public var description: String { "\(name): \(valueTypeName)" }
    }
}

extension Schema.Attribute {
    /// Where an attribute's key path comes from: given, or made by a closure at the first
    /// use and kept (schemas are shared between threads, so the first use is under a lock).
    @usableFromInline
    final class KeyPathSource: @unchecked Sendable {
        private let make: () -> AnyKeyPath
        private let lock = NSLock()
        private var made: AnyKeyPath?

        @usableFromInline
        init(_ keyPath: AnyKeyPath) {
            make = { keyPath }
            made = keyPath
        }

        @usableFromInline
        init(lazy make: @escaping () -> AnyKeyPath) {
            self.make = make
        }

        @usableFromInline
        var keyPath: AnyKeyPath {
            lock.lock()
            defer { lock.unlock() }
            if let made { return made }
            let keyPath = make()
            made = keyPath
            return keyPath
        }
    }
}

extension Schema.Attribute.Option {
    /// Stored as `Data` made by a transformer of this class (SwiftData's
    /// `.transformable(by: MyTransformer.self)`): an instance is registered under the class's
    /// name unless one is already.
    public static func transformable(by type: ValueTransformer.Type) -> Self {
        let name = String(reflecting: type)
        if ValueTransformer.registered(name) == nil {
            ValueTransformer.setValueTransformer(type.init(), forName: NSValueTransformerName(name))
        }
        return .transformable(by: name)
    }
}

extension Schema {
    /// How deleting a model affects the models a relationship points to.
    ///
    /// SwiftData spells it `Schema.Relationship.DeleteRule`; that name works here too.
    public enum DeleteRule: String, Sendable, Hashable {
        /// Related models are deleted too.
        case cascade
        /// Related models lose their reference to the deleted one (the default).
        case nullify
        /// The delete fails at save while related models exist.
        case deny
        /// Nothing is done; references may dangle.
        case noAction
    }

    /// A reference from one model to another (to-one) or to many others (to-many).
    public struct Relationship: @unchecked Sendable, CustomStringConvertible {
        public let name: String
        public let keyPath: AnyKeyPath
        public let isToMany: Bool
        public let deleteRule: DeleteRule
        /// The key path of the inverse relationship on the destination, if declared.
        public let inverseKeyPath: AnyKeyPath?
        public let minimumModelCount: Int?
        public let maximumModelCount: Int?
        public let originalName: String?
        /// The destination model type.
        public let destination: any PersistentModel.Type
        /// Whether a to-one relationship may have no destination (`T?`); false for
        /// `var photo: Photo`, which a save refuses to leave without one.
        public internal(set) var isOptional = true
        public var destinationName: String { destination.entityName }

        public var description: String { "\(name) -> \(isToMany ? "[\(destinationName)]" : destinationName)" }

        /// SwiftData's name for ``Schema/DeleteRule``.
        public typealias DeleteRule = Schema.DeleteRule

        /// Options of `@Relationship(_:)`. Besides SwiftData's `.unique`, the delete rules are
        /// accepted here too, for the early SwiftData spelling `@Relationship(.cascade)`.
        public struct Option: Hashable, Sendable {
            let name: String
            /// Accepted for SwiftData source compatibility (a relationship is unique by its key).
            public static let unique = Option(name: "unique")
            public static let cascade = Option(name: "cascade")
            public static let nullify = Option(name: "nullify")
            public static let deny = Option(name: "deny")
            public static let noAction = Option(name: "noAction")
        }
    }
}

// MARK: - Storage types

/// Maps a Swift type to the column affinity documented in `DatabaseValueConvertible`: from
/// its conformance, not dynamic casts (``DatabaseValueConvertible/databaseColumnType``).
@inlinable
func sqlType<V: DatabaseValueConvertible>(for type: V.Type) -> String {
    V.databaseColumnType
}

@usableFromInline
protocol OptionalProtocol {
    static var wrappedType: Any.Type { get }
    var isNone: Bool { get }
}
extension Optional: OptionalProtocol {
    @usableFromInline static var wrappedType: Any.Type { Wrapped.self }
    @usableFromInline var isNone: Bool { self == nil }
}
