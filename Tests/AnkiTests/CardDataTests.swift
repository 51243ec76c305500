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

    /// The fast reader of Anki's usual `data` objects (FlatCardData) reads what JSONSerialization
    /// reads, value for value and bit for bit, or hands the text on to it.
    @Test func fastReaderReadsWhatJSONSerializationReads() {
        let numbers = ["0", "-0", "1", "-1", "7", "12.5", "-3.25", "0.1", "0.30000000000000004", "1e3", "1E-5", "2.5e+2",
                       "1700000000", "1700000000.0", "9007199254740993", "123456789012345678", "1234567890123456789",
                       "99999999999999999999", "15.5", "5.3145", "0.1234567890123", "123.456789012345", "0.000001234", "1e400", "-1e400", "1.7976931348623157e308", "5e-324", "00", "01", "1.", ".5",
                       "-", "1e", "+1", "true", "false", "null", "\"x\"", "[1]", "{}"]
        let keys = ["s", "d", "dr", "decay", "lrt", "pos", "cd"]
        var texts = ["", "{}", " {} ", "\n{}\n", "{ }", "[]", "{", "}", "{\"s\":1,}", "{\"s\" 1}", "{\"s\":1} x", "  ", "null"]
        for key in keys {
            for number in numbers { texts.append("{\"\(key)\":\(number)}") }
        }
        for value in ["\"\"", "\"plain\"", "\"é😀\"", "\"a\\\"b\"", "\"{\\\"v\\\":1}\"", "3", "null"] {
            texts.append("{\"cd\":\(value)}")
        }
        texts += [
            "{\"s\":12.5,\"d\":5.25,\"dr\":0.85,\"decay\":0.1542,\"lrt\":1700000000,\"pos\":7,\"cd\":\"x\"}",
            " { \"s\" : 3.5 ,\n\t\"d\" : 7 } ", "{\"s\":1,\"s\":2}", "{\"s\":1,\"zz\":2}", "{\"zz\":[1,2]}", "{\"S\":1}",
            "{\"s\":1,\"d\":null,\"lrt\":null}", "{\"lrt\":1.5}", "{\"pos\":-2}", "{\"\\u0073\":1}",
        ]
        func same(_ a: Double?, _ b: Double?) -> Bool { a?.bitPattern == b?.bitPattern }
        for text in texts {
            var fast = AnkiCard(id: 1, noteID: 1, deckID: 1, ordinal: 0)
            var slow = fast
            let fastProblem = fast.readData(text)
            let slowProblem = slow.readDataWithJSONSerialization(text)
            #expect(fastProblem == slowProblem, "\(text)")
            #expect(fast == slow, "\(text)")
            #expect(same(fast.stability, slow.stability) && same(fast.difficulty, slow.difficulty)
                    && same(fast.desiredRetention, slow.desiredRetention) && same(fast.decay, slow.decay), "\(text)")
        }
    }
}
