/// The identity of a model: which store, which entity, which row.
///
/// Identifiers are `Sendable` and `Hashable`, so they can cross tasks and be used to find
/// the same model again in another context (``ModelContext/model(for:)``). A model that was
/// inserted but never saved has a *temporary* identifier; the first save gives it a
/// permanent one, as in SwiftData.
public struct PersistentIdentifier: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The store the row lives in (its configuration's name).
    public let storeIdentifier: String
    /// The entity (model type) name.
    public let entityName: String
    /// The row's primary key, or a context-local number for a temporary identifier.
    public let primaryKey: Int64
    /// Whether the identifier is temporary (the model has not been saved yet).
    public let isTemporary: Bool

    public init(storeIdentifier: String, entityName: String, primaryKey: Int64, isTemporary: Bool = false) {
        self.storeIdentifier = storeIdentifier
        self.entityName = entityName
        self.primaryKey = primaryKey
        self.isTemporary = isTemporary
    }

    public var description: String {
        "\(storeIdentifier)/\(entityName)/\(isTemporary ? "t" : "p")\(primaryKey)"
    }
}
