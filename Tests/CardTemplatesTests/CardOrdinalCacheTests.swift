import Testing
@testable import CardTemplates

/// ``CardOrdinalCache`` gives what ``NoteLayout/cardOrdinals(fieldValues:tags:existing:)`` gives
/// for every note, remembered or not.
@Suite struct CardOrdinalCacheTests {
    /// Field values of every emptiness: text, nothing, white space, an empty tag.
    static let values = ["a", "", " ", "<br>", "x y", "<b>b</b>"]

    /// Each pattern of fields and tags asked twice (worked out, then remembered), in an order
    /// where a remembered answer of another pattern would be wrong: always the direct answer.
    @Test(arguments: [CardGenerationTests.optionalReversed, CardGenerationTests.cloze,
                      NoteLayout(name: "T", kind: .standard, fieldNames: ["F", "G"], templates: [
                          CardLayout(name: "tags", questionFormat: "{{Tags}}", answerFormat: ""),
                          CardLayout(name: "g", questionFormat: "{{^F}}{{G}}{{/F}}", answerFormat: ""),
                      ])])
    func sameOrdinalsAsTheLayout(layout: NoteLayout) {
        let cache = CardOrdinalCache(layout: layout)
        for round in 0..<2 {
            for first in Self.values {
                for second in Self.values + ["{{c1::one}} {{c3::three}}"] {
                    for third in ["", "y"] {
                        for tags in [[], ["t"]] {
                            let fields = layout.kind == .cloze ? [first + second, third] : [first, second, third]
                            let expected = layout.cardOrdinals(fieldValues: fields, tags: tags)
                            #expect(cache.cardOrdinals(fieldValues: fields, tags: tags) == expected,
                                    "round \(round): \(fields) tags \(tags)")
                        }
                    }
                }
            }
        }
    }

    /// Fewer values than fields: the missing ones are empty, as for the layout.
    @Test func missingValuesAreEmpty() {
        let cache = CardOrdinalCache(layout: CardGenerationTests.optionalReversed)
        #expect(cache.cardOrdinals(fieldValues: ["a", "b", "y"], tags: []) == [0, 1])
        #expect(cache.cardOrdinals(fieldValues: ["a"], tags: []) == [0])
        #expect(cache.cardOrdinals(fieldValues: [], tags: []) == [0])
    }
}
