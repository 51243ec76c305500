import Foundation
import SQLite

/// The set of model types a container stores, with their attributes and relationships.
///
/// A schema is built from model types; related types are found through relationships, so
/// `Schema([Trip.self])` also holds `Trip`'s destinations, as in SwiftData. Model
/// inheritance is detected from the class hierarchy.
///
/// **Storage mapping** (documented, and generated deterministically by ``makeDDL()``):
/// - each entity without a superentity has a table named after it; a subclass entity
///   shares its root's table (single-table inheritance) with an `entity` discriminator
///   column, and its own columns are nullable there;
/// - the primary key column is `pk INTEGER PRIMARY KEY`;
/// - each attribute is a column of the same name (affinity from `DatabaseValueConvertible`,
///   `NOT NULL` unless optional); `Codable` values are JSON text;
/// - a to-one relationship is an integer column of the same name referencing the
///   destination's `pk`; its delete action comes from the inverse's delete rule; it gets an
///   index `<table>_<column>` unless a declared index or a UNIQUE constraint of the table
///   starts with that column (which serves the same lookups);
/// - a to-many relationship whose inverse is to-one has no column; any other to-many
///   relationship is a join table `<Entity>_<relationship>(source, target)`;
/// - unique attributes and `.unique(...)` become UNIQUE constraints; `.index` and
///   `.index(...)` become indexes named `<table>_<columns>`, `.uniqueIndex(...)` UNIQUE
///   indexes named the same way.
public final class Schema: @unchecked Sendable {
    /// The entities, sorted by name.
    public let entities: [Entity]
    let entitiesByName: [String: Entity]
    let entitiesByType: [ObjectIdentifier: Entity]
    /// A schema version (from a ``VersionedSchema``), or 1.0.0.
    public let version: Version

    /// A semantic version of a schema.
    public struct Version: Hashable, Comparable, Sendable, CustomStringConvertible, Codable {
        public let major: Int, minor: Int, patch: Int
        public init(_ major: Int, _ minor: Int, _ patch: Int) { (self.major, self.minor, self.patch) = (major, minor, patch) }
        public var description: String { "\(major).\(minor).\(patch)" }
        public static func < (a: Version, b: Version) -> Bool { (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch) }
        public init?(string: String) {
            let parts = string.split(separator: ".").compactMap { Int($0) }
            guard parts.count == 3 else { return nil }
            self.init(parts[0], parts[1], parts[2])
        }
    }

    /// Builds a schema from model types and every type reachable through their relationships.
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        var queue = types
        var seen: [ObjectIdentifier: any PersistentModel.Type] = [:]
        while let type = queue.popLast() {
            guard seen[ObjectIdentifier(type)] == nil else { continue }
            seen[ObjectIdentifier(type)] = type
            for metadata in type.schemaMetadata {
                if case .relationship(let relationship) = metadata.kind { queue.append(relationship.destination) }
            }
        }
        let built = seen.values.map { Entity(type: $0) }
        var byType: [ObjectIdentifier: Entity] = [:]
        for entity in built { byType[ObjectIdentifier(entity.type)] = entity }
        // Inheritance: the nearest superclass that is also a model in the schema.
        for entity in built {
            var superclass: AnyClass? = _getSuperclass(entity.type)
            while let candidate = superclass {
                if let parent = byType[ObjectIdentifier(candidate)] {
                    entity.superentity = parent
                    break
                }
                superclass = _getSuperclass(candidate)
            }
        }
        for entity in built { entity.superentity?.directSubentities.append(entity) }
        self.entities = built.sorted { $0.name < $1.name }
        self.entitiesByName = Dictionary(built.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.entitiesByType = byType
        self.version = version
        for entity in entities { entity.resolve(in: self) }
        for entity in entities { entity.resolveLayout() }
    }

    /// Whether a container uses this schema's entities already (see ``forContainer()``).
    private var claimed = false
    private let claimLock = NSLock()

    /// The schema a new container keeps its per-store facts in (which store holds each
    /// entity, its external storage): this one for the first container, a copy built from
    /// the same model types for every later one, so that containers built from one schema
    /// stay independent.
    func forContainer() -> Schema {
        claimLock.lock()
        let first = !claimed
        claimed = true
        claimLock.unlock()
        return first ? self : Schema(entities.map(\.type), version: version)
    }

    /// The entity of a model type.
    public func entity<M: PersistentModel>(for type: M.Type) -> Entity? { entitiesByType[ObjectIdentifier(type)] }
    func entity(forType type: Any.Type) -> Entity? { entitiesByType[ObjectIdentifier(type)] }
    /// The entity named `name`.
    public func entity(named name: String) -> Entity? { entitiesByName[name] }
}

private func _getSuperclass(_ type: Any.Type) -> AnyClass? {
    guard let cls = type as? AnyClass else { return nil }
    return Swift._getSuperclass(cls)
}
