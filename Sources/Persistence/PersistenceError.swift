import Foundation
import SQLite

/// An error of the persistence layer: what failed, and where.
///
/// Errors from SQLite arrive wrapped in ``database(_:)`` with the extended result code and
/// the SQL. Match the cases in `catch`:
///
/// ```swift
/// do { try context.save() }
/// catch PersistenceError.deleteDenied(let entity, let relationship) { … }
/// ```
public enum PersistenceError: Error, CustomStringConvertible, Sendable {
    /// SQLite reported an error.
    case database(DatabaseError)
    /// The store can't be opened: the path and SQLite's reason.
    case cannotOpenStore(path: String, reason: String)
    /// The store was written by a newer schema version than this program knows.
    case storeIsNewer(path: String, storeVersion: String, knownVersion: String)
    /// The store's layout doesn't match the schema and no migration covers it.
    case incompatibleStore(path: String, reason: String)
    /// A save was attempted on a read-only configuration (`allowsSave: false`).
    case readOnlyStore(path: String)
    /// A predicate or sort uses something that can't be translated to SQL.
    case unsupportedPredicate(String)
    /// A model type is not part of the container's schema.
    case unknownEntity(String)
    /// A stored value can't be converted to the attribute's type.
    case invalidStoredValue(entity: String, attribute: String, value: String)
    /// Deleting a model failed because a `.deny` relationship still has members.
    case deleteDenied(entity: String, relationship: String)
    /// A save would leave a non-optional to-one relationship without a destination (its
    /// destination deleted, or never set): SwiftData's validation of a mandatory relationship.
    case missingDestination(entity: String, relationship: String)
    /// A relationship has fewer or more members than its declared bounds.
    case relationshipCount(entity: String, relationship: String, count: Int, bounds: String)
    /// `enumerate` found a mutation it was told not to allow.
    case escapingMutation(entity: String)
    /// A migration stage failed; the store is left exactly as before.
    case migrationFailed(stage: String, reason: String)
    /// The identifier belongs to no row.
    case modelNotFound(PersistentIdentifier)
    /// A file of external storage is missing or unreadable.
    case externalStorageMissing(path: String)
    /// A ``BatchInsert`` can't write a model as given: the entity and why (a model already in
    /// a context, a relationship to a model that has no row yet).
    case batchInsert(entity: String, reason: String)
    /// The store was written by a schema version that the migration plan does not list (or
    /// from which no chain of stages leads to the current version).
    case unknownStoreVersion(path: String, storeVersion: String, currentVersion: String, knownVersions: [String])

    public var description: String {
        switch self {
        case .database(let error): error.description
        case .cannotOpenStore(let path, let reason): "\(path): cannot open store: \(reason)"
        case .storeIsNewer(let path, let store, let known):
            "\(path): store was written by schema version \(store), newer than this program's \(known)"
        case .unknownStoreVersion(let path, let store, let current, let known):
            "\(path): store was written by schema version \(store), which the migration plan to \(current) does not cover (plan versions: \(known.joined(separator: ", ")))"
        case .incompatibleStore(let path, let reason): "\(path): store does not match the schema: \(reason)"
        case .readOnlyStore(let path): "\(path): store is read-only"
        case .unsupportedPredicate(let what): "unsupported in a predicate: \(what)"
        case .unknownEntity(let name): "\(name) is not in the container's schema"
        case .invalidStoredValue(let entity, let attribute, let value):
            "stored value \(value) of \(entity).\(attribute) does not convert to its type"
        case .deleteDenied(let entity, let relationship):
            "cannot delete \(entity): its relationship '\(relationship)' (delete rule deny) still has members"
        case .missingDestination(let entity, let relationship):
            "\(entity).\(relationship) is a non-optional relationship and would have no destination"
        case .relationshipCount(let entity, let relationship, let count, let bounds):
            "\(entity).\(relationship) has \(count) members, allowed \(bounds)"
        case .escapingMutation(let entity): "a model of \(entity) was changed during enumerate(allowEscapingMutations: false)"
        case .migrationFailed(let stage, let reason): "migration stage \(stage) failed: \(reason)"
        case .modelNotFound(let id): "no model with identifier \(id)"
        case .externalStorageMissing(let path): "\(path): external storage file is missing"
        case .batchInsert(let entity, let reason): "batch insert of \(entity): \(reason)"
        }
    }
}

extension PersistenceError {
    /// Wraps any error from the SQLite layer.
    static func wrap(_ error: any Error) -> any Error {
        if let error = error as? DatabaseError { return PersistenceError.database(error) }
        return error
    }
}
