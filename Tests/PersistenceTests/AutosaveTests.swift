import Foundation
import Testing
@testable import Persistence
import PersistenceTestSupport

@Suite struct AutosaveTests {
    static func stored(_ container: ModelContainer) throws -> Int {
        try ModelContext(container).fetchCount(FetchDescriptor<Card>())
    }

    @Test(arguments: StoreKind.allCases)
    func savesShortlyAfterABurstEnds(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Card.self], in: playground)
        let context = ModelContext(container)
        let clock = ManualAutosaveScheduler()
        context.autosaveScheduler = clock
        context.autosaveDelay = .seconds(1)
        context.autosaveEnabled = true
        // A burst: a card every half second for two seconds.
        for i in 0..<4 {
            context.insert(Card(front: "\(i)", back: ""))
            clock.advance(by: .milliseconds(500))
        }
        #expect(try Self.stored(container) == 0)  // the burst was still going at every check
        clock.advance(by: .seconds(1))
        #expect(try Self.stored(container) == 4 && !context.hasChanges)
        // An attribute change alone is found by the next check.
        let card = try #require(try context.fetch(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front)])).first)
        card.back = "edited"
        clock.advance(by: .milliseconds(999))
        #expect(context.hasChanges)
        clock.advance(by: .milliseconds(1))
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Card>(predicate: #Predicate { $0.back == "edited" })).count == 1)
    }

    @MainActor @Test func offMeansNoSave() throws {
        let playground = try Playground()
        let container = try StoreKind.memory.container([Card.self], in: playground)
        let context = ModelContext(container)
        let clock = ManualAutosaveScheduler()
        context.autosaveScheduler = clock
        #expect(!context.autosaveEnabled)
        context.insert(Card(front: "a", back: ""))
        clock.advance(by: .seconds(10))
        #expect(try Self.stored(container) == 0)
        #expect(container.mainContext.autosaveEnabled)
    }

    @Test func errorsReachTheHandlerAndTheStream() async throws {
        let playground = try Playground()
        let url = playground.file("store.sqlite")
        try ModelContainer(for: Card.self, configurations: ModelConfiguration(url: url)).close()
        let container = try ModelContainer(for: Card.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        let context = ModelContext(container)
        let clock = ManualAutosaveScheduler()
        context.autosaveScheduler = clock
        var handled: [String] = []
        context.autosaveErrorHandler = { handled.append("\($0)") }
        let stream = context.autosaveErrors()
        context.autosaveEnabled = true
        context.insert(Card(front: "a", back: ""))
        clock.advance(by: .seconds(5))
        #expect(handled.count == 1 && handled[0].contains("read-only"))  // reported once, not every second
        #expect(context.lastAutosaveError != nil && context.hasChanges)
        var iterator = stream.makeAsyncIterator()
        let streamed = await iterator.next()
        #expect(streamed.map { "\($0)".contains("read-only") } == true)
    }

    @MainActor @Test func closeSavesTheMainContextAndReportsFailure() throws {
        let playground = try Playground()
        let url = playground.file("store.sqlite")
        let container = try ModelContainer(for: Card.self, configurations: ModelConfiguration(url: url))
        container.mainContext.autosaveScheduler = ManualAutosaveScheduler()  // no check ever runs
        container.mainContext.insert(Card(front: "kept", back: ""))
        try container.close()
        let reopened = try ModelContainer(for: Card.self, configurations: ModelConfiguration(url: url))
        #expect(try Self.stored(reopened) == 1)
        // A failing save at close throws to the caller.
        let tag1 = Tag(name: "x")
        let broken = try ModelContainer(for: Card.self, Tag.self, configurations: ModelConfiguration(url: playground.file("two.sqlite")))
        broken.mainContext.autosaveScheduler = ManualAutosaveScheduler()
        let card = Card(front: "f", back: "")
        card.tags = [tag1]
        broken.mainContext.insert(card)
        try broken.withDatabase(for: Card.self) { db in try db.execute("CREATE TRIGGER refuse BEFORE INSERT ON Card BEGIN SELECT RAISE(ABORT, 'refused'); END") }
        #expect(throws: PersistenceError.self) { try broken.close() }
    }
}
