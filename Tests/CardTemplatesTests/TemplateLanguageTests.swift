import Testing
@testable import CardTemplates

/// The template language's rules, one by one (the cases Anki's own tests pin, plus ours).
@Suite struct TemplateLanguageTests {
    private func render(_ format: String, _ fields: [String: String], ordinal: Int = 0, frontSide: String? = nil) throws -> String {
        try ParsedTemplate(format).render(fields: fields, ordinal: ordinal, frontSide: frontSide)
    }

    @Test func replacementsAndSections() throws {
        let fields = ["F": "f", "B": "b", "E": " ", "c2": "1"]
        #expect(try render("{{B}}A{{F}}", fields) == "bAf")
        #expect(try render("{{#E}}A{{/E}}", fields) == "")
        #expect(try render("{{^E}}1{{#F}}2{{#B}}{{F}}{{/B}}{{/F}}{{/E}}", fields) == "12f")
        #expect(try render("{{ F }}", fields) == "f")
        #expect(try render("text }} more", fields) == "text }} more")
        #expect(try render("{{F", fields) == "{{F")
        // card number sections: c2 is in the field map, c1 is known but empty
        #expect(try render("{{^c1}}1{{#c2}}2{{/c2}}{{/c1}}", fields, ordinal: 1) == "12")
    }

    @Test func commentsAreCopiedAndNotParsed() throws {
        let fields = ["F": "f", "B": "b", "E": ""]
        let format = "{{^E}}1<!--{{#F}}2{{#B}}{{F}}{{/B}}{{/F}}-->\u{123}<!-- this is a comment -->{{/E}}\u{456}"
        #expect(try render(format, fields) == "1<!--{{#F}}2{{#B}}{{F}}{{/B}}{{/F}}-->\u{123}<!-- this is a comment -->\u{456}")
        #expect(throws: TemplateError.self) { try ParsedTemplate("{{#mis}}<!--{{/matched}}-->") }
        _ = try ParsedTemplate("<!--{{#mis}}{{/matched}}-->")
        _ = try ParsedTemplate("<!--{{foo}}")
    }

    @Test func unbalancedSectionsAreErrors() {
        #expect(throws: TemplateError.conditionalNotOpen(closed: "matched", currentlyOpen: "mis")) { try ParsedTemplate("{{#mis}}{{/matched}}") }
        #expect(throws: TemplateError.conditionalNotOpen(closed: "matched", currentlyOpen: nil)) { try ParsedTemplate("{{/matched}}") }
        #expect(throws: TemplateError.conditionalNotClosed(key: "mis")) { try ParsedTemplate("{{#mis}}") }
        #expect(TemplateError.conditionalNotClosed(key: "mis").message == "Missing '{{/mis}}'")
        #expect(TemplateError.conditionalNotOpen(closed: "a", currentlyOpen: nil).message
            == "Found '{{/a}}', but missing '{{#a}}' or '{{^a}}'")
    }

    @Test func unknownFieldsAndSections() {
        let fields = ["F": "f"]
        #expect(throws: TemplateError.fieldNotFound(field: "X", filters: "")) { try render("{{X}}", fields) }
        #expect(throws: TemplateError.fieldNotFound(field: "X", filters: "foo:text:")) { try render("{{foo:text:X}}", fields) }
        #expect(throws: TemplateError.noSuchConditional(condition: "^M")) { try render("{{#F}}{{^M}}A{{/M}}{{/F}}", fields) }
        // errors inside a section that is not shown still count
        #expect(throws: TemplateError.fieldNotFound(field: "X", filters: "")) { try render("{{^F}}{{X}}{{/F}}", fields) }
        #expect(TemplateError.fieldNotFound(field: "X", filters: "text:").message == "Found '{{text:X}}', but there is no field called 'X'")
        #expect(TemplateError.noSuchConditional(condition: "#M").message == "Found '{{#M}}', but there is no field called 'M'")
    }

    @Test func filtersApplyRightToLeftAndStopAtAnUnknownOne() throws {
        let fields = ["B": "<b>b</b>"]
        #expect(try render("{{text:B}}", fields) == "b")
        #expect(try render("{{text::B}}", fields) == "b")          // an empty filter name is skipped
        #expect(try render("{{one:two:B}}", fields) == "<b>b</b>")  // unknown: text unchanged
        #expect(try render("{{text:two:B}}", fields) == "<b>b</b>") // known after an unknown one: not applied
        #expect(try render("{{two:text:B}}", fields) == "b")        // known before it: applied
        #expect(try render("{{filter:}}", fields) == "")
        #expect(try render("{{type:B}}", fields) == "[[type:B]]")
        #expect(try render("{{type:cloze:B}}", fields) == "[[type:cloze:B]]")
        #expect(try render("{{type:nc:B}}", fields) == "[[type:nc:B]]")
        #expect(try render("{{type:some:unknown:B}}", fields) == "[[type:B]]")
        #expect(try render("{{tts en_US voices=Bob,Jane:B}}", ["B": "foo"]) == "[anki:tts lang=en_US voices=Bob,Jane]foo[/anki:tts]")
    }

    @Test func frontSide() throws {
        #expect(try render("{{FrontSide}}x", [:]) == "x")
        #expect(try render("{{FrontSide}}<hr>", [:], frontSide: "q") == "q<hr>")
        #expect(try render("{{text:FrontSide}}", [:], frontSide: "<b>q</b>") == "<b>q</b>")
    }

    @Test func alternateDelimiters() throws {
        let fields = ["Front": "f", "Back": "b", "foo": "x"]
        #expect(try render("\n{{=<% %>=}}\n<%Front%>\n<% #Back %>\n<%/Back%>", fields) == "\nf\n\n")
        #expect(try render("{{=<% %>=}}\n{{#foo}}\n<%Front%>\n{{/foo}}\n", fields) == "\n{{#foo}}\nf\n{{/foo}}\n")
    }

    @Test func emptyFieldRule() {
        #expect(FieldText.isEmpty(""))
        #expect(FieldText.isEmpty(" "))
        #expect(!FieldText.isEmpty("x"))
        #expect(FieldText.isEmpty("<BR>"))
        #expect(FieldText.isEmpty("<div />"))
        #expect(FieldText.isEmpty(" <div> <br> </div>\n"))
        #expect(!FieldText.isEmpty(" <div>x</div>\n"))
        #expect(!FieldText.isEmpty("&nbsp;"))
        #expect(!FieldText.isEmpty("<p></p>"))
    }

    @Test func nonEmptyRule() throws {
        let fields: Set<String> = ["1", "3"]
        #expect(try ParsedTemplate("{{2}}{{1}}").rendersNonEmpty(nonEmptyFields: fields))
        #expect(try !ParsedTemplate("{{2}}").rendersNonEmpty(nonEmptyFields: fields))
        #expect(try !ParsedTemplate("{{2}}{{4}}").rendersNonEmpty(nonEmptyFields: fields))
        #expect(try ParsedTemplate("{{#3}}{{^2}}{{1}}{{/2}}{{/3}}").rendersNonEmpty(nonEmptyFields: fields))
        #expect(try !ParsedTemplate("{{^1}}{{3}}{{/1}}").rendersNonEmpty(nonEmptyFields: fields))
        #expect(try !ParsedTemplate("static text").rendersNonEmpty(nonEmptyFields: fields))
    }

    @Test func referencedFields() throws {
        let template = try ParsedTemplate("{{#c1}}{{cloze:Text}}{{/c1}}{{#Extra}}{{hint:Extra}}{{/Extra}}{{FrontSide}}")
        #expect(template.referencedFieldNames == ["Text", "Extra", "FrontSide"])
        #expect(template.clozeFieldNames == ["Text"])
    }

    @Test func hintFilter() throws {
        #expect(Filters.hint("foo", field: "field") == """

            <a class=hint href="#"
            onclick="this.style.display='none';
            document.getElementById('hint83fe48607f0f3a66').style.display='block';
            return false;" draggable=false>
            field</a>
            <div id="hint83fe48607f0f3a66" class=hint style="display: none">foo</div>

            """)
        #expect(Filters.hint("  ", field: "field") == "  ")
    }

    @Test func blake3KnownAnswers() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { HTMLEscaping.hexByte($0).lowercased() }.joined() }
        #expect(hex(BLAKE3.hash([])) == "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262")
        // multi-chunk inputs (> 1,024 bytes) are checked against Anki's hint ids in AnkiRenderingTests
    }

    @Test func rubyFilters() throws {
        let text = "test first[second] third[fourth]"
        #expect(Ruby.kana(text) == "testsecondfourth")
        #expect(Ruby.kanji(text) == "testfirstthird")
        #expect(Ruby.furigana("first[second]") == "<ruby><rb>first</rb><rt>second</rt></ruby>")
        #expect(Ruby.furigana("a[sound:x.mp3]") == "a[sound:x.mp3]")
        #expect(Ruby.kana("日本&nbsp;語[ご]") == "日本ご")
    }

    @Test func entityHandling() {
        #expect(HTMLEscaping.attribute("\"No\", he said.") == "&quot;No&quot;&#x2C;&#x20;he&#x20;said&#x2E;")
        #expect(HTMLEscaping.stripHTML("Tom &amp; <i>Jerry</i>&nbsp;!") == "Tom & Jerry !")
        // one malformed entity: Anki decodes none
        #expect(HTMLEscaping.stripHTML("a &amp; b & c") == "a &amp; b & c")
        #expect(HTMLEscaping.stripHTML("<style>p{}</style><!-- x -->a<br>b") == "ab")
    }
}
