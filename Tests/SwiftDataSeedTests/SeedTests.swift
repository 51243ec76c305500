import SwiftData
import Testing
import PersistenceTestSupport

/// The seed documents' models, compiled unchanged through `import SwiftData`, behaving as
/// SwiftData documents: each on an in-memory store and on a file (reopened, so what's read
/// back came from the store).
@Suite struct SeedTests {
    /// A container, its models written and the container dropped, then a second one on the
    /// same store to read back (for memory, the same container).
    struct Stores {
        let playground: Playground
        let kind: StoreKind
        let types: [any PersistentModel.Type]
        let first: ModelContainer
        init(_ kind: StoreKind, _ types: [any PersistentModel.Type]) throws {
            playground = try Playground()
            self.kind = kind
            self.types = types
            first = try kind.container(types, in: playground)
        }
        func reopened() throws -> ModelContainer { kind == .memory ? first : try kind.container(types, in: playground) }
    }

    // MARK: The flash card

    @Test(arguments: StoreKind.allCases)
    func flashCardsSortNewestFirst(kind: StoreKind) throws {
        // The seed's preview container: a schema, an in-memory configuration (or a file).
        let stores = try Stores(kind, [Card.self])
        let context = ModelContext(stores.first)
        let sampleCards = [
            Card(front: "Who invented the compiler?", back: "Grace Hopper", creationDate: Date(timeIntervalSince1970: 100)),
            Card(front: "What is SwiftData?", back: "A persistence framework", creationDate: Date(timeIntervalSince1970: 200)),
        ]
        for card in sampleCards { context.insert(card) }
        #expect(context.hasChanges)
        try context.save()
        let reader = ModelContext(try stores.reopened())
        let cards = try reader.fetch(FetchDescriptor<Card>(sortBy: [SortDescriptor(\Card.creationDate, order: .reverse)]))
        #expect(cards.map(\.front) == ["What is SwiftData?", "Who invented the compiler?"])
        #expect(cards.last?.back == "Grace Hopper")
        // Editing a model (a @Bindable text field) is a change the context saves.
        cards[0].back = "Apple's persistence framework"
        #expect(reader.hasChanges)
        try reader.save()
        let again = try ModelContext(try stores.reopened()).fetch(FetchDescriptor<Card>(predicate: #Predicate { $0.front == "What is SwiftData?" }))
        #expect(again.first?.back == "Apple's persistence framework")
    }

    // MARK: The cached item

    @Test(arguments: StoreKind.allCases)
    func cachedItemsMergeAndKeepFavorites(kind: StoreKind) throws {
        let stores = try Stores(kind, [CachedItem.self])
        let context = ModelContext(stores.first)
        for id in [3, 1, 2] { context.insert(CachedItem(id: id, title: "title \(id)", detail: "detail \(id)")) }
        try context.save()

        // The view model's load: cached items sorted by id, then a merge of "remote" items.
        let modelContext = ModelContext(try stores.reopened())
        var items = try modelContext.fetch(FetchDescriptor<CachedItem>(sortBy: [SortDescriptor(\.id)]))
        #expect(items.map(\.id) == [1, 2, 3] && items.allSatisfy { !$0.isFavorite })
        items[1].isFavorite.toggle()
        for remote in [(id: 2, title: "new title 2", detail: "d2"), (id: 4, title: "title 4", detail: "d4")] {
            if let existing = items.first(where: { $0.id == remote.id }) {
                existing.title = remote.title
                existing.detail = remote.detail
            } else {
                let new = CachedItem(id: remote.id, title: remote.title, detail: remote.detail)
                modelContext.insert(new)
                items.append(new)
            }
        }
        try modelContext.save()
        let reread = try ModelContext(try stores.reopened()).fetch(FetchDescriptor<CachedItem>(sortBy: [SortDescriptor(\.id)]))
        #expect(reread.map(\.id) == [1, 2, 3, 4])
        #expect(reread[1].title == "new title 2" && reread[1].isFavorite && !reread[3].isFavorite)
        #expect(reread.allSatisfy { $0.cachedAt <= .now })
        // Every model has a persistent identifier besides its own `id` attribute.
        #expect(Set(reread.map(\.persistentModelID)).count == 4)
    }

    // MARK: The expense

    @Test(arguments: StoreKind.allCases)
    func expensesKeepDecimalsAndCategories(kind: StoreKind) throws {
        let stores = try Stores(kind, [Expense.self])
        let context = ModelContext(stores.first)
        let day: TimeInterval = 86_400
        context.insert(Expense(title: "Coffee", amount: Decimal(string: "9.99")!, category: .food, date: Date(timeIntervalSince1970: 1 * day)))
        context.insert(Expense(title: "Train", amount: 100, category: .travel, date: Date(timeIntervalSince1970: 2 * day)))
        context.insert(Expense(title: "Lunch", amount: Decimal(string: "12.5")!, category: .food, date: Date(timeIntervalSince1970: 3 * day)))
        try context.save()

        let reader = ModelContext(try stores.reopened())
        // @Query(sort: \Expense.date, order: .reverse)
        let expenses = try reader.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\Expense.date, order: .reverse)]))
        #expect(expenses.map(\.title) == ["Lunch", "Train", "Coffee"])
        #expect(expenses.map(\.amount) == [Decimal(string: "12.5")!, 100, Decimal(string: "9.99")!])
        #expect(expenses.map(\.category) == [.food, .travel, .food] && expenses.allSatisfy { $0.note.isEmpty })
        // RecentExpensesView's query, built from a value the view receives.
        let start = Date(timeIntervalSince1970: 2 * day)
        let recent = try reader.fetch(FetchDescriptor<Expense>(predicate: #Predicate<Expense> { $0.date >= start }, sortBy: [SortDescriptor(\.date, order: .reverse)]))
        #expect(recent.map(\.title) == ["Lunch", "Train"])
        // Filtering on the enum in the predicate works here (a captured case).
        let food = Category.food
        let meals = try reader.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.category == food }, sortBy: [SortDescriptor(\.title)]))
        #expect(meals.map(\.title) == ["Coffee", "Lunch"])
        // Delete through the context (the list's onDelete).
        reader.delete(expenses[1])
        try reader.save()
        #expect(try ModelContext(try stores.reopened()).fetchCount(FetchDescriptor<Expense>()) == 2)
    }

    // MARK: Wishlist: trips, activities, images, goals

    @Test(arguments: StoreKind.allCases)
    func tripsCascadeToActivitiesAndKeepTheirPhoto(kind: StoreKind) throws {
        let stores = try Stores(kind, [Trip.self, Activity.self, TripImage.self, Goal.self, TripGoal.self, ActivityGoal.self])
        let context = ModelContext(stores.first)
        let pixels = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let lights = Trip(name: "Northern Lights", collection: .winter, photo: TripImage(data: pixels))
        let hike = Activity(name: "Night hike"), sauna = Activity(name: "Sauna")
        lights.activities = [hike, sauna]
        #expect(hike.trip === lights)  // the inverse, kept in step before any insert
        context.insert(lights)
        for i in 0..<6 {
            context.insert(Trip(name: "Trip \(i)", collection: .summer, photo: TripImage(data: Data([UInt8(i)]))))
        }
        context.insert(Activity(name: "Unplanned"))
        try context.save()

        let reader = ModelContext(try stores.reopened())
        // The five most recently added trips.
        var recent = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\Trip.creationDate, order: .reverse)])
        recent.fetchLimit = 5
        #expect(try reader.fetch(recent).count == 5)
        // A season's trips, sorted by name.
        let tripCollection = TripCollection.winter
        let winter = try reader.fetch(FetchDescriptor<Trip>(predicate: #Predicate<Trip> { $0.collection == tripCollection }, sortBy: [SortDescriptor(\Trip.name)]))
        #expect(winter.map(\.name) == ["Northern Lights"])
        let trip = try #require(winter.first)
        #expect(trip.photo.data == pixels)  // the non-optional to-one, through external storage
        #expect(Set(trip.activities.map(\.name)) == ["Night hike", "Sauna"] && trip.activities.allSatisfy { $0.trip === trip })
        // Activities that belong to a trip, by name (the seed's search, with `contains`:
        // `localizedStandardContains` doesn't compile in a predicate on Linux).
        let searchText = "i"
        let found = try reader.fetch(FetchDescriptor<Activity>(predicate: #Predicate<Activity> { $0.trip != nil && $0.name.contains(searchText) }, sortBy: [SortDescriptor(\Activity.name)]))
        #expect(found.map(\.name) == ["Night hike"])
        // Deleting a trip deletes its activities (cascade), not the unplanned one.
        reader.delete(trip)
        try reader.save()
        let after = ModelContext(try stores.reopened())
        #expect(try after.fetch(FetchDescriptor<Activity>()).map(\.name) == ["Unplanned"])
        #expect(try after.fetchCount(FetchDescriptor<Trip>()) == 6)
    }

    @Test(arguments: StoreKind.allCases)
    func goalsShareTheirBaseClassAttributes(kind: StoreKind) throws {
        let stores = try Stores(kind, [Goal.self, TripGoal.self, ActivityGoal.self])
        let context = ModelContext(stores.first)
        let first = TripGoal(name: "First trip", target: 1)
        first.isComplete = true
        first.dateAchieved = Date(timeIntervalSince1970: 10)
        let ten = ActivityGoal(name: "Ten activities", target: 10)
        ten.sortOrder = 2
        let plain = Goal(name: "Plain", target: 3)
        plain.sortOrder = 1
        for goal in [first, ten, plain] { context.insert(goal) }
        try context.save()

        let reader = ModelContext(try stores.reopened())
        // Subclasses inherit every persistent property; a fetch of the base class includes them.
        let achieved = try reader.fetch(FetchDescriptor<Goal>(predicate: #Predicate<Goal> { $0.isComplete }, sortBy: [SortDescriptor(\Goal.dateAchieved, order: .reverse)]))
        #expect(achieved.map(\.name) == ["First trip"] && achieved.first is TripGoal)
        let upcoming = try reader.fetch(FetchDescriptor<Goal>(predicate: #Predicate<Goal> { !$0.isComplete }, sortBy: [SortDescriptor(\Goal.sortOrder)]))
        #expect(upcoming.map(\.name) == ["Plain", "Ten activities"])
        #expect(upcoming.last is ActivityGoal && upcoming.first.map { type(of: $0) == Goal.self } == true)
        #expect(try reader.fetch(FetchDescriptor<TripGoal>()).map(\.target) == [1])
    }

    // MARK: The WWDC trip

    @Test(arguments: StoreKind.allCases)
    func wwdcTripsCascadeAndFilterOnTheirItems(kind: StoreKind) throws {
        // ModelContainer(for: Trip.self) infers the related model classes.
        let stores = try Stores(kind, [WWDC23.Trip.self])
        #expect(Set(stores.first.schema.entities.map(\.name)) == ["Trip", "BucketListItem", "LivingAccommodation"])
        let context = ModelContext(stores.first)
        for (index, reserved) in [[true, false], [true], []].enumerated() {
            let trip = WWDC23.Trip()
            trip.name = "Trip \(index)"
            trip.start_date = Date(timeIntervalSince1970: Double(10 - index))
            trip.bucketListItem = reserved.enumerated().map { WWDC23.BucketListItem(title: "item \($0.offset)", hasReservation: $0.element) }
            trip.livingAccommodation = WWDC23.LivingAccommodation(placeName: "Hotel \(index)")
            context.insert(trip)
        }
        try context.save()

        let reader = ModelContext(try stores.reopened())
        var descriptor = FetchDescriptor(predicate: #Predicate<WWDC23.Trip> { trip in
            trip.bucketListItem.filter { $0.hasReservation == false }.count > 0
        })
        descriptor.sortBy = [SortDescriptor(\.start_date)]
        #expect(try reader.fetch(descriptor).map(\.name) == ["Trip 0"])
        var names: [String] = []
        try reader.enumerate(FetchDescriptor<WWDC23.Trip>(sortBy: [SortDescriptor(\.start_date)]), batchSize: 2) { trip in
            names.append(trip.name ?? "")
        }
        #expect(names == ["Trip 2", "Trip 1", "Trip 0"])
        // Deleting a trip deletes its bucket-list items and its accommodation (cascade).
        let first = try #require(try reader.fetch(descriptor).first)
        reader.delete(first)
        try reader.save()
        let after = ModelContext(try stores.reopened())
        #expect(try after.fetchCount(FetchDescriptor<WWDC23.BucketListItem>()) == 1)
        #expect(try after.fetch(FetchDescriptor<WWDC23.LivingAccommodation>(sortBy: [SortDescriptor(\.placeName)])).map(\.placeName) == ["Hotel 1", "Hotel 2"])
    }
}
