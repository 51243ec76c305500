import Foundation

/// What SwiftData's `@Query` describes, without a view: a descriptor that a caller
/// evaluates against a context whenever it wants the current models.
///
/// ```swift
/// let recent = Query<Card>(filter: #Predicate { $0.score != nil }, sort: \.creationDate, order: .reverse)
/// let cards = try recent.results(in: context)          // evaluate now
/// let live = try recent.observe(in: context)           // or follow saves (QueryObservation)
/// ```
///
/// In SwiftUI `@Query var cards: [Card]` refetches for the view; here ``results(in:)`` is
/// that fetch, and ``observe(in:)`` gives the refetch-after-save behaviour.
public struct Query<Element: PersistentModel> {
    /// The fetch the query runs.
    public var fetchDescriptor: FetchDescriptor<Element>

    /// A query running `descriptor` (its predicate, sort, window and prefetching).
    public init(_ descriptor: FetchDescriptor<Element>) {
        self.fetchDescriptor = descriptor
    }

    /// A query of the models matching `filter` (all without one), in the order of `sort`.
    public init(filter: Predicate<Element>? = nil, sort: [SortDescriptor<Element>] = []) {
        self.fetchDescriptor = FetchDescriptor(predicate: filter, sortBy: sort)
    }

    /// A query sorted by one property.
    public init<Value: Comparable>(filter: Predicate<Element>? = nil, sort keyPath: KeyPath<Element, Value> & Sendable, order: SortOrder = .forward) {
        self.fetchDescriptor = FetchDescriptor(predicate: filter, sortBy: [SortDescriptor(keyPath, order: order)])
    }

    /// A query sorted by one optional property (nil first in forward order, as SQLite sorts).
    public init<Value: Comparable>(filter: Predicate<Element>? = nil, sort keyPath: KeyPath<Element, Value?> & Sendable, order: SortOrder = .forward) {
        self.fetchDescriptor = FetchDescriptor(predicate: filter, sortBy: [SortDescriptor(keyPath, order: order)])
    }

    /// The models the query finds in `context` now (with its unsaved changes).
    public func results(in context: ModelContext) throws -> [Element] {
        try context.fetch(fetchDescriptor)
    }

    /// How many models ``results(in:)`` would return.
    public func count(in context: ModelContext) throws -> Int {
        try context.fetchCount(fetchDescriptor)
    }

    /// A live query: fetched now, then again after every save of the container that touches
    /// the entity (see ``QueryObservation``).
    public func observe(in context: ModelContext) throws -> QueryObservation<Element> {
        try QueryObservation(fetchDescriptor, in: context)
    }
}
