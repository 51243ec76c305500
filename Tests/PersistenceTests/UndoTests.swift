import Foundation
import Testing
@testable import Persistence

@Suite struct UndoTests {
    static func context(_ kind: StoreKind, _ playground: Playground) throws -> ModelContext {
        let context = ModelContext(try kind.container([Card.self, Deck.self, Tag.self, Review.self], in: playground))
        context.isUndoEnabled = true
        return context
    }

    @Test(arguments: StoreKind.allCases)
    func insertUndoRedo(kind: StoreKind) throws {
        let playground = try Playground()
        let context = try Self.context(kind, playground)
        #expect(!context.canUndo && !context.canRedo)
        let card = Card(front: "chat", back: "cat")
        context.insert(card)
        context.processPendingChanges()
        #expect(context.canUndo)
        context.undo()
        #expect(!context.hasChanges && card.modelContext == nil && context.insertedModelsArray.isEmpty)
        #expect(context.canRedo && !context.canUndo)
        context.redo()
        #expect(context.insertedModelsArray.count == 1 && card.modelContext === context)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Card>()) == 1)
        // Undoing a saved insert deletes the row at the next save.
        context.undo()
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Card>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func attributeChangesUndoOneGroupAtATime(kind: StoreKind) throws {
        let playground = try Playground()
        let context = try Self.context(kind, playground)
        let card = Card(front: "chat", back: "cat")
        context.insert(card)
        try context.save()
        card.front = "chien"
        context.processPendingChanges()
        card.front = "cheval"
        card.score = 2
        context.processPendingChanges()
        context.undo()
        #expect(card.front == "chien" && card.score == nil)
        context.undo()
        #expect(card.front == "chat" && !context.hasChanges)
        context.redo()
        context.redo()
        #expect(card.front == "cheval" && card.score == 2)
        // A new change forgets the redo steps.
        context.undo()
        card.back = "horse"
        #expect(context.canUndo && !context.canRedo)
    }

    @Test(arguments: StoreKind.allCases)
    func deleteWithCascadesComesBackWhole(kind: StoreKind) throws {
        let playground = try Playground()
        let context = try Self.context(kind, playground)
        let deck = Deck(title: "French")
        let cards = [Card(front: "chat", back: "cat"), Card(front: "chien", back: "dog")]
        deck.cards = cards
        cards[0].reviews = [Review(ease: 3)]
        let tag = Tag(name: "animals")
        tag.cards = cards
        context.insert(deck)
        try context.save()
        context.removeAllUndoActions()

        context.delete(deck)
        context.processPendingChanges()
        #expect(cards.allSatisfy(\.isDeleted) && cards[0].reviews.allSatisfy(\.isDeleted))
        context.undo()
        #expect(!deck.isDeleted && cards.allSatisfy { !$0.isDeleted } && cards[0].reviews.count == 1 && !cards[0].reviews[0].isDeleted)
        #expect(Set(deck.cards.map(\.front)) == ["chat", "chien"] && tag.cards.count == 2)
        #expect(!context.hasChanges)
        try context.save()
        let fresh = ModelContext(context.container)
        #expect(try fresh.fetchCount(FetchDescriptor<Card>()) == 2 && fresh.fetchCount(FetchDescriptor<Review>()) == 1)
        // Redo deletes again, and the save cascades in the store.
        context.redo()
        try context.save()
        #expect(try fresh.fetchCount(FetchDescriptor<Deck>()) == 0 && fresh.fetchCount(FetchDescriptor<Card>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func relationshipChangesAreUndone(kind: StoreKind) throws {
        let playground = try Playground()
        let context = try Self.context(kind, playground)
        let french = Deck(title: "French"), german = Deck(title: "German")
        let card = Card(front: "chat", back: "cat")
        card.deck = french
        let tag = Tag(name: "animals")
        context.insert(card)
        context.insert(german)
        context.insert(tag)
        try context.save()
        context.removeAllUndoActions()

        card.deck = german
        card.tags = [tag]
        context.processPendingChanges()
        try context.save()
        #expect(tag.cards.count == 1 && french.cards.isEmpty && german.cards.count == 1)
        context.undo()
        #expect(card.deck === french && french.cards.count == 1 && german.cards.isEmpty)
        #expect(card.tags.isEmpty && tag.cards.isEmpty)
        try context.save()
        // The store follows: the link row is gone, the card is back in its deck.
        let fresh = ModelContext(context.container)
        let stored = try #require(try fresh.fetch(FetchDescriptor<Card>()).first)
        #expect(stored.deck?.title == "French" && stored.tags.isEmpty)
    }

    @Test func explicitGroupsAndDepth() throws {
        let playground = try Playground()
        let context = try Self.context(.memory, playground)
        context.beginUndoGrouping()
        context.insert(Card(front: "a", back: "1"))
        context.processPendingChanges()  // inside an explicit group: no boundary
        context.insert(Card(front: "b", back: "2"))
        context.endUndoGrouping()
        context.undo()
        #expect(context.insertedModelsArray.isEmpty)
        #expect(!context.canUndo)

        context.undoLevels = 2
        for front in ["x", "y", "z"] {
            context.insert(Card(front: front, back: ""))
            context.processPendingChanges()
        }
        var undone = 0
        while context.canUndo { context.undo(); undone += 1 }
        #expect(undone == 2)
        #expect(context.insertedModelsArray.map { ($0 as? Card)?.front } == ["x"])
    }

    @Test func rollbackAndDisabledUndoRecordNothing() throws {
        let playground = try Playground()
        let context = try Self.context(.memory, playground)
        context.insert(Card(front: "a", back: "1"))
        context.processPendingChanges()
        #expect(context.canUndo)
        context.rollback()
        #expect(!context.canUndo && !context.canRedo)
        context.isUndoEnabled = false
        context.insert(Card(front: "b", back: "2"))
        context.processPendingChanges()
        context.undo()
        #expect(!context.canUndo && context.insertedModelsArray.count == 1)
    }
}
