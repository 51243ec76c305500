import Foundation

/// What to fetch: a predicate, a sort order, a window, as in SwiftData.
///
/// ```swift
/// var descriptor = FetchDescriptor<Card>(
///     predicate: #Predicate { $0.front.contains("chat") },
///     sortBy: [SortDescriptor(\.creationDate, order: .reverse)])
/// descriptor.fetchLimit = 20
/// let cards = try context.fetch(descriptor)
/// ```
///
/// The predicate and sort are translated to SQL; a predicate that can't be translated
/// makes the fetch throw ``PersistenceError/unsupportedPredicate(_:)`` rather than load the
/// table to filter it in memory.
public struct FetchDescriptor<T: PersistentModel> {
    public var predicate: Predicate<T>?
    public var sortBy: [SortDescriptor<T>]
    /// The most models to return.
    public var fetchLimit: Int?
    /// How many matching models to skip first.
    public var fetchOffset: Int?
    /// Whether unsaved inserted models that match are included (default true).
    public var includePendingChanges: Bool = true
    /// Relationships to load along with the models, in one query each, avoiding N+1 faults.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []
    /// The attributes to read with each model, as SwiftData's `propertiesToFetch`: the
    /// fetch selects only their columns (and the keys of to-one relationships), and the
    /// other attributes of a `@Model` class are read from the store the first time one of
    /// them is read or set (one query per model). Empty (the default) reads every attribute.
    ///
    /// Attributes of hand-written models, whose plain stored properties can't notice a
    /// read, are always fetched; so is everything while the context records undo (the
    /// undo stack needs every value). ``ModelContext/fetch(_:batchSize:)`` reads whole rows.
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Whether models of subclasses are included (default true).
    public var includeSubclasses: Bool = true

    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
