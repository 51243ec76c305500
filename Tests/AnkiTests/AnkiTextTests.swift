import Foundation
import Testing
@testable import Anki

@Suite struct AnkiTextTests {
    @Test func checksumMatchesAnki() {
        // The value Anki stores in notes.csum for a first field of "test".
        #expect(AnkiText.checksum(ofFirstField: "test") == 2_840_236_005)
        // HTML is stripped first, so markup around the same text gives the same checksum.
        #expect(AnkiText.checksum(ofFirstField: "<b>test</b>") == 2_840_236_005)
        #expect(AnkiNote(id: 1, noteTypeID: 1, fields: ["te<i></i>st", "x"]).checksum == 2_840_236_005)
    }

    @Test func checksumsOfTheFixtureNotesMatchAnkisOwn() {
        // csum values read from the collection the anki package exported (Fixtures/anki).
        #expect(AnkiText.checksum(ofFirstField: "bonjour") == 527_556_852)
        #expect(AnkiText.checksum(ofFirstField: "le chat") == 672_886_141)
        #expect(AnkiText.checksum(ofFirstField: "{{c1::Paris}} is the capital of {{c2::France}}") == 2_894_859_436)
    }

    @Test(arguments: [
        ("plain", "plain"),
        ("<b>bold</b> text", "bold text"),
        ("a<br>b", "ab"),
        ("x <img src=\"dot.png\"> y", "x  dot.png  y"),
        ("<img class=a src='q.jpg'/>", " q.jpg "),
        ("<audio src=bonjour.mp3 controls>", " bonjour.mp3 "),
        ("<!-- hidden -->shown", "shown"),
        ("<style>.a{}</style>text<script>x()</script>", "text"),
        ("fish &amp; chips&nbsp;&lt;3 &#65;&#x42;", "fish & chips <3 AB"),
        ("1 < 2", "1 < 2"),
        ("&unknown; stays", "&unknown; stays"),
    ])
    func stripsHTMLLikeAnki(_ html: String, _ text: String) {
        #expect(AnkiText.stripHTMLPreservingMediaFilenames(html) == text)
    }

    @Test func guidsUseAnkisBase91Alphabet() {
        let alphabet = Set(AnkiText.base91Alphabet)
        #expect(alphabet.count == 91)
        var seen = Set<String>()
        for _ in 0..<500 {
            let guid = AnkiNote.newGUID()
            #expect(!guid.isEmpty && guid.utf8.count <= 10)
            #expect(guid.utf8.allSatisfy(alphabet.contains))
            seen.insert(guid)
        }
        #expect(seen.count == 500)
        #expect(AnkiText.base91(0) == "")
        #expect(AnkiText.base91(90) == "~")
        #expect(AnkiText.base91(91) == "ba")
        // Checked against anki.utils.base91(2**64 - 1) from the anki package.
        #expect(AnkiText.base91(UInt64.max) == "Rj&Z5m[>Zp")
    }

    @Test func tagsAndFieldsUseAnkisEncoding() {
        #expect(AnkiText.joinTags(["a", "b"]) == " a b ")
        #expect(AnkiText.joinTags([]) == "")
        #expect(AnkiText.joinTags(["two words", ""]) == " two_words ")
        #expect(AnkiText.splitTags(" a  b ") == ["a", "b"])
        #expect(AnkiText.splitTags("") == [])
        #expect(AnkiText.splitTags("日本語\u{3000}漢字 é") == ["日本語", "漢字", "é"])
        #expect(AnkiText.splitFields("") == [""])
        #expect(AnkiText.splitFields("été\u{1F}日本") == ["été", "日本"])
        #expect(AnkiText.splitFields("a\u{1F}\u{1F}c") == ["a", "", "c"])
        #expect(AnkiText.joinFields(["a", "b\u{1F}c"]) == "a\u{1F}bc")
    }

    @Test func templatesTellWhichCardsANoteGets() {
        let reversed = AnkiNoteType.basicAndReversed(id: 1)
        #expect(TemplateFields.cardOrdinals(for: ["front", "back"], of: reversed) == [0, 1])
        #expect(TemplateFields.cardOrdinals(for: ["front", ""], of: reversed) == [0])
        let cloze = AnkiNoteType.cloze(id: 2)
        #expect(TemplateFields.cardOrdinals(for: ["{{c1::a}} {{c3::b}} {{c1::c}}", ""], of: cloze) == [0, 2])
        #expect(TemplateFields.cardOrdinals(for: ["no cloze", ""], of: cloze) == [0])
        #expect(TemplateFields.referencedFields(in: "{{#Hint}}{{hint:Hint}}{{/Hint}} {{Front}} {{FrontSide}}") == ["Hint", "Front"])
    }
}
