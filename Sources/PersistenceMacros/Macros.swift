@_exported import Observation
@_exported import Persistence

/// Makes a class a persistent model, as SwiftData's `@Model` does: every stored property is
/// an attribute (or a relationship when its type is a model), the class conforms to
/// ``PersistentModel`` and `Observable`, and it gains `schemaMetadata`,
/// `persistentBackingData` and an empty `init()`.
///
/// ```swift
/// @Model final class Card {
///     var front: String
///     var back: String
///     @Attribute(.unique) var code: String = ""
///     @Relationship(inverse: \Deck.cards) var deck: Deck?
///     @Transient var isSelected = false
///     init(front: String, back: String) { self.front = front; self.back = back }
/// }
/// ```
///
/// Each attribute lives in a private backing property (`_front`), which the context reads and
/// writes in place; the public property observes reads and changes. See
/// `docs/PERSISTENCE.md`, "Porting from SwiftData", for what differs.
// The member role's `arbitrary` covers the backing storage (`_front` for `front`).
@attached(member, names: named(schemaMetadata), named(_$schemaMetadata), named(persistentBackingData), named(init), arbitrary)
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable)
public macro Model() = #externalMacro(module: "PersistenceMacrosPlugin", type: "ModelMacro")

/// Put on each stored property by ``Model()``: the accessors over the backing storage
/// (which ``Model()`` declares).
@attached(accessor, names: named(init), named(get), named(set))
public macro _PersistedProperty() = #externalMacro(module: "PersistenceMacrosPlugin", type: "PersistedPropertyMacro")

/// Options of a stored attribute: `.unique`, `.externalStorage`, `.ephemeral`,
/// `.preserveValueOnDeletion`, `.transformable(by:)`, and a former name for migration.
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option..., originalName: String? = nil, hashModifier: String? = nil
) = #externalMacro(module: "PersistenceMacrosPlugin", type: "MarkerMacro")

/// A relationship's delete rule, bounds, former name and inverse.
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option..., deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0, maximumModelCount: Int? = 0, originalName: String? = nil,
    inverse: AnyKeyPath? = nil, hashModifier: String? = nil
) = #externalMacro(module: "PersistenceMacrosPlugin", type: "MarkerMacro")

/// A property that is not stored; it must have a default value.
@attached(peer)
public macro Transient() = #externalMacro(module: "PersistenceMacrosPlugin", type: "MarkerMacro")

/// Compound unique constraints: `#Unique<Person>([\.givenName, \.familyName])`. An insert that
/// collides on all of a constraint's attributes updates the existing row.
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) = #externalMacro(module: "PersistenceMacrosPlugin", type: "ConstraintMacro")

/// Indexes over one or more attributes: `#Index<Trip>([\.name], [\.start, \.end])`.
@freestanding(declaration)
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) = #externalMacro(module: "PersistenceMacrosPlugin", type: "ConstraintMacro")

/// UNIQUE indexes over one or more attributes or to-one relationships, not constraints: an
/// insert that collides fails the save (`Schema.PropertyMetadata.uniqueIndex`).
/// `#UniqueIndex<Card>([\.note, \.ordinal])`.
@freestanding(declaration)
public macro UniqueIndex<T>(_ indices: [PartialKeyPath<T>]...) = #externalMacro(module: "PersistenceMacrosPlugin", type: "ConstraintMacro")

/// Makes an actor a ``ModelActor``, as SwiftData's `@ModelActor` does: it gains
/// `modelContainer`, a `modelExecutor` (a ``DefaultSerialModelExecutor`` over a context of its
/// own) and `init(modelContainer:)`, so its `modelContext` is used by one job at a time, off
/// the main thread.
///
/// ```swift
/// @ModelActor actor Importer {
///     func add(_ fronts: [String]) throws -> [PersistentIdentifier] {
///         let cards = fronts.map { Card(front: $0, back: "") }
///         for card in cards { modelContext.insert(card) }
///         try modelContext.save()
///         return cards.map(\.persistentModelID)
///     }
/// }
/// let ids = try await Importer(modelContainer: container).add(["a", "b"])
/// ```
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: Persistence.ModelActor)
public macro ModelActor() = #externalMacro(module: "PersistenceMacrosPlugin", type: "ModelActorMacro")
