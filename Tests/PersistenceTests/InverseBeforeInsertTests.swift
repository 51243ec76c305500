import Foundation
import Testing
@testable import Persistence
import PersistenceTestSupport

@Suite struct InverseBeforeInsertTests {
    /// Relationships set between models that are in no context yet keep their inverses, so
    /// the foreign key is written when the graph is inserted.
    @Test(arguments: StoreKind.allCases)
    func inversesAreKeptBeforeInsert(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Card.self, Deck.self, Tag.self, Review.self], in: playground)
        let deck = Deck(title: "French")
        let chat = Card(front: "chat", back: "cat"), chien = Card(front: "chien", back: "dog")
        deck.cards = [chat, chien]                  // to-many side set
        #expect(chat.deck === deck && chien.deck === deck)
        let review = Review(ease: 3)
        review.card = chat                           // to-one side set
        #expect(chat.reviews.count == 1)
        deck.cards = [chat]                          // removal too
        #expect(chien.deck == nil)
        let context = ModelContext(container)
        context.insert(deck)
        context.insert(chien)
        try context.save()
        let fresh = ModelContext(container)
        let cards = try fresh.fetch(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front)]))
        #expect(cards.map { $0.deck?.title } == ["French", nil])
        #expect(cards[0].reviews.map(\.ease) == [3])
    }
}
