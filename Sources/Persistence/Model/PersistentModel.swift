import Foundation

/// A class whose instances are stored by a ``ModelContainer``: what a class marked `@Model`
/// conforms to, as in SwiftData.
///
/// Usually the `@Model` macro (the `PersistenceMacros` product, or `import SwiftData` on
/// Linux) writes the conformance. A model can also spell out what the macro generates, which
/// needs no macro plugin at all: its properties, one line of schema metadata per property, a
/// backing-data property and an empty initializer used to materialise rows. Attributes are
/// ordinary stored properties; relationships are computed properties over
/// ``getValue(forKey:)`` and ``setValue(forKey:to:)`` so they can be loaded lazily and keep
/// their inverses in step.
///
/// ```swift
/// final class Card: PersistentModel {
///     var front: String = ""
///     var back: String = ""
///     var creationDate: Date = .now
///     var deck: Deck? {
///         get { getValue(forKey: \.deck) }
///         set { setValue(forKey: \.deck, to: newValue) }
///     }
///
///     static let schemaMetadata: [Schema.PropertyMetadata] = [
///         .attribute("front", \Card.front),
///         .attribute("back", \Card.back),
///         .attribute("creationDate", \Card.creationDate, options: [.index]),
///         .relationship("deck", \Card.deck, inverse: \Deck.cards),
///     ]
///     let persistentBackingData = BackingData()
///     init() {}
///     init(front: String, back: String) { self.front = front; self.back = back }
/// }
/// ```
///
/// In a model class that has subclasses (inheritance), declare the stored attributes
/// `final var`: the context then reads and writes them in place; an overridable property is
/// only reachable through its accessors, which is several times slower.
///
/// Models are not `Sendable`: a model belongs to the context that fetched or inserted it.
/// Pass ``persistentModelID`` between tasks instead.
public protocol PersistentModel: AnyObject, Hashable, Identifiable, OptionalRelationshipValue {
    /// Creates an empty instance; the context fills its attributes from a row.
    init()
    /// The model's schema: attributes, relationships, unique constraints and indexes.
    static var schemaMetadata: [Schema.PropertyMetadata] { get }
    /// The entity name; by default the class name.
    static var entityName: String { get }
    /// Persistence state kept by the context. Declare it as `let persistentBackingData = BackingData()`.
    var persistentBackingData: BackingData { get }
}

extension PersistentModel {
    // _typeName rather than String(describing:), which looks up three protocol conformances of the
    // metatype first: each miss scans every conformance record of the process (milliseconds at start).
    public static var entityName: String { _typeName(self, qualified: false) }

    /// The model's identity: temporary until the first save, permanent after.
    public var persistentModelID: PersistentIdentifier {
        persistentBackingData.identifier(entityName: type(of: self).entityName)
    }

    public var id: PersistentIdentifier { persistentModelID }

    /// The context the model is registered in, if any.
    public var modelContext: ModelContext? { persistentBackingData.context }

    /// Whether the model was deleted from its context (pending or saved).
    public var isDeleted: Bool { persistentBackingData.state == .deleted }

    /// Whether the model has unsaved changes (inserted, changed or deleted).
    public var hasChanges: Bool {
        guard let context = persistentBackingData.context else { return false }
        return context.modelHasChanges(self)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
