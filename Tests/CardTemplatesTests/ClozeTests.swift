import Testing
@testable import CardTemplates

/// Cloze deletions: numbers, nesting, hints, multi-number deletions and image occlusion.
@Suite struct ClozeTests {
    @Test func numbers() {
        #expect(Cloze.numbers(in: "test") == [])
        #expect(Cloze.numbers(in: "{{c2::te}}{{c1::s}}t{{") == [1, 2])
        #expect(Cloze.numbers(in: "{{c0::te}}s{{c2::t}}s") == [2])
        #expect(Cloze.numbers(in: "{{c2::te{{c1::s}}}}t{{") == [1, 2])
        #expect(Cloze.numbers(in: "{{c1,2,3::multi}}") == [1, 2, 3])
        #expect(Cloze.numbers(in: "{{c1,1,2::test}}") == [1, 2])
        #expect(Cloze.numbers(in: "{{c0,1,2::test}}") == [1, 2])
        #expect(Cloze.numbers(in: "{{c1,,3::test}}") == [1, 3])
        #expect(Cloze.numbers(in: "öaöaöööaö").isEmpty)
        #expect(Cloze.numbers(in: "{{c1::unclosed").isEmpty)
        #expect(Cloze.numbers(in: "{{c70000::too big}} {{c65535::max}}") == [65535])
        #expect(Cloze.numbers(inFields: ["{{c1::a}}", "{{c3::b}}"]) == [1, 3])
    }

    @Test func nestedHTML() {
        #expect(Cloze.render("foo {{c1::bar {{c2::baz}}}}", number: 1, question: true)
            == "foo <span class=\"cloze\" data-cloze=\"" + HTMLEscaping.attribute("bar <span class=\"cloze-inactive\" data-ordinal=\"2\">baz</span>")
                + "\" data-ordinal=\"1\">[...]</span>")
        #expect(Cloze.render("foo {{c1::bar {{c2::baz}}}}", number: 1, question: false)
            == "foo <span class=\"cloze\" data-ordinal=\"1\">bar <span class=\"cloze-inactive\" data-ordinal=\"2\">baz</span></span>")
        #expect(Cloze.render("foo {{c1::bar {{c2::baz}}::qux}}", number: 2, question: true)
            == "foo <span class=\"cloze-inactive\" data-ordinal=\"1\">bar <span class=\"cloze\" data-cloze=\"baz\" data-ordinal=\"2\">[...]</span></span>")
        #expect(Cloze.render("foo {{c1::bar {{c2::baz}}::qux}}", number: 2, question: false)
            == "foo <span class=\"cloze-inactive\" data-ordinal=\"1\">bar <span class=\"cloze\" data-ordinal=\"2\">baz</span></span>")
        #expect(FieldText.strippingHTML(Cloze.render("foo {{c1::bar {{c2::baz}}::qux}}", number: 1, question: true)) == "foo [qux]")
    }

    @Test func plainTextOfClozes() {
        let text = "{{c1,2::shared}} word and {{c1::first}} vs {{c2::second}}"
        #expect(FieldText.strippingHTML(Cloze.render(text, number: 1, question: true)) == "[...] word and [...] vs second")
        #expect(FieldText.strippingHTML(Cloze.render(text, number: 2, question: true)) == "[...] word and first vs [...]")
        #expect(FieldText.strippingHTML(Cloze.render(text, number: 2, question: false)) == "shared word and first vs second")
        #expect(FieldText.strippingHTML(Cloze.render("{{c1::outer {{c1::inner}}}}", number: 1, question: true)) == "[...]")
        #expect(FieldText.strippingHTML(Cloze.render("{{c1,2::outer {{c3::inner}}}}", number: 3, question: true)) == "outer [...]")
        #expect(Cloze.render("{{c1::one}} {{c2::two::hint}}", number: 3, question: true) == "")
        #expect(Cloze.render("{{c1,2,3::multi}}", number: 2, question: true).contains("data-ordinal=\"1,2,3\""))
    }

    @Test func clozeOnlyAndTyping() {
        #expect(Cloze.renderOnly("foo", number: 1, question: true) == "")
        #expect(Cloze.renderOnly("foo {{c1::bar}}", number: 1, question: true) == "...")
        #expect(Cloze.renderOnly("foo {{c1::bar::baz}}", number: 1, question: true) == "baz")
        #expect(Cloze.renderOnly("foo {{c1::bar}}", number: 1, question: false) == "bar")
        #expect(Cloze.renderOnly("{{c1::foo}} {{c1::bar}}", number: 1, question: false) == "foo, bar")
        #expect(Cloze.renderOnly("{{c1,2::shared}} and {{c1::first}} vs {{c2::second}}", number: 2, question: false) == "shared, second")
        #expect(Cloze.textForTyping("{{c2::foo}}", number: 1) == "")
        #expect(Cloze.textForTyping("{{c1::foo}} {{c1::bar}} {{c1::foo}}", number: 1) == "foo, bar, foo")
        #expect(Cloze.textForTyping("{{c1::foo}} {{c1::foo}} {{c1::foo}}", number: 1) == "foo")
    }

    @Test func strippedAndMathJax() {
        #expect(Cloze.stripped("The {{c1::moon::🌛}} {{c2::orbits::this hint has \"::\" in it}} the {{c3::🌏}}.") == "The moon orbits the 🌏.")
        #expect(Cloze.stripHTMLInsideMathJax("\\(<foo>&lt;&gt;</foo>\\)") == "\\(&lt;&gt;\\)")
    }

    @Test func imageOcclusion() {
        #expect(Cloze.render("{{c1::image-occlusion:rect:left=10.0:top=20:width=30:height=10}}", number: 1, question: true)
            == "<div class=\"cloze\" data-ordinal=\"1\" data-shape=\"rect\" data-left=\"10.0\" data-top=\"20\" data-width=\"30\" data-height=\"10\" ></div>")
        #expect(ImageOcclusion.attributes("ellipse:left=15:top=20:width=10:height=20:rx=10:ry=5")
            == "data-shape=\"ellipse\" data-left=\"15\" data-top=\"20\" data-width=\"10\" data-height=\"20\" data-rx=\"10\" data-ry=\"5\" ")
        #expect(ImageOcclusion.attributes("polygon:points=0,0 10,10 20,0") == "data-shape=\"polygon\" data-points=\"0,0 10,10 20,0\" ")
        #expect(ImageOcclusion.attributes(#"text:text=\\foo\:bar\::left=10"#) == "data-shape=\"text\" data-text=\"&#x5C;foo&#x3A;bar&#x3A;\" data-left=\"10\" ")
        #expect(ImageOcclusion.attributes(#"text:text=\:lol\::left=10"#) == "data-shape=\"text\" data-text=\"&#x3A;lol&#x3A;\" data-left=\"10\" ")
        let both = "{{c1,2::image-occlusion:rect:left=10:top=20:width=30:height=40}}"
        #expect(Cloze.render(both, number: 2, question: false).hasPrefix("<div class=\"cloze-highlight\" data-ordinal=\"1,2\""))
        #expect(Cloze.render(both + "{{c3::image-occlusion:rect:left=1}}", number: 3, question: true)
            .hasPrefix("<div class=\"cloze-inactive\" data-ordinal=\"1,2\""))
    }
}
