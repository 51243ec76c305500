import SwiftData
import Testing
import PersistenceTestSupport

/// What the seed documents do beyond saving and reading back, each on a memory store and a
/// file: the budget's amounts compared as numbers, its enum queried by raw value, its edit
/// form's unsaved changes seen by the list and saved by autosave; goals queried through a
/// subclass; the trips app's undo, its hotel-name search, its reservation reminders
/// (`enumerate` with escaping mutations) and a deleted accommodation no trip points to.
@Suite struct SeedBehaviourTests {
    typealias Stores = SeedTests.Stores
    private static let day: TimeInterval = 86_400

    private func budget(_ kind: StoreKind) throws -> Stores {
        let stores = try Stores(kind, [Expense.self])
        let context = ModelContext(stores.first)
        context.insert(Expense(title: "Coffee", amount: Decimal(string: "9.99")!, category: .food, date: Date(timeIntervalSince1970: 1 * Self.day)))
        context.insert(Expense(title: "Train", amount: 100, category: .travel, date: Date(timeIntervalSince1970: 2 * Self.day)))
        context.insert(Expense(title: "Lunch", amount: Decimal(string: "12.5")!, category: .food, date: Date(timeIntervalSince1970: 3 * Self.day)))
        try context.save()
        return stores
    }

    @Test(arguments: StoreKind.allCases)
    func expenseAmountsCompareAsNumbers(kind: StoreKind) throws {
        let stores = try budget(kind)
        let reader = ModelContext(try stores.reopened())
        // "Keep predicates to simple stored properties such as dates, numbers and strings."
        let limit: Decimal = 50
        #expect(try reader.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount > limit })).map(\.title) == ["Train"])
        let small: Decimal = 10
        #expect(try reader.fetchCount(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount < small })) == 1)
        let byAmount = try reader.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount, order: .reverse)]))
        #expect(byAmount.map(\.title) == ["Train", "Lunch", "Coffee"])
        // "Store the category's raw value as a String if you need to query by it": the raw
        // value works in the predicate itself.
        let meals = try reader.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.category.rawValue == "food" }, sortBy: [SortDescriptor(\.title)]))
        #expect(meals.map(\.title) == ["Coffee", "Lunch"])
    }

    @Test(arguments: StoreKind.allCases)
    func theListSeesUnsavedEditsAndAutosaveStoresThem(kind: StoreKind) throws {
        let stores = try budget(kind)
        let container = try stores.reopened()
        // The main context: the edit form changes a model, the add form inserts one, no save.
        let context = container.sharedMainContext
        let scheduler = ManualAutosaveScheduler()
        context.autosaveScheduler = scheduler
        #expect(context.autosaveEnabled)
        let lunch = try #require(try context.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.title == "Lunch" })).first)
        lunch.amount = 60
        context.insert(Expense(title: "Hotel", amount: 200, category: .travel, date: Date(timeIntervalSince1970: 4 * Self.day)))
        // @Query(sort: \Expense.date, order: .reverse) and a filtered query see both at once.
        let limit: Decimal = 50
        let expensive = FetchDescriptor<Expense>(predicate: #Predicate { $0.amount > limit }, sortBy: [SortDescriptor(\.amount, order: .reverse)])
        #expect(try context.fetch(expensive).map(\.title) == ["Hotel", "Train", "Lunch"])
        #expect(try context.fetchCount(expensive) == 3)
        var page = expensive
        page.fetchOffset = 1
        page.fetchLimit = 1
        #expect(try context.fetch(page).map(\.title) == ["Train"])
        #expect(try context.fetchCount(page) == 1)
        var newest = FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.date, order: .reverse)])
        newest.fetchLimit = 2
        #expect(try context.fetch(newest).map(\.title) == ["Hotel", "Lunch"])
        // Nothing is stored yet; autosave writes it once the burst is over.
        #expect(try ModelContext(container).fetchCount(expensive) == 1)
        scheduler.advance(by: .seconds(3))
        #expect(!context.hasChanges && context.lastAutosaveError == nil)
        #expect(try ModelContext(container).fetch(expensive).map(\.title) == ["Hotel", "Train", "Lunch"])
    }

    @Test(arguments: StoreKind.allCases)
    func goalsAreQueriedThroughTheirSubclass(kind: StoreKind) throws {
        let stores = try Stores(kind, [Goal.self, TripGoal.self, ActivityGoal.self])
        let context = ModelContext(stores.first)
        for (name, target, order, complete) in [("Ten activities", 10, 3, false), ("Two activities", 2, 1, true), ("Five activities", 5, 2, false)] {
            let goal = ActivityGoal(name: name, target: target)
            goal.sortOrder = order
            goal.isComplete = complete
            context.insert(goal)
        }
        context.insert(TripGoal(name: "First trip", target: 1))
        try context.save()
        let reader = ModelContext(try stores.reopened())
        // The seed's upcoming-goals query, on the subclass: inherited attributes in the
        // predicate and the sort.
        let upcoming = try reader.fetch(FetchDescriptor<ActivityGoal>(predicate: #Predicate { !$0.isComplete }, sortBy: [SortDescriptor(\.sortOrder)]))
        #expect(upcoming.map(\.name) == ["Five activities", "Ten activities"])
        #expect(try reader.fetchCount(FetchDescriptor<TripGoal>(predicate: #Predicate { !$0.isComplete })) == 1)
        let big = try reader.fetch(FetchDescriptor<Goal>(predicate: #Predicate { $0.target >= 5 }, sortBy: [SortDescriptor(\.target)]))
        #expect(big.map(\.name) == ["Five activities", "Ten activities"] && big.allSatisfy { $0 is ActivityGoal })
    }

    private func trips(_ kind: StoreKind) throws -> Stores {
        let stores = try Stores(kind, [WWDC23.Trip.self])
        let context = ModelContext(stores.first)
        for (index, hotel) in ["First", "Elsewhere", "Third"].enumerated() {
            let trip = WWDC23.Trip()
            trip.name = "Trip \(index)"
            trip.start_date = Date(timeIntervalSince1970: Double(index))
            trip.bucketListItem = [WWDC23.BucketListItem(title: "item \(index)", hasReservation: false)]
            trip.livingAccommodation = WWDC23.LivingAccommodation(placeName: hotel)
            context.insert(trip)
        }
        try context.save()
        return stores
    }

    @Test(arguments: StoreKind.allCases)
    func deletingATripCanBeUndone(kind: StoreKind) throws {
        // .modelContainer(for: Trip.self, isUndoEnabled: true), then the list's onDelete.
        let stores = try trips(kind)
        let context = ModelContext(try stores.reopened())
        context.isUndoEnabled = true
        let trips = try context.fetch(FetchDescriptor<WWDC23.Trip>(sortBy: [SortDescriptor(\.start_date)]))
        context.delete(trips[0])
        context.processPendingChanges()
        #expect(context.deletedModelsArray.count == 3)  // the trip, its item, its accommodation
        #expect(context.canUndo)
        context.undo()
        #expect(context.deletedModelsArray.isEmpty && !context.hasChanges)
        // Deleting again is saved.
        context.delete(trips[1])
        try context.save()
        #expect(try ModelContext(try stores.reopened()).fetchCount(FetchDescriptor<WWDC23.Trip>()) == 2)
        let after = ModelContext(try stores.reopened())
        let names = try after.fetch(FetchDescriptor<WWDC23.Trip>(sortBy: [SortDescriptor(\.start_date)])).compactMap(\.name)
        #expect(names == ["Trip 0", "Trip 2"])
        let items = try after.fetch(FetchDescriptor<WWDC23.BucketListItem>(sortBy: [SortDescriptor(\.title)])).map(\.title)
        #expect(items == ["item 0", "item 2"])
    }

    @Test(arguments: StoreKind.allCases)
    func aSavedDeleteWithCascadeCanBeUndone(kind: StoreKind) throws {
        // The list's onDelete, then autosave, then Edit > Undo: the trip and the models its
        // delete cascaded to come back, related as before, and are stored again.
        let stores = try trips(kind)
        let context = ModelContext(try stores.reopened())
        context.isUndoEnabled = true
        let trips = try context.fetch(FetchDescriptor<WWDC23.Trip>(sortBy: [SortDescriptor(\.start_date)]))
        // The children are not read before the delete (the list shows trips only).
        let trip = trips[0]
        context.delete(trip)
        try context.save()
        #expect(try ModelContext(try stores.reopened()).fetchCount(FetchDescriptor<WWDC23.Trip>()) == 2)
        #expect(try ModelContext(try stores.reopened()).fetchCount(FetchDescriptor<WWDC23.BucketListItem>()) == 2)
        #expect(try ModelContext(try stores.reopened()).fetchCount(FetchDescriptor<WWDC23.LivingAccommodation>()) == 2)
        #expect(context.canUndo)
        context.undo()
        #expect(context.hasChanges)
        #expect(!trip.isDeleted)
        #expect(trip.bucketListItem.map(\.title) == ["item 0"])
        #expect(trip.bucketListItem.allSatisfy { !$0.isDeleted })
        #expect(trip.livingAccommodation?.placeName == "First")
        #expect(trip.livingAccommodation?.isDeleted == false)
        try context.save()

        let after = ModelContext(try stores.reopened())
        let names = try after.fetch(FetchDescriptor<WWDC23.Trip>(sortBy: [SortDescriptor(\.start_date)])).compactMap(\.name)
        #expect(names == ["Trip 0", "Trip 1", "Trip 2"])
        let items = try after.fetch(FetchDescriptor<WWDC23.BucketListItem>(sortBy: [SortDescriptor(\.title)])).map(\.title)
        #expect(items == ["item 0", "item 1", "item 2"])
        #expect(try after.fetchCount(FetchDescriptor<WWDC23.LivingAccommodation>()) == 3)
        let restored = try #require(try after.fetch(FetchDescriptor<WWDC23.Trip>(predicate: #Predicate { $0.name == "Trip 0" })).first)
        #expect(restored.bucketListItem.map(\.title) == ["item 0"])
        #expect(restored.livingAccommodation?.placeName == "First")
        // Redo deletes them again, cascade included.
        context.redo()
        try context.save()
        let redone = ModelContext(try stores.reopened())
        #expect(try redone.fetchCount(FetchDescriptor<WWDC23.Trip>()) == 2)
        #expect(try redone.fetchCount(FetchDescriptor<WWDC23.BucketListItem>()) == 2)
        #expect(try redone.fetchCount(FetchDescriptor<WWDC23.LivingAccommodation>()) == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func hotelSearchAndReservationReminders(kind: StoreKind) throws {
        let stores = try trips(kind)
        let context = ModelContext(try stores.reopened())
        // The session's hotel-name search, on the accommodations themselves.
        let hotelNames = ["First", "Second", "Third"]
        let hotels = try context.fetch(FetchDescriptor<WWDC23.LivingAccommodation>(
            predicate: #Predicate { hotelNames.contains($0.placeName) }, sortBy: [SortDescriptor(\.placeName)]))
        #expect(hotels.map(\.placeName) == ["First", "Third"])
        // "Remind me to make reservations for trip": enumerate with escaping mutations allowed,
        // and the reservations made inside are saved.
        let descriptor = FetchDescriptor(predicate: #Predicate<WWDC23.Trip> { trip in
            trip.bucketListItem.filter { $0.hasReservation == false }.count > 0
        }, sortBy: [SortDescriptor(\.start_date)])
        var reminded: [String] = []
        try context.enumerate(descriptor, batchSize: 500, allowEscapingMutations: true) { trip in
            reminded.append(trip.name ?? "")
            if trip.name != "Trip 1" { for item in trip.bucketListItem { item.hasReservation = true } }
        }
        #expect(reminded == ["Trip 0", "Trip 1", "Trip 2"])
        try context.save()
        #expect(try ModelContext(try stores.reopened()).fetch(descriptor).compactMap(\.name) == ["Trip 1"])
        // Without escaping mutations allowed, the same edit is refused.
        let strict = ModelContext(try stores.reopened())
        #expect(throws: PersistenceError.self) {
            try strict.enumerate(descriptor, batchSize: 500) { trip in trip.destination = "booked" }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deletingAnAccommodationLeavesItsTripWithout(kind: StoreKind) throws {
        // Trip.livingAccommodation has no inverse: deleting the accommodation itself
        // nullifies the trip's reference, and this save and later ones succeed.
        let stores = try trips(kind)
        let context = ModelContext(try stores.reopened())
        let hotel = try #require(try context.fetch(FetchDescriptor<WWDC23.LivingAccommodation>(predicate: #Predicate { $0.placeName == "First" })).first)
        context.delete(hotel)
        try context.save()
        let trip = try #require(try context.fetch(FetchDescriptor<WWDC23.Trip>(predicate: #Predicate { $0.name == "Trip 0" })).first)
        #expect(trip.livingAccommodation == nil)
        trip.destination = "Cupertino"
        try context.save()
        let after = ModelContext(try stores.reopened())
        let reread = try after.fetch(FetchDescriptor<WWDC23.Trip>(sortBy: [SortDescriptor(\.start_date)]))
        #expect(reread.map { $0.livingAccommodation?.placeName } == [nil, "Elsewhere", "Third"])
        #expect(reread.first?.destination == "Cupertino")
    }
}
