import Testing
@testable import CardTemplates

/// Plain text, terminal text and media references.
@Suite struct FieldTextTests {
    @Test func plainTextKeepsLines() {
        #expect(FieldText.plainText(fromHTML: "<b>chat</b><div>le&nbsp;chat</div>") == "chat\nle chat")
        #expect(FieldText.plainText(fromHTML: "<div>a</div><div>b</div>") == "a\nb")
        #expect(FieldText.plainText(fromHTML: "a<br>b<br/><br />c") == "a\nb\n\nc")
        #expect(FieldText.plainText(fromHTML: "  many   spaces\n and\tlines  ") == "many spaces and lines")
        #expect(FieldText.plainText(fromHTML: "<p>one</p><p>two</p>") == "one\ntwo")
        #expect(FieldText.plainText(fromHTML: "<ul><li>x</li><li>y</li></ul>") == "x\ny")
        #expect(FieldText.plainText(fromHTML: "<style>.a{}</style><!-- c --><script>x()</script>text") == "text")
        #expect(FieldText.plainText(fromHTML: "Tom &amp; Jerry & co &bogus; &#233;&#x41;") == "Tom & Jerry & co &bogus; éA")
        #expect(FieldText.plainText(fromHTML: "a < b and c > d") == "a < b and c > d")
        #expect(FieldText.plainText(fromHTML: "<img src=\"a.png\">[sound:b.mp3]") == "[sound:b.mp3]")
        #expect(FieldText.plainText(fromHTML: "") == "")
        #expect(FieldText.plainText(fromHTML: "<div><br></div>") == "")
    }

    /// The shortcut for text that is already plain gives what the full conversion gives, and
    /// takes it only for such text.
    @Test(arguments: ["front of card number 12", "élan", "a", "x y", "  lead", "trail ", "two  spaces", "tab\there", "line\nbreak",
                      "nb\u{A0}sp", "a&amp;b", "<b>x</b>", "\u{3000}ideographic", "ends\u{2003}", "mid\u{2003}dle", "mid\u{85}nel",
                      "caf\u{E9} cr\u{E8}me", "日本語のテキスト", "🙂 smile", "", "x\u{0C}y", "del\u{7F}", "!?"])
    func plainShortcutAgreesWithTheConversion(_ text: String) {
        #expect(FieldText.plainText(fromHTML: text) == TextWriter(style: .plain).write(text))
        if FieldText.isPlainAlready(text) { #expect(TextWriter(style: .plain).write(text) == text) }
    }

    @Test func plainShortcutIsTakenForPlainText() {
        #expect(FieldText.isPlainAlready("front of card number 12"))
        #expect(FieldText.isPlainAlready("caf\u{E9} au lait"))
        #expect(!FieldText.isPlainAlready(" lead"))
        #expect(!FieldText.isPlainAlready("a  b"))
        #expect(!FieldText.isPlainAlready("a&amp;b"))
        #expect(!FieldText.isPlainAlready("nb\u{A0}sp"))
        #expect(!FieldText.isPlainAlready("\u{E9}lan"))
    }

    @Test func terminalText() {
        #expect(FieldText.terminalText(fromHTML: "see <img src=\"dog.png\"> and [sound:bark.mp3]") == "see [image: dog.png] and [sound: bark.mp3]")
        #expect(FieldText.terminalText(fromHTML: "front<hr id=answer>back") == "front\n----------\nback")
        #expect(FieldText.terminalText(fromHTML: "<ul><li>x</li><li>y</li></ul>") == "• x\n• y")
        #expect(FieldText.terminalText(fromHTML: "{{type}} [[type:Front]]") == "{{type}} [type: Front]")
        let layout = NoteLayout(name: "Cloze", kind: .cloze, fieldNames: ["Text"], templates: [
            CardLayout(name: "Cloze", questionFormat: "{{cloze:Text}}", answerFormat: "{{cloze:Text}}"),
        ])
        let card = layout.render(ordinal: 0, fieldValues: ["{{c1::Paris}} is in {{c2::France::country}}"])
        #expect(FieldText.terminalText(fromHTML: card.question) == "[...] is in France")
        #expect(FieldText.terminalText(fromHTML: layout.render(ordinal: 1, fieldValues: ["{{c1::Paris}} is in {{c2::France::country}}"]).question)
            == "Paris is in [country]")
    }

    @Test func mediaInHTML() {
        let html = """
            <img src="a b.png"> <IMG class=x SRC='c.jpg'> <img src=d.gif alt=x> [sound:e&amp;f.mp3]
            <audio src="g.ogg"></audio><object data="h.svg"></object><img data-src="i.png">
            <img src="https://example.com/x.png"> <img src="data:image/png;base64,AAA"> <img src="a b.png">
            """
        #expect(FieldText.mediaReferences(inHTML: html) == ["a b.png", "c.jpg", "d.gif", "e&f.mp3", "g.ogg", "h.svg", "i.png"])
        #expect(FieldText.mediaReferences(inHTML: "no media [sound:] <img>") == [])
    }

    @Test func mediaInCSS() {
        let css = """
            @import "_base.css"; @import url(_more.css);
            .card { background: url('_paper.png'); } .a { background: url( "b.png" ) }
            .b { background: url(c.png) } .c { background: url(https://x.org/y.png) } .d { background: url(data:image/png;base64,AA) }
            """
        #expect(FieldText.mediaReferences(inCSS: css) == ["_base.css", "_more.css", "_paper.png", "b.png", "c.png"])
    }

    @Test func unterminatedMarkupStaysLinearAndCorrect() {
        #expect(FieldText.plainText(fromHTML: "<a title=\"x>y\">z</a>") == "z")
        #expect(FieldText.plainText(fromHTML: "<a title=\"x>y") == "y", "an unbalanced quote: the tag ends at the first >")
        #expect(FieldText.strippingHTML("<style>a</style>b<style>c") == "bc")
        #expect(FieldText.strippingHTML("<script>x</SCRIPT>y<!-- z") == "y<!-- z")
        // many openings without their ends (each end is searched once, not once per opening)
        let hostile = String(repeating: "<style<!--[sound:\\(a[", count: 500)
        #expect(FieldText.strippingHTML(hostile) == hostile)
        #expect(FieldText.plainText(fromHTML: hostile) == "<style", "an unterminated comment hides the rest, as in a browser")
        #expect(FieldText.mediaReferences(inHTML: hostile) == [])
        #expect(Ruby.furigana(hostile) == hostile)
        #expect(PlayTags.replace(hostile, side: "q") == hostile)
    }

    @Test func finderRemembersAnswers() {
        var finder = Finder("ab")
        let bytes = Array("xxabxxab".utf8)
        #expect(finder.find(in: bytes, from: 0) == 2)
        #expect(finder.find(in: bytes, from: 1) == 2)
        #expect(finder.find(in: bytes, from: 3) == 6)
        #expect(finder.find(in: bytes, from: 7) == nil)
        #expect(finder.find(in: bytes, from: 8) == nil)
        #expect(finder.find(in: bytes, from: 0) == 2, "searching backwards recomputes")
        var insensitive = Finder("</style>", caseInsensitive: true)
        #expect(insensitive.find(in: Array("a</STYLE>".utf8), from: 0) == 1)
    }
}
