import Foundation
import SQLite

/// Where a to-many relationship's links live.
enum ToManyStorage {
    /// The destination has a to-one column pointing back (one-to-many).
    case inverseColumn(destination: Schema.Entity, column: String)
    /// A join table of (source, target) pairs (many-to-many, or no inverse).
    case joinTable(table: String, source: String, target: String)
}

extension Schema {
    /// The name of the table of bookkeeping facts (schema version, entity list).
    public static let metadataTable = "persistence_metadata"

    /// The inverse of `relationship` declared on `entity`, looked up on either side.
    func inverse(of relationship: Relationship, in entity: Entity) -> Relationship? {
        guard let destination = self.entity(forType: relationship.destination) else { return nil }
        if let keyPath = relationship.inverseKeyPath, let inverse = destination.relationship(for: keyPath) {
            return inverse
        }
        if let declared = destination.relationships.first(where: { candidate in
            candidate.inverseKeyPath == relationship.keyPath && entity.isKind(of: self.entity(forType: candidate.destination) ?? entity)
        }) { return declared }
        return inferredInverse(of: relationship, in: entity, destination: destination)
    }

    /// The inverse SwiftData infers when none is declared on either side: the destination's
    /// only relationship back to this entity, when this entity has only this one to the
    /// destination and neither declares an inverse (nor is named as one). Relationships of
    /// an entity to itself are never paired this way (`parent` and `children` are two
    /// relationships to one type: declare the inverse).
    private func inferredInverse(of relationship: Relationship, in entity: Entity, destination: Entity) -> Relationship? {
        guard relationship.inverseKeyPath == nil, destination.rootEntity !== entity.rootEntity else { return nil }
        func named(_ candidate: Relationship, on owner: Entity, by other: Entity) -> Bool {
            other.relationships.contains { $0.inverseKeyPath == candidate.keyPath }
        }
        let mine = entity.relationships.filter { $0.inverseKeyPath == nil && self.entity(forType: $0.destination) === destination }
        guard mine.count == 1, !named(relationship, on: entity, by: destination) else { return nil }
        let theirs = destination.relationships.filter { candidate in
            candidate.inverseKeyPath == nil && self.entity(forType: candidate.destination).map { entity.isKind(of: $0) } == true
        }
        guard theirs.count == 1, let inverse = theirs.first, !named(inverse, on: destination, by: entity) else { return nil }
        // Only a to-one is inferred against a to-many or a to-one; two to-manys stay apart
        // (each its own join table), as two lists of one type often mean different things.
        guard !(inverse.isToMany && relationship.isToMany) else { return nil }
        return inverse
    }

    func destination(of relationship: Relationship) -> Entity? { entity(forType: relationship.destination) }

    /// How a to-many relationship is stored.
    func storage(ofToMany relationship: Relationship, in entity: Entity) -> ToManyStorage? {
        guard relationship.isToMany, let destination = destination(of: relationship) else { return nil }
        let inverse = inverse(of: relationship, in: entity)
        if let inverse, !inverse.isToMany {
            return .inverseColumn(destination: destination, column: inverse.name)
        }
        // Many-to-many: one table per pair, named by the side whose "Entity.relationship" sorts first.
        let mine = "\(entity.rootEntity.name)_\(relationship.name)"
        if let inverse {
            let theirs = "\(destination.rootEntity.name)_\(inverse.name)"
            if theirs < mine { return .joinTable(table: theirs, source: "target", target: "source") }
        }
        return .joinTable(table: mine, source: "source", target: "target")
    }

    /// The delete action of the foreign key of a to-one relationship column.
    private func foreignKeyClause(for relationship: Relationship, in entity: Entity) -> String? {
        guard let destination = destination(of: relationship) else { return nil }
        let rule = inverse(of: relationship, in: entity).map(\.deleteRule) ?? .nullify
        let reference = "REFERENCES \(quoteIdentifier(destination.tableName))(\"pk\")"
        switch rule {
        case .cascade: return reference + " ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED"
        case .nullify: return reference + " ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED"
        case .deny: return reference + " DEFERRABLE INITIALLY DEFERRED"
        case .noAction: return nil
        }
    }

    /// The SQL that creates every table, index and join table of the schema, in a fixed order.
    ///
    /// The same schema always gives the same text, so it can be compared and documented.
    public func makeDDL() -> [String] {
        var statements: [String] = []
        var joinTables: [String: String] = [:]
        for root in entities where root.superentity == nil {
            let layout = tableLayout(of: root, joinTables: &joinTables)
            statements.append(layout.createSQL(table: root.name))
            statements += layout.indexes.map(\.sql)
        }
        for table in joinTables.keys.sorted() {
            statements.append(joinTables[table]!)
            statements.append(Self.joinTargetIndexSQL(table))
        }
        return statements
    }

    /// The index of a join table's `target` column (its primary key starts with `source`).
    static func joinTargetIndexSQL(_ table: String) -> String {
        "CREATE INDEX IF NOT EXISTS \(quoteIdentifier(table + "_target")) ON \(quoteIdentifier(table))(\"target\")"
    }

    /// The columns, constraints and indexes of a root entity's table (its whole hierarchy).
    struct TableLayout {
        /// Column names with their definitions (type, NOT NULL, foreign key), `pk` first.
        var columns: [(name: String, definition: String)] = []
        var constraints: [String] = []
        /// Index names with the statement creating each.
        var indexes: [(name: String, sql: String)] = []

        func createSQL(table: String) -> String {
            "CREATE TABLE IF NOT EXISTS \(quoteIdentifier(table)) ("
                + (columns.map { "\(quoteIdentifier($0.name)) \($0.definition)" } + constraints).joined(separator: ", ") + ")"
        }
    }

    func tableLayout(of root: Entity) -> TableLayout {
        var ignored: [String: String] = [:]
        return tableLayout(of: root, joinTables: &ignored)
    }

    func tableLayout(of root: Entity, joinTables: inout [String: String]) -> TableLayout {
        var layout = TableLayout()
        layout.columns.append(("pk", "INTEGER PRIMARY KEY"))
        if root.usesDiscriminator { layout.columns.append(("entity", "TEXT NOT NULL")) }
        var seen: Set<String> = []
        // In declaration order: each to-one key's own index, then the entity's declared ones.
        var indexes: [(columns: [String], unique: Bool, isForeignKey: Bool)] = []
        var uniqueConstraints: [[String]] = []
        for entity in root.hierarchy {
            let isRoot = entity === root
            for attribute in entity.attributes where seen.insert(attribute.name).inserted {
                let notNull = (!attribute.isOptional && isRoot) ? " NOT NULL" : ""
                layout.columns.append((attribute.name, "\(attribute.sqlType)\(notNull)"))
            }
            for relationship in entity.relationships where !relationship.isToMany && seen.insert(relationship.name).inserted {
                let clause = foreignKeyClause(for: relationship, in: entity).map { " " + $0 } ?? ""
                layout.columns.append((relationship.name, "INTEGER\(clause)"))
                indexes.append(([relationship.name], false, true))
            }
            for unique in entity.uniqueConstraints {
                uniqueConstraints.append(unique)
                let text = "UNIQUE(" + unique.map(quoteIdentifier).joined(separator: ", ") + ")"
                if !layout.constraints.contains(text) { layout.constraints.append(text) }
            }
            indexes += entity.indexes.map { ($0, false, false) } + entity.uniqueIndexes.map { ($0, true, false) }
            for relationship in entity.relationships where relationship.isToMany {
                if case .joinTable(let table, _, _) = storage(ofToMany: relationship, in: entity),
                   joinTables[table] == nil, let destination = destination(of: relationship) {
                    let (sourceTable, targetTable) = table == "\(root.name)_\(relationship.name)"
                        ? (root.name, destination.tableName) : (destination.tableName, root.name)
                    joinTables[table] = """
                        CREATE TABLE IF NOT EXISTS \(quoteIdentifier(table)) (\
                        "source" INTEGER NOT NULL REFERENCES \(quoteIdentifier(sourceTable))("pk") ON DELETE CASCADE, \
                        "target" INTEGER NOT NULL REFERENCES \(quoteIdentifier(targetTable))("pk") ON DELETE CASCADE, \
                        PRIMARY KEY("source", "target")) WITHOUT ROWID
                        """
                }
            }
        }
        // A to-one key gets an index of its own (deleting a destination row, and fetching the
        // inverse to-many relationship, look rows up by it) unless a declared index or a UNIQUE
        // constraint of the table starts with that column: SQLite uses such an index for those
        // lookups, and a second one would cost space and work on every insert.
        let leadingColumns = Set(indexes.filter { !$0.isForeignKey }.compactMap(\.columns.first) + uniqueConstraints.compactMap(\.first))
        var indexNames: Set<String> = []
        for index in indexes where !(index.isForeignKey && leadingColumns.contains(index.columns[0])) {
            let name = root.name + "_" + index.columns.joined(separator: "_")
            guard indexNames.insert(name).inserted else { continue }
            let create = index.unique ? "CREATE UNIQUE INDEX" : "CREATE INDEX"
            layout.indexes.append((name, "\(create) IF NOT EXISTS \(quoteIdentifier(name)) ON \(quoteIdentifier(root.name))(" + index.columns.map(quoteIdentifier).joined(separator: ", ") + ")"))
        }
        if root.usesDiscriminator {
            let name = root.name + "_entity"
            layout.indexes.append((name, "CREATE INDEX IF NOT EXISTS \(quoteIdentifier(name)) ON \(quoteIdentifier(root.name))(\"entity\")"))
        }
        return layout
    }
}

extension Schema.Entity {
    /// This entity and its subentities, depth first, sorted by name at each level.
    var hierarchy: [Schema.Entity] {
        [self] + directSubentities.sorted { $0.name < $1.name }.flatMap(\.hierarchy)
    }
}
