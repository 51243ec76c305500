import Foundation
import Testing
@testable import Persistence
import PersistenceTestSupport

@Suite struct HistoryTests {
    @Test(arguments: StoreKind.allCases)
    func savesAreRecordedReadAfterATokenAndPruned(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Card.self, Deck.self, Tag.self, Review.self], in: playground)
        container.isHistoryEnabled = true
        let context = ModelContext(container)
        context.author = "importer"
        let start = try container.currentHistoryToken()
        let deck = Deck(title: "French")
        let card = Card(front: "chat", back: "cat")
        card.deck = deck
        context.insert(card)
        try context.save()
        card.back = "the cat"
        try context.save()
        context.author = nil
        context.delete(card)
        try context.save()
        try context.save()  // nothing to save: nothing recorded

        let all = try container.fetchHistory(after: start)
        #expect(all.count == 3)
        #expect(all.map(\.author) == ["importer", "importer", nil])
        #expect(Set(all[0].inserted.map(\.entityName)) == ["Card", "Deck"] && all[0].updated.isEmpty && all[0].deleted.isEmpty)
        #expect(all[1].updated == [card.persistentModelID] || all[1].updated.map(\.primaryKey) == [card.persistentModelID.primaryKey])
        #expect(all[2].deleted.map(\.entityName) == ["Card"])
        #expect(all[0].timestamp <= all[2].timestamp)
        // Reading after a transaction's token gives only the later ones.
        #expect(try container.fetchHistory(after: all[0].token).map(\.sequence) == all.dropFirst().map(\.sequence))
        #expect(try container.fetchHistory(after: all[2].token).isEmpty)
        // Bulk deletes in SQL are recorded too.
        context.insert(Card(front: "a", back: ""))
        try context.save()
        try context.delete(model: Card.self)
        let later = try container.fetchHistory(after: all[2].token)
        #expect(later.count == 2 && later[1].deleted.count == 1)
        // Pruning.
        try container.deleteHistory(through: all[1].token)
        #expect(try container.fetchHistory().map(\.sequence) == [all[2].sequence] + later.map(\.sequence))
    }

    @Test func anotherContainerOnTheFileCatchesUp() throws {
        let playground = try Playground()
        let url = playground.file("shared.sqlite")
        let writer = try ModelContainer(for: Card.self, configurations: ModelConfiguration(url: url))
        writer.isHistoryEnabled = true
        let reader = try ModelContainer(for: Card.self, configurations: ModelConfiguration(url: url))
        var token = try reader.currentHistoryToken()
        let context = ModelContext(writer)
        context.author = "phone"
        for i in 0..<3 { context.insert(Card(front: "\(i)", back: "")) }
        try context.save()
        let seen = try reader.fetchHistory(after: token)
        #expect(seen.count == 1 && seen[0].inserted.count == 3 && seen[0].author == "phone")
        token = try #require(seen.last?.token)
        // The token survives encoding (kept across launches).
        let data = try JSONEncoder().encode(token)
        let decoded = try JSONDecoder().decode(HistoryToken.self, from: data)
        let fetched = try ModelContext(reader).model(for: seen[0].inserted[0]) as? Card
        #expect(fetched?.front == "0")
        #expect(try reader.fetchHistory(after: decoded).isEmpty)
    }

    @Test func offByDefault() throws {
        let playground = try Playground()
        let container = try StoreKind.memory.container([Card.self], in: playground)
        let context = ModelContext(container)
        context.insert(Card(front: "a", back: ""))
        try context.save()
        #expect(try container.fetchHistory().isEmpty)
    }
}
