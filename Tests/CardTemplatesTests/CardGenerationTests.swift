import Testing
@testable import CardTemplates

/// Which cards a note makes, what the special fields hold, and Anki's save-time template checks.
@Suite struct CardGenerationTests {
    static let optionalReversed = NoteLayout(
        name: "Basic (optional reversed card)", kind: .standard, fieldNames: ["Front", "Back", "Add Reverse"],
        templates: [
            CardLayout(name: "Card 1", questionFormat: "{{Front}}", answerFormat: "{{FrontSide}}<hr id=answer>{{Back}}"),
            CardLayout(name: "Card 2", questionFormat: "{{#Add Reverse}}{{Back}}{{/Add Reverse}}", answerFormat: "{{FrontSide}}<hr id=answer>{{Front}}"),
        ])

    static let cloze = NoteLayout(
        name: "Cloze", kind: .cloze, fieldNames: ["Text", "Back Extra"],
        templates: [CardLayout(name: "Cloze", questionFormat: "{{cloze:Text}}", answerFormat: "{{cloze:Text}}<br>\n{{Back Extra}}")])

    @Test func standardOrdinals() {
        let layout = Self.optionalReversed
        #expect(layout.cardOrdinals(fieldValues: ["a", "b", ""]) == [0])
        #expect(layout.cardOrdinals(fieldValues: ["a", "b", "y"]) == [0, 1])
        #expect(layout.cardOrdinals(fieldValues: ["", "b", "y"]) == [1])
        #expect(layout.cardOrdinals(fieldValues: ["<br>", " ", "y"]) == [0], "nothing renders: Anki still makes card 0")
        #expect(layout.nonEmptyOrdinals(fieldValues: ["<br>", " ", "y"]) == [])
        // after an edit: only the cards to add, and no fallback when the note has cards
        #expect(layout.cardOrdinals(fieldValues: ["a", "b", "y"], existing: [0]) == [1])
        #expect(layout.cardOrdinals(fieldValues: ["", "", ""], existing: [1]) == [])
    }

    @Test func specialFieldsCountAsNonEmpty() {
        let layout = NoteLayout(name: "T", kind: .standard, fieldNames: ["F"], templates: [
            CardLayout(name: "deck", questionFormat: "{{Deck}}", answerFormat: ""),
            CardLayout(name: "tags", questionFormat: "{{Tags}}", answerFormat: ""),
            CardLayout(name: "front", questionFormat: "{{FrontSide}}", answerFormat: ""),
            CardLayout(name: "broken", questionFormat: "{{#F}}{{F}}", answerFormat: ""),
        ])
        #expect(layout.cardOrdinals(fieldValues: ["x"]) == [0])
        #expect(layout.cardOrdinals(fieldValues: ["x"], tags: ["t"]) == [0, 1])
    }

    @Test func clozeOrdinals() {
        #expect(Self.cloze.cardOrdinals(fieldValues: ["{{c1::a}} {{c3::b}}", "{{c5::in extra}}"]) == [0, 2, 4])
        #expect(Self.cloze.cardOrdinals(fieldValues: ["no deletion", ""]) == [0])
        #expect(Self.cloze.nonEmptyOrdinals(fieldValues: ["no deletion", ""]) == [])
        #expect(Self.cloze.cardOrdinals(fieldValues: ["{{c600::a}} {{c500::b}} {{c2::c}}", ""]) == [1, NoteLayout.maximumClozeOrdinal])
        #expect(Self.cloze.cardOrdinals(fieldValues: ["{{c1::a}} {{c2::b}}", ""], existing: [0]) == [1])
    }

    @Test func specialFieldValues() {
        let layout = NoteLayout(name: "Vocab", kind: .standard, fieldNames: ["Front"], templates: [
            CardLayout(name: "Recognition", questionFormat: "{{Front}}",
                       answerFormat: "{{Deck}}|{{Subdeck}}|{{Card}}|{{Type}}|{{CardFlag}}|{{Tags}}|{{CardID}}"),
        ], css: ".card {}")
        let card = layout.render(ordinal: 0, fieldValues: ["x"],
                                 context: CardContext(tags: ["a", "b::c"], deckName: "Lang::JP::Vocab", flag: 3, cardID: 42))
        #expect(card.answer == "Lang::JP::Vocab|Vocab|Recognition|Vocab|flag3|a b::c|42")
        #expect(card.css == ".card {}")
        #expect(card.error == nil && !card.isEmpty)
        // a note field of the same name wins
        let shadow = NoteLayout(name: "S", kind: .standard, fieldNames: ["Deck"], templates: [
            CardLayout(name: "c", questionFormat: "{{Deck}}/{{Subdeck}}", answerFormat: ""),
        ])
        #expect(shadow.render(ordinal: 0, fieldValues: ["mine"], context: CardContext(deckName: "A::B")).question == "mine/B")
    }

    @Test func blankCardsAndErrors() {
        let blank = Self.optionalReversed.render(ordinal: 0, fieldValues: ["", "b", ""])
        #expect(blank.isEmpty)
        #expect(blank.question.hasPrefix("<div>The front of this card is blank."))
        let noCloze = Self.cloze.render(ordinal: 1, fieldValues: ["{{c1::a}}", ""])
        #expect(noCloze.isEmpty)
        #expect(noCloze.answer.hasPrefix("<div>No cloze \u{2068}2\u{2069} found on card."))
        let missing = Self.optionalReversed.render(ordinal: 5, fieldValues: ["a", "b", ""])
        #expect(missing.error == .missingTemplate(ordinal: 5))
        let broken = NoteLayout(name: "B", kind: .standard, fieldNames: ["F"], templates: [
            CardLayout(name: "c", questionFormat: "{{F}}", answerFormat: "{{G}}"),
        ]).render(ordinal: 0, fieldValues: ["x"])
        #expect(broken.error == .fieldNotFound(field: "G", filters: ""))
        #expect(broken.question == broken.answer)
        #expect(broken.question.hasPrefix("Back template has a problem:<br>Found &#x27;\u{2068}{{G}}\u{2069}&#x27;"))
    }

    @Test func playTags() {
        let layout = NoteLayout(name: "B", kind: .standard, fieldNames: ["F", "B"], templates: [
            CardLayout(name: "c", questionFormat: "{{F}}", answerFormat: "{{FrontSide}}{{B}}"),
        ])
        let card = layout.render(ordinal: 0, fieldValues: ["[sound:a.mp3]", "[sound:b.mp3][sound:c.mp3]"], ankiPlayTags: true)
        #expect(card.question == "[anki:play:q:0]")
        #expect(card.answer == "[anki:play:q:0][anki:play:a:0][anki:play:a:1]")
        #expect(layout.render(ordinal: 0, fieldValues: ["[sound:a.mp3]", ""]).question == "[sound:a.mp3]")
    }

    @Test func templateChecks() {
        #expect(Self.optionalReversed.templateProblems() == [])
        #expect(Self.cloze.templateProblems() == [])
        let bad = NoteLayout(name: "Bad", kind: .cloze, fieldNames: ["F"], templates: [
            CardLayout(name: "1", questionFormat: "{{F}}", answerFormat: "{{c1}}"),
            CardLayout(name: "2", questionFormat: "{{F}}", answerFormat: ""),
            CardLayout(name: "3", questionFormat: "static", answerFormat: ""),
            CardLayout(name: "4", questionFormat: "{{#F}}", answerFormat: ""),
        ])
        #expect(bad.templateProblems() == [
            TemplateProblem(ordinal: 1, kind: .identicalFront(sameAs: 0)),
            TemplateProblem(ordinal: 0, kind: .unknownField("c1")),
            TemplateProblem(ordinal: 2, kind: .noFieldOnFront),
            TemplateProblem(ordinal: 3, kind: .unparsable(.conditionalNotClosed(key: "F"))),
            TemplateProblem(ordinal: 0, kind: .missingCloze),
        ])
        #expect(TemplateProblem(ordinal: 0, kind: .unknownField("c1")).message == "Field 'c1' not found.")
        let withCard = NoteLayout(name: "C", kind: .standard, fieldNames: ["F"], templates: [
            CardLayout(name: "1", questionFormat: "{{F}}{{ Card }}", answerFormat: ""),
            CardLayout(name: "2", questionFormat: "{{F}}{{ Card }}", answerFormat: ""),
        ])
        #expect(withCard.templateProblems() == [])
    }
}
