import Foundation
import Synchronization
import SQLite

extension Schema {
    /// One model type's description: its table, columns, relationships and constraints.
    public final class Entity: @unchecked Sendable, CustomStringConvertible {
        /// The entity name (the class name unless the model says otherwise).
        public let name: String
        /// The model type.
        public let type: any PersistentModel.Type
        /// All attributes, inherited ones first.
        @exclusivity(unchecked) public private(set) var attributes: [Attribute] = []
        /// All relationships, inherited ones first.
        @exclusivity(unchecked) public private(set) var relationships: [Relationship] = []
        /// The superentity when the model class inherits from another model.
        public internal(set) weak var superentity: Entity?
        var directSubentities: [Entity] = []
        let make: () -> any PersistentModel
        /// Whether the model wants `willSave()` before it is written: asked at the first save
        /// of the entity's models, not when the schema is built, because the cast is a scan of
        /// every protocol conformance in the process (~40 µs each, one per entity) that a
        /// command which saves nothing, or saves two entities of twelve, need not pay.
        var hasWillSaveHook: Bool {
            switch willSaveHook.load(ordering: .relaxed) {
            case 1: return false
            case 2: return true
            default:
                // Racing first saves compute the same answer; either store is right.
                let found = type is any WillSaveHook.Type
                willSaveHook.store(found ? 2 : 1, ordering: .relaxed)
                return found
            }
        }
        /// 0 until asked, then 1 (no hook) or 2 (a hook).
        private let willSaveHook = Atomic<UInt8>(0)
        let declaredUniques: [[AnyKeyPath]]
        let declaredIndexes: [[AnyKeyPath]]
        let declaredUniqueIndexes: [[AnyKeyPath]]

        // Resolved by `resolve(in:)`.
        /// The table holding the entity's rows (the root entity's table).
        @exclusivity(unchecked) public private(set) var tableName = ""
        /// To-one relationships stored as columns, in column order after the attributes.
        @exclusivity(unchecked) private(set) var toOneColumns: [Relationship] = []
        /// Column names after `pk` (and `entity` when inherited): attributes, then to-one keys.
        @exclusivity(unchecked) public private(set) var columnNames: [String] = []
        /// The index of each attribute by key path, built at the first lookup (so that only
        /// the entities a predicate, a sort or a declared constraint names make their
        /// attributes' key paths; see ``Attribute/keyPath``).
        private let attributeIndexLock = NSLock()
        private var attributeIndex: [AnyKeyPath: Int]?
        @exclusivity(unchecked) private(set) var relationshipIndex: [AnyKeyPath: Int] = [:]
        @exclusivity(unchecked) private(set) var attributeNameIndex: [String: Int] = [:]
        /// UNIQUE constraints as lists of column names.
        public private(set) var uniqueConstraints: [[String]] = []
        /// Indexes as lists of column names.
        public private(set) var indexes: [[String]] = []
        /// `UNIQUE` indexes (``Schema/PropertyMetadata/uniqueIndex(_:)``) as lists of column names.
        public private(set) var uniqueIndexes: [[String]] = []
        /// Whether the entity's table holds several entities (inheritance).
        @exclusivity(unchecked) public private(set) var usesDiscriminator = false
        /// Names of this entity and every subentity below it (for `includeSubclasses`).
        public private(set) var entityNamesIncludingSubentities: [String] = []
        /// The store this entity lives in (set by the container).
        var storeIndex = 0
        /// Where `.externalStorage` attributes keep their values (set by the container).
        var externalStorage: ExternalStorage?
        /// Positions of the `.externalStorage` attributes in `attributes`.
        @exclusivity(unchecked) private(set) var externalAttributeIndexes: [Int] = []
        /// The attributes' readers and materializing writers, kept apart so hot loops don't copy
        /// `Attribute` values.
        @exclusivity(unchecked) private(set) var readers: [(AnyObject) -> SQLValue] = []
        @exclusivity(unchecked) private(set) var writers: [(AnyObject, SQLValue) -> Bool] = []
        /// Whether every attribute is a `@Model` accessor's, which records writes in
        /// ``BackingData/_$attributesWritten`` (a hand-written stored property can't).
        @exclusivity(unchecked) private(set) var recordsAttributeWrites = false
        /// Statements the context writes for this entity, built once.
        @exclusivity(unchecked) private(set) var insertStatementSQL = ""
        /// For an entity with unique constraints: ``insertStatementSQL`` without `RETURNING`.
        /// A statement that returns rows keeps a statement journal, which wrote every page an
        /// insert touched to a temporary file (a save of 20,000 new tags: 40,000 page writes);
        /// a save runs this one and asks the returning one for the key only after a collision.
        @exclusivity(unchecked) private(set) var upsertWithoutReturningSQL = ""
        /// The columns selected for rows of this entity's table: `pk`, `entity` when the
        /// table is shared, then every column of the hierarchy.
        @exclusivity(unchecked) private(set) var selectColumns: [String] = []
        /// Where each of this entity's `columnNames` sits in `selectColumns`.
        @exclusivity(unchecked) private(set) var selectPositions: [Int32] = []

        init(type: any PersistentModel.Type) {
            self.name = type.entityName
            self.type = type
            var attributes: [Attribute] = []
            var relationships: [Relationship] = []
            var uniques: [[AnyKeyPath]] = []
            var indexes: [[AnyKeyPath]] = []
            var uniqueIndexes: [[AnyKeyPath]] = []
            for metadata in type.schemaMetadata {
                switch metadata.kind {
                case .attribute(let a): attributes.append(a)
                case .relationship(let r): relationships.append(r)
                case .unique(let paths): uniques.append(paths)
                case .index(let paths): indexes.append(paths)
                case .uniqueIndex(let paths): uniqueIndexes.append(paths)
                }
            }
            self.attributes = attributes
            self.relationships = relationships
            self.reencodedAttributeIndexes = attributes.indices.filter { index in
                attributes[index].options.contains { if case .transformable = $0 { true } else { false } }
            }
            self.boundedRelationships = relationships.filter { $0.isToMany && ($0.minimumModelCount != nil || $0.maximumModelCount != nil) }
            self.declaredUniques = uniques
            self.declaredIndexes = indexes
            self.declaredUniqueIndexes = uniqueIndexes
            self.make = Entity.factory(for: type)
            let prototype = make()
            for attribute in attributes { attribute.resolve(prototype) }
        }

        private static func factory<M: PersistentModel>(for type: M.Type) -> () -> any PersistentModel {
            { M() }
        }

        public var description: String { name }

        /// Whether any relationship is to-many (only those keep join-table rows to write on save).
        var hasToManyRelationships: Bool { relationships.contains { $0.isToMany } }
        /// To-many relationships with a `minimumModelCount` or `maximumModelCount`, checked at save.
        let boundedRelationships: [Relationship]
        /// `.transformable` attributes, whose snapshot is re-encoded from the value read.
        let reencodedAttributeIndexes: [Int]

        /// The entity at the top of the inheritance chain.
        public var rootEntity: Entity { superentity?.rootEntity ?? self }

        /// Whether `self` is `other` or inherits from it.
        func isKind(of other: Entity) -> Bool {
            var current: Entity? = self
            while let entity = current {
                if entity === other { return true }
                current = entity.superentity
            }
            return false
        }

        func resolve(in schema: Schema) {
            let root = rootEntity
            externalAttributeIndexes = attributes.indices.filter { attributes[$0].options.contains(.externalStorage) }
            for index in externalAttributeIndexes { attributes[index] = attributes[index].externalized(owner: self) }
            tableName = root.name
            usesDiscriminator = !root.directSubentities.isEmpty
            var names: [String] = []
            func collect(_ entity: Entity) {
                names.append(entity.name)
                for sub in entity.directSubentities.sorted(by: { $0.name < $1.name }) { collect(sub) }
            }
            collect(self)
            entityNamesIncludingSubentities = names
            toOneColumns = relationships.filter { !$0.isToMany }
            columnNames = attributes.map(\.name) + toOneColumns.map(\.name)
            attributeNameIndex.reserveCapacity(attributes.count)
            for (i, a) in attributes.enumerated() { attributeNameIndex[a.name] = i }
            relationshipIndex.reserveCapacity(relationships.count)
            for (i, r) in relationships.enumerated() { relationshipIndex[r.keyPath] = i }
            uniqueConstraints = attributes.filter { $0.options.contains(.unique) }.map { [$0.name] }
                + declaredUniques.map { $0.compactMap { columnName(for: $0) } }
            self.indexes = attributes.filter { $0.options.contains(.index) }.map { [$0.name] }
                + declaredIndexes.map { $0.compactMap { columnName(for: $0) } }
            uniqueIndexes = declaredUniqueIndexes.map { $0.compactMap { columnName(for: $0) } }
        }

        /// Computes the select layout once every entity of the hierarchy is resolved.
        func resolveLayout() {
            let root = rootEntity
            var columns = ["pk"]
            if root.usesDiscriminator { columns.append("entity") }
            for entity in root.hierarchy {
                for name in entity.columnNames where !columns.contains(name) { columns.append(name) }
            }
            selectColumns = columns
            selectPositions = columnNames.map { name in Int32(columns.firstIndex(of: name) ?? 0) }
            insertStatementSQL = makeInsertSQL()
            if !uniqueConstraints.isEmpty, insertStatementSQL.hasSuffix(" RETURNING \"pk\"") {
                upsertWithoutReturningSQL = String(insertStatementSQL.dropLast(" RETURNING \"pk\"".count))
            }
            readers = attributes.map(\.read)
            writers = attributes.map(\.materialize)
            recordsAttributeWrites = attributes.allSatisfy(\.faultsOnAccess)
        }

        private func makeInsertSQL() -> String {
            var columns = ["pk"]
            if usesDiscriminator { columns.append("entity") }
            columns += columnNames
            var sql = "INSERT INTO \(quoteIdentifier(tableName)) (" + columns.map(quoteIdentifier).joined(separator: ", ")
                + ") VALUES (" + columns.map { _ in "?" }.joined(separator: ", ") + ")"
            if !uniqueConstraints.isEmpty {
                // An insert that collides on a unique constraint updates the existing row (upsert).
                let assignments = columnNames.map { "\(quoteIdentifier($0)) = excluded.\(quoteIdentifier($0))" }.joined(separator: ", ")
                for unique in uniqueConstraints {
                    sql += " ON CONFLICT(" + unique.map(quoteIdentifier).joined(separator: ", ") + ") DO UPDATE SET \(assignments)"
                }
                sql += " RETURNING \"pk\""
            }
            return sql
        }

        /// The attribute for a key path, if it is one.
        func attribute(for keyPath: AnyKeyPath) -> Attribute? {
            attributeIndexLock.lock()
            if attributeIndex == nil {
                attributeIndex = Dictionary(attributes.indices.map { (attributes[$0].keyPath, $0) }, uniquingKeysWith: { _, last in last })
            }
            let found = attributeIndex?[keyPath]
            attributeIndexLock.unlock()
            if let found { return attributes[found] }
            guard superentity != nil, case .attribute(let index) = inheritedProperty(keyPath) else { return nil }
            return attributes[index]
        }
        /// The relationship for a key path, if it is one.
        func relationship(for keyPath: AnyKeyPath) -> Relationship? {
            if let index = relationshipIndex[keyPath] { return relationships[index] }
            guard superentity != nil, case .relationship(let index) = inheritedProperty(keyPath) else { return nil }
            return relationships[index]
        }

        /// What a key path rooted at a subclass names among the properties a model superclass
        /// declared (found once, then remembered).
        enum InheritedProperty { case attribute(Int), relationship(Int), none }
        private let inheritedLock = NSLock()
        private var inheritedProperties: [AnyKeyPath: InheritedProperty] = [:]

        /// `\Book.title` and the `\Media.title` a superclass declared are different key paths
        /// (Swift compares their root types), so a predicate or sort of a subclass fetch
        /// names an inherited property by a key path the metadata doesn't hold. It is matched
        /// by value type, and when several inherited properties share that type, by changing
        /// each one on a fresh instance and seeing which the key path reads.
        private func inheritedProperty(_ keyPath: AnyKeyPath) -> InheritedProperty {
            inheritedLock.lock()
            defer { inheritedLock.unlock() }
            if let known = inheritedProperties[keyPath] { return known }
            let found = findInheritedProperty(keyPath)
            inheritedProperties[keyPath] = found
            return found
        }

        private func findInheritedProperty(_ keyPath: AnyKeyPath) -> InheritedProperty {
            let kind = Swift.type(of: keyPath)
            guard let root = kind.rootType as? AnyClass, let own = type as? AnyClass, root == own || isSubclass(root, of: own) else { return .none }
            func inherited(_ path: AnyKeyPath) -> Bool {
                guard let declaring = Swift.type(of: path).rootType as? AnyClass else { return false }
                return declaring != own && isSubclass(own, of: declaring)
            }
            let attributeCandidates = attributes.indices.filter {
                inherited(attributes[$0].keyPath) && Swift.type(of: attributes[$0].keyPath).valueType == kind.valueType
            }
            let relationshipCandidates = relationships.indices.filter {
                inherited(relationships[$0].keyPath) && Swift.type(of: relationships[$0].keyPath).valueType == kind.valueType
            }
            if attributeCandidates.count + relationshipCandidates.count == 1 {
                return attributeCandidates.first.map { .attribute($0) } ?? .relationship(relationshipCandidates[0])
            }
            guard relationshipCandidates.isEmpty else { return .none }
            let matches = attributeCandidates.filter { probe(attributes[$0], reads: keyPath) }
            return matches.count == 1 ? .attribute(matches[0]) : .none
        }

        /// Whether changing `attribute` on a fresh instance changes what `keyPath` reads.
        private func probe(_ attribute: Attribute, reads keyPath: AnyKeyPath) -> Bool {
            let instance = make()
            guard let before = try? constantValue(instance[keyPath: keyPath] as Any) else { return false }
            let original = attribute.read(instance)
            for candidate in probeValues(besides: original) where attribute.write(instance, candidate) && attribute.read(instance) != original {
                guard let after = try? constantValue(instance[keyPath: keyPath] as Any) else { return false }
                return after != before
            }
            return false
        }

        private func probeValues(besides value: SQLValue) -> [SQLValue] {
            switch value {
            case .integer(let n): [.integer(n &+ 1), .integer(n &- 1)]
            case .real(let d): [.real(d + 1), .real(d - 1)]
            case .text(let text): [.text(text + "x"), .text(UUID().uuidString), .text("p5011 1"), .text("1")]
            case .blob(let data): [.blob(data + [1])]
            case .null: [.integer(1), .real(1), .text("x"), .text(UUID().uuidString), .text("p5011 1"), .blob(Data([1]))]
            }
        }
        /// The column of an attribute or to-one relationship key path.
        func columnName(for keyPath: AnyKeyPath) -> String? {
            if let a = attribute(for: keyPath) { return a.name }
            if let r = relationship(for: keyPath), !r.isToMany { return r.name }
            return nil
        }
        /// The index of a to-one relationship among the stored to-one columns.
        func toOneColumnIndex(of relationship: Relationship) -> Int? {
            toOneColumns.firstIndex { $0.keyPath == relationship.keyPath }
        }
    }
}

private func isSubclass(_ type: AnyClass, of ancestor: AnyClass) -> Bool {
    var current: AnyClass? = type
    while let candidate = current {
        if candidate == ancestor { return true }
        current = _getSuperclass(candidate)
    }
    return false
}

extension Schema.Entity {
    /// The key a new row gets when `largest` is the largest in its table: one past it.
    /// - Throws: ``PersistenceError/invalidStoredValue(entity:attribute:value:)`` when `largest`
    ///   is `Int64.max` (a store edited outside the program can hold it): no key is left above
    ///   it, and adding one would overflow.
    static func key(after largest: Int64, in entity: Schema.Entity) throws(PersistenceError) -> Int64 {
        guard largest < .max else { throw keysExhausted(entity) }
        return largest + 1
    }

    /// The error of a table whose largest key is `Int64.max`, so that no new row can be keyed.
    static func keysExhausted(_ entity: Schema.Entity) -> PersistenceError {
        .invalidStoredValue(entity: entity.name, attribute: "pk",
                            value: "\(Int64.max) (the largest key there is: no key is left for a new row)")
    }
}
