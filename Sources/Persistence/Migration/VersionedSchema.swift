/// One version of an app's schema, as in SwiftData.
///
/// ```swift
/// enum DeckSchemaV1: VersionedSchema {
///     static let versionIdentifier = Schema.Version(1, 0, 0)
///     static var models: [any PersistentModel.Type] { [Card.self] }
/// }
/// ```
public protocol VersionedSchema {
    static var versionIdentifier: Schema.Version { get }
    static var models: [any PersistentModel.Type] { get }
}

extension VersionedSchema {
    /// The schema of this version.
    public static var schema: Schema { Schema(models, version: versionIdentifier) }
}

/// The ordered versions of a schema and the stages that migrate a store between them.
public protocol SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { get }
    static var stages: [MigrationStage] { get }
}

/// One step of a migration plan.
public enum MigrationStage: @unchecked Sendable {
    /// A change the store can absorb by itself: a new model, a new property with a default,
    /// a removed property, a rename with `originalName`.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// A change that needs code: `willMigrate` runs on the old schema, `didMigrate` on the new.
    case custom(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
                willMigrate: ((ModelContext) throws -> Void)?, didMigrate: ((ModelContext) throws -> Void)?)

    var fromVersion: any VersionedSchema.Type {
        switch self { case .lightweight(let from, _), .custom(let from, _, _, _): from }
    }
    var toVersion: any VersionedSchema.Type {
        switch self { case .lightweight(_, let to), .custom(_, let to, _, _): to }
    }
}
