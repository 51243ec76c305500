import Testing
@testable import Anki

/// Anki's card `data` JSON: the FSRS memory state, desired retention, custom data and the keys
/// this model doesn't name, read and written back.
@Suite struct CardDataTests {
    @Test func readsNamedKeysAndKeepsTheRest() {
        var card = AnkiCard(id: 1, noteID: 1, deckID: 1, ordinal: 0)
        let problem = card.readData(#"{"s":12.5,"d":5.25,"dr":0.85,"decay":0.1542,"lrt":1700000000,"pos":7,"cd":"{\"v\":1}","zz":[1,2]}"#)
        #expect(problem == nil)
        #expect(card.stability == 12.5)
        #expect(card.difficulty == 5.25)
        #expect(card.desiredRetention == 0.85)
        #expect(card.decay == 0.1542)
        #expect(card.lastReview == 1_700_000_000)
        #expect(card.originalPosition == 7)
        #expect(card.customData == #"{"v":1}"#)
        #expect(card.otherData == #"{"zz":[1,2]}"#)
        var copy = AnkiCard(id: 1, noteID: 1, deckID: 1, ordinal: 0)
        #expect(copy.readData(card.encodedData) == nil)
        #expect(copy == card)
    }

    @Test func emptyDataIsNoState() {
        var card = AnkiCard(id: 1, noteID: 1, deckID: 1, ordinal: 0)
        #expect(card.readData("") == nil)
        #expect(card.readData("{}") == nil)
        #expect(!card.hasMemoryState)
        #expect(card.encodedData == "")
    }

    @Test func refusesWrongTypes() {
        var card = AnkiCard(id: 1, noteID: 1, deckID: 1, ordinal: 0)
        #expect(card.readData("[1]") == "data")
        #expect(card.readData(#"{"s":"x"}"#) == "s")
        #expect(card.readData(#"{"lrt":1.5}"#) == "lrt")
        #expect(card.readData(#"{"cd":3}"#) == "cd")
        #expect(card.stability == nil)
    }
}
