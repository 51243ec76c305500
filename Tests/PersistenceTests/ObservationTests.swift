import Foundation
import Observation
import Testing
@testable import Persistence
import PersistenceTestSupport

/// A model declared with the Observation macro.
@Observable final class Memo: PersistentModel {
    var title: String = ""
    var stars: Int = 0
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("title", \Memo.title),
        .attribute("stars", \Memo.stars),
    ]
    let persistentBackingData = BackingData()
    init() {}
    init(title: String) { self.title = title }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var _count = 0
    func hit() { lock.lock(); _count += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return _count }
}

@Suite struct ObservationTests {
    @Test(arguments: StoreKind.allCases)
    func observableModelsRoundTripAndNotify(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Memo.self], in: playground)
        let writer = ModelContext(container)
        writer.insert(Memo(title: "first"))
        try writer.save()
        let reader = ModelContext(container)
        let memo = try #require(try reader.fetch(FetchDescriptor<Memo>()).first)
        #expect(memo.title == "first")
        let query = try QueryObservation(FetchDescriptor<Memo>(), in: reader)
        // Observation sees the layer's writes: another context's save refreshes this model.
        let flag = Flag()
        withObservationTracking { _ = memo.title } onChange: { flag.hit() }
        let other = try #require(try writer.fetch(FetchDescriptor<Memo>()).first)
        other.title = "second"
        try writer.save()
        #expect(flag.count == 1 && memo.title == "second" && query.results.first === memo)
        // And a rollback writing the stored value back is seen too.
        withObservationTracking { _ = memo.stars } onChange: { flag.hit() }
        memo.stars = 5
        #expect(flag.count == 2)
        withObservationTracking { _ = memo.stars } onChange: { flag.hit() }
        reader.rollback()
        #expect(flag.count == 3 && memo.stars == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func queryFollowsSavesOfEveryContext(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Card.self, Deck.self], in: playground)
        let ui = ModelContext(container)
        var descriptor = FetchDescriptor<Card>(predicate: #Predicate { $0.back != "hidden" }, sortBy: [SortDescriptor(\.front)])
        descriptor.fetchLimit = 10
        let query = try QueryObservation(descriptor, in: ui)
        var deliveries: [[String]] = []
        query.onChange = { deliveries.append($0.map(\.front)) }
        #expect(query.results.isEmpty)

        let background = ModelContext(container)
        background.insert(Card(front: "b", back: "1"))
        background.insert(Card(front: "a", back: "2"))
        try background.save()
        #expect(query.results.map(\.front) == ["a", "b"])
        // An update elsewhere reaches the (already registered) models here.
        let b = try #require(try background.fetch(FetchDescriptor<Card>(predicate: #Predicate { $0.front == "b" })).first)
        b.back = "hidden"
        try background.save()
        #expect(query.results.map(\.front) == ["a"])
        // Saves of the query's own context count too; other entities don't.
        ui.insert(Card(front: "c", back: "3"))
        try ui.save()
        #expect(query.results.map(\.front) == ["a", "c"])
        background.insert(Deck(title: "unrelated"))
        try background.save()
        #expect(deliveries == [["a", "b"], ["a"], ["a", "c"]])
        // Deletes, including SQL-level ones.
        try background.delete(model: Card.self, where: #Predicate { $0.front == "a" })
        #expect(query.results.map(\.front) == ["c"])
        query.cancel()
        background.insert(Card(front: "d", back: "4"))
        try background.save()
        #expect(query.results.map(\.front) == ["c"])
    }

    @Test func identifierStreamCrossesTasks() async throws {
        let playground = try Playground()
        let container = try StoreKind.memory.container([Card.self], in: playground)
        let context = ModelContext(container)
        let query = try QueryObservation(FetchDescriptor<Card>(), in: context)
        let stream = query.identifierUpdates()
        context.insert(Card(front: "x", back: ""))
        try context.save()
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(first?.isEmpty == true)
        #expect(second?.count == 1 && second?.first?.isTemporary == false)
    }
}
