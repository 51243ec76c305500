import Foundation
import Testing
@testable import Persistence
import PersistenceTestSupport

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

    /// An explicit group that spans a save (change, save, end the group) still undoes the
    /// attribute-only changes made before the save: the save made them the stored values, so
    /// the group must have recorded them by then (it lost them: only models with a reported
    /// change, an insert or a relationship, came back).
    @Test(arguments: StoreKind.allCases)
    func anExplicitGroupSpanningASaveUndoesItsAttributeChanges(kind: StoreKind) throws {
        let playground = try Playground()
        let context = try Self.context(kind, playground)
        let first = Card(front: "chat", back: "cat"), second = Card(front: "chien", back: "dog")
        context.insert(first)
        context.insert(second)
        try context.save()
        context.removeAllUndoActions()
        context.beginUndoGrouping()
        first.front = "CHAT"
        second.back = "DOG"
        context.insert(Card(front: "vache", back: "cow"))
        try context.save()
        context.endUndoGrouping()
        #expect(context.canUndo)
        context.undo()
        try context.save()
        #expect(first.front == "chat" && second.back == "dog", "both attribute changes undone")
        #expect(try context.fetchCount(FetchDescriptor<Card>()) == 2)
        context.redo()
        #expect(first.front == "CHAT" && second.back == "DOG")
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

    /// Saving between every step (as `deck open` does): a model whose row a save removed
    /// comes back under its own key, with its links, and the step names follow the stack.
    @Test(arguments: StoreKind.allCases)
    func keysSurviveUndoAndRedoAcrossSaves(kind: StoreKind) throws {
        let playground = try Playground()
        let context = try Self.context(kind, playground)
        let tag = Tag(name: "animals")
        let cards = [Card(front: "chat", back: "cat"), Card(front: "chien", back: "dog"), Card(front: "cheval", back: "horse")]
        cards[0].tags = [tag]
        for card in cards { context.insert(card) }
        try context.save()
        context.removeAllUndoActions()
        let firstKey = cards[0].persistentModelID, lastKey = cards[2].persistentModelID

        context.beginUndoGrouping()
        context.setUndoActionName("rm 1")
        context.delete(cards[0])
        context.endUndoGrouping()
        try context.save()
        context.beginUndoGrouping()
        context.setUndoActionName("rm 3")
        context.delete(cards[2])
        context.endUndoGrouping()
        try context.save()
        #expect(context.undoActionName == "rm 3")
        // A new card takes the freed largest key; undoing its insert frees it again.
        let added = Card(front: "vache", back: "cow")
        context.setUndoActionName("add")
        context.insert(added)
        try context.save()
        #expect(added.persistentModelID.primaryKey == lastKey.primaryKey)
        #expect(context.undoActionName == "add")
        context.undo()
        try context.save()
        #expect(context.undoActionName == "rm 3" && context.redoActionName == "add")
        context.undo()
        try context.save()
        context.undo()
        try context.save()
        #expect(cards[0].persistentModelID == firstKey && cards[2].persistentModelID == lastKey)
        let fresh = ModelContext(context.container)
        let stored = try fresh.fetch(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.front)]))
        #expect(stored.map(\.front) == ["chat", "cheval", "chien"])
        #expect(stored.first { $0.front == "chat" }?.persistentModelID == firstKey)
        #expect(stored.first { $0.front == "chat" }?.tags.map(\.name) == ["animals"])
        // Redo removes them again; redoing the add, whose key is taken meanwhile by nobody, keeps it too.
        context.redo()
        context.redo()
        try context.save()
        context.redo()
        try context.save()
        #expect(added.persistentModelID.primaryKey == lastKey.primaryKey)
        #expect(try fresh.fetchCount(FetchDescriptor<Card>()) == 2)
    }

    /// A restored key already taken by a row is not reused: the model gets a new key.
    @Test func aTakenKeyIsNotReused() throws {
        let playground = try Playground()
        let context = try Self.context(.file, playground)
        let card = Card(front: "chat", back: "cat")
        context.insert(card)
        try context.save()
        let key = card.persistentModelID.primaryKey
        context.removeAllUndoActions()
        context.delete(card)
        try context.save()
        // Another context writes a row under the freed key.
        let other = ModelContext(context.container)
        let intruder = Card(front: "loup", back: "wolf")
        other.insert(intruder)
        try other.save()
        #expect(intruder.persistentModelID.primaryKey == key)
        context.undo()
        try context.save()
        #expect(card.persistentModelID.primaryKey != key)
        #expect(try other.fetchCount(FetchDescriptor<Card>()) == 2)
    }

    /// The hook (looked up at the entity's first save, not when the schema is built) runs
    /// once for each save that writes the model: its insert and each later change.
    @Test(arguments: StoreKind.allCases)
    func willSaveRunsForEachSaveThatWritesTheModel(kind: StoreKind) throws {
        let playground = try Playground()
        let context = ModelContext(try kind.container([StampedNote.self], in: playground))
        let note = StampedNote(text: "a")
        context.insert(note)
        try context.save()
        #expect(note.saves == 1)
        try context.save()
        #expect(note.saves == 1, "a save that writes nothing calls no hook")
        note.text = "b"
        try context.save()
        #expect(note.saves == 2)
        let stored = try ModelContext(context.container).fetch(FetchDescriptor<StampedNote>())
        #expect(stored.map(\.saves) == [2], "the stamp the hook made is stored with the change")
    }

    /// A date a WillSaveHook stamps while saving is not an undo step of its own: undoing
    /// after a save reverts the change before it, and redo stays possible.
    @Test(arguments: StoreKind.allCases)
    func changesMadeWhileSavingAreNoStep(kind: StoreKind) throws {
        let playground = try Playground()
        let context = ModelContext(try kind.container([StampedNote.self], in: playground))
        context.isUndoEnabled = true
        let note = StampedNote(text: "a")
        context.insert(note)
        try context.save()
        context.removeAllUndoActions()
        note.text = "b"
        try context.save()
        note.text = "c"
        try context.save()
        context.undo()
        try context.save()
        #expect(note.text == "b")
        #expect(context.canRedo, "the save after undo recorded no step (which would forget redo)")
        context.undo()
        try context.save()
        #expect(note.text == "a")
        context.redo()
        try context.save()
        context.redo()
        #expect(note.text == "c")
    }
}

/// A model whose hook stamps each save.
final class StampedNote: PersistentModel, WillSaveHook {
    var text: String = ""
    var saves: Int = 0
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("text", \StampedNote.text),
        .attribute("saves", \StampedNote.saves),
    ]
    var persistentBackingData = BackingData()
    init() {}
    init(text: String) { self.text = text }
    func willSave() { saves += 1 }
}
