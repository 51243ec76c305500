import Foundation
import Testing
@testable import Persistence
import PersistenceTestSupport

/// A save compares the relationships of a registered model only when they changed since they
/// were last the stored state (``BackingData/relationshipsChanged``): these are the ways they
/// change after a save, each of which the next save must still store.
@Suite struct RelationshipChangeTrackingTests {
    /// Twenty cards in deck A, saved, and still registered in `context`.
    private func savedDecks(_ kind: StoreKind, in playground: Playground) throws
        -> (container: ModelContainer, context: ModelContext, a: Deck, b: Deck, cards: [Card]) {
        let container = try kind.container([Card.self, Deck.self, Tag.self, Review.self], in: playground)
        let context = ModelContext(container)
        let a = Deck(title: "A"), b = Deck(title: "B")
        context.insert(a)
        context.insert(b)
        let cards = (0..<20).map { Card(front: String(format: "%02d", $0), back: "") }
        for card in cards { context.insert(card) }
        a.cards = cards
        try context.save()
        #expect(!context.hasChanges)
        return (container, context, a, b, cards)
    }

    private func decksOfCards(_ container: ModelContainer) throws -> [String?] {
        // The context must outlive the reads: its models load relationships through it.
        let context = ModelContext(container)
        let cards = try context.fetch(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front)]))
        return withExtendedLifetime(context) { cards.map { $0.deck?.title } }
    }

    /// A card moved from the to-many side changes the card's to-one through the inverse;
    /// one moved from the to-one side changes the deck's list.
    @Test(arguments: StoreKind.allCases)
    func movesFromEitherSideAfterASaveAreStored(kind: StoreKind) throws {
        let playground = try Playground()
        let (container, context, _, b, cards) = try savedDecks(kind, in: playground)
        b.cards.append(cards[3])
        #expect(context.hasChanges)
        try context.save()
        #expect(!context.hasChanges)
        var expected: [String?] = Array(repeating: "A", count: 20)
        expected[3] = "B"
        #expect(try decksOfCards(container) == expected)

        cards[5].deck = b
        #expect(context.hasChanges)
        try context.save()
        expected[5] = "B"
        #expect(try decksOfCards(container) == expected)

        cards[5].deck = nil
        try context.save()
        expected[5] = nil
        #expect(try decksOfCards(container) == expected)
    }

    /// A model reached only through a relationship of a registered model is inserted by the
    /// save (processPendingChanges), however long ago that model was last saved.
    @Test(arguments: StoreKind.allCases)
    func aModelAddedToARegisteredOnesListIsInserted(kind: StoreKind) throws {
        let playground = try Playground()
        let (container, context, _, _, cards) = try savedDecks(kind, in: playground)
        try context.save()  // a save with nothing to store between
        cards[7].reviews.append(Review(ease: 4))
        try context.save()
        let fresh = ModelContext(container)
        let reviews = try fresh.fetch(FetchDescriptor<Review>())
        #expect(reviews.map(\.ease) == [4])
        #expect(reviews.first?.card?.front == "07")
        withExtendedLifetime(fresh) {}
    }

    /// A to-many list loaded lazily in a fresh context, saved with nothing to store, then
    /// changed: the change is stored.
    @Test(arguments: StoreKind.allCases)
    func aListLoadedThenChangedIsStored(kind: StoreKind) throws {
        let playground = try Playground()
        let (container, _, _, _, _) = try savedDecks(kind, in: playground)
        let context = ModelContext(container)
        let decks = try context.fetch(FetchDescriptor<Deck>(sortBy: [SortDescriptor(\.title)]))
        #expect(decks[0].cards.count == 20)
        try context.save()
        #expect(!context.hasChanges)
        let moved = decks[0].cards.filter { $0.front < "04" }
        decks[1].cards = moved
        #expect(context.hasChanges)
        try context.save()
        #expect(try decksOfCards(container) == Array(repeating: "B", count: 4) + Array(repeating: "A", count: 16))
    }

    /// A save that fails keeps the relationship changes it did not store: the next one
    /// stores them.
    @Test(arguments: StoreKind.allCases)
    func aFailedSaveKeepsRelationshipChanges(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Guild.self, Apprentice.self, Workshop.self, Artisan.self], in: playground)
        let context = ModelContext(container)
        let first = Guild(name: "first"), second = Guild(name: "second")
        context.insert(first)
        context.insert(second)
        let apprentice = Apprentice(name: "Ada", guild: first)
        context.insert(apprentice)
        try context.save()

        apprentice.guild = second
        let homeless = Artisan()  // its non-optional workshop is missing: the save is refused
        homeless.name = "nobody"
        context.insert(homeless)
        #expect(throws: PersistenceError.self) { try context.save() }
        context.delete(homeless)
        try context.save()
        let fresh = ModelContext(container)
        let stored = try fresh.fetch(FetchDescriptor<Apprentice>())
        #expect(stored.map(\.guild.name) == ["second"])
        withExtendedLifetime(fresh) {}
    }
}
