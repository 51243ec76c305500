import DeckDocument
import Foundation
import Persistence
import Testing
@testable import Interchange

/// Format version 1 files (what earlier releases wrote) are still read.
@Suite struct JSONExportTests {
    @Test(arguments: [
        ("not json", "malformed JSON"),
        ("{\"format\": \"other\", \"formatVersion\": 1, \"title\": \"\", \"description\": \"\", \"tags\": [], \"media\": [], \"cards\": []}", "not a SampleDeck"),
        ("{\"format\": \"sampledeck\", \"formatVersion\": 9, \"title\": \"\", \"description\": \"\", \"tags\": [], \"media\": [], \"cards\": []}", "newer"),
        ("{\"format\": \"sampledeck\", \"formatVersion\": 1, \"title\": \"\", \"description\": \"\", \"tags\": [], \"media\": []}", "missing \"cards\""),
        ("{\"format\": \"sampledeck\", \"formatVersion\": 1, \"title\": \"\", \"description\": \"\", \"tags\": [], \"media\": [], \"cards\": [{\"kind\": \"basic\", \"front\": \"a\", \"back\": \"b\", \"created\": \"yesterday\", \"modified\": \"2026-01-01T00:00:00.000Z\", \"interval\": 0, \"ease\": 2.5, \"repetitions\": 0, \"lapses\": 0, \"tags\": [], \"media\": [], \"reviews\": []}]}", "not an ISO 8601"),
    ])
    func malformedFilesAreRefusedAndAddNothing(_ text: String, _ expected: String) throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        let file = scratch.file("bad.json")
        try Data(text.utf8).write(to: file)
        let error = try #require(throws: InterchangeError.self) { try DeckJSONImporter().importFile(at: file, into: deck) }
        #expect(error.kind == .malformed)
        #expect(error.description.contains(expected))
        #expect(error.path == file.path)
        #expect(try deck.cardCount() == 0)
    }

    @Test func timestampsRoundTrip() throws {
        for seconds in [0.0, 1_700_000_000.123, -86_400.5, 951_782_400.999, 4_102_444_800] {
            let text = TimestampFormat.string(from: Date(timeIntervalSince1970: seconds))
            let parsed = try #require(TimestampFormat.date(from: text))
            #expect(TimestampFormat.string(from: parsed) == text)
            #expect(abs(parsed.timeIntervalSince1970 - seconds) <= 0.0005)
        }
        #expect(TimestampFormat.string(from: Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
        #expect(TimestampFormat.date(from: "2026-13-01T00:00:00Z") == nil)
        #expect(JSONText.string("a\"b\\c\n\u{1}é") == "\"a\\\"b\\\\c\\n\\u0001é\"")
    }
}

@Suite struct HTMLExportTests {
    @Test func cardsAreRenderedThroughTheirTemplatesWithMediaInline() throws {
        let scratch = try Scratch()
        let deck = try scratch.richDeck()
        let file = scratch.file("deck.html")
        try DeckHTMLExporter().export(deck, to: file)
        let html = try String(contentsOf: file, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<title>Rich &lt;deck&gt; &amp; &quot;quotes&quot;</title>"))
        // No script runs and nothing loads from elsewhere.
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:;"))
        // Card markup is rendered, not escaped: the Basic template's answer, an inline image.
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]).base64EncodedString()
        #expect(html.contains("<div id=\"qa\">bonjour\n\n<hr id=answer>\n\nhello <img src=\"data:image/png;base64,\(png)\"></div>"))
        #expect(html.contains("<audio controls src=\"data:audio/mpeg;base64,"))
        #expect(!html.contains("[sound:"))
        // Cloze: one card per number, the gap shown on its card.
        #expect(html.contains("<span class=\"cloze\" data-cloze=\"Paris\" data-ordinal=\"1\">[...]</span>"))
        #expect(html.contains("<span class=\"cloze\" data-cloze=\"France\" data-ordinal=\"2\">[...]</span>"))
        // The note type's CSS inside each card's own shadow root.
        #expect(html.contains("<template shadowrootmode=\"open\"><style>.card {"))
        #expect(html.contains("<div class=\"card card2\">"))  // the reversed card
        // 5 notes: Basic ×3, reversible (2 cards), cloze (2 cards).
        #expect(html.components(separatedBy: "<article class=\"entry\"").count - 1 == 7)
        for outside in ["src=\"http", "href=\"http", "src=\"red", "<link", "<base"] { #expect(!html.contains(outside)) }
    }

    /// `</template` in a field can't end a card's shadow root; a template's media in CSS is inlined.
    @Test func hostileMarkupStaysInsideItsCard() throws {
        let side = try DeckHTMLExporter.pageHTML("a</TEMPLATE><img src=\"x&amp;y.png\"> [[type:Back]] <!-- [sound:x&amp;y.png] -->",
                                                 side: .question) { $0 == "x&y.png" ? "data:image/png;base64,AA" : nil }
        #expect(side == "a&lt;/template><img src=\"data:image/png;base64,AA\"> <input type=\"text\" id=\"typeans\" class=\"typeans\" disabled> <!-- [sound:x&amp;y.png] -->")
        #expect(try DeckHTMLExporter.pageHTML("[[type:Back]]x", side: .answer) { _ in nil } == "x")
        let css = try DeckHTMLExporter.pageCSS(".card { background: url( '_p.png' ) } </style>") { $0 == "_p.png" ? "data:x" : nil }
        #expect(css == ".card { background: url(\"data:x\" ) } <\\/style>")
    }

    /// With a media folder the page refers to the files relative to itself, under the names cards use.
    @Test func mediaInAFolderNextToThePage() throws {
        let scratch = try Scratch()
        let deck = try scratch.richDeck()
        try FileManager.default.createDirectory(at: scratch.file("site"), withIntermediateDirectories: true)
        let file = scratch.file("site/deck.html")
        try DeckHTMLExporter(mediaFolder: scratch.file("site/deck media")).export(deck, to: file)
        let html = try String(contentsOf: file, encoding: .utf8)
        #expect(html.contains("<base href=\"deck%20media/\">"))
        #expect(html.contains("hello <img src=\"red%20dot.png\">"))
        #expect(html.contains("<audio controls src=\"bonjour.mp3\""))
        #expect(!html.contains("base64,"))
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.file("site/deck media").path).sorted()
        #expect(names == ["bonjour.mp3", "red dot.png"])
        #expect(try Data(contentsOf: scratch.file("site/deck media/red dot.png")) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]))
    }

    /// Media files an import wrote before it failed are removed with the rest of it: `Media/`
    /// is as it was (the last media item's checksum is wrong, so the import fails after the
    /// others were written).
    @Test func failedImportLeavesTheMediaFolderAsItWas() throws {
        let scratch = try Scratch()
        let source = try scratch.richDeck()
        let exported = scratch.file("rich.json")
        try DeckJSONExporter().export(source, to: exported)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: exported)) as? [String: Any])
        var media = try #require(object["media"] as? [[String: Any]])
        try #require(media.count >= 2)
        media[media.count - 1]["sha256"] = String(repeating: "0", count: 64)
        object["media"] = media
        try JSONSerialization.data(withJSONObject: object).write(to: exported)
        let target = try scratch.deck("Target.sampledeck")
        _ = try target.addMedia(Data("kept".utf8), originalName: "kept.txt")
        try target.save()
        let before = try FileManager.default.contentsOfDirectory(atPath: target.mediaURL.path).sorted()
        #expect(throws: InterchangeError.self) { try DeckJSONImporter().importFile(at: exported, into: target) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.mediaURL.path).sorted() == before)
        #expect(target.check().filter { $0.severity == .error }.isEmpty)
    }

    @Test func failedExportLeavesNothing() throws {
        let scratch = try Scratch()
        let deck = try scratch.richDeck()
        try FileManager.default.removeItem(at: deck.mediaURL)
        let file = scratch.file("deck.html")
        // The deck's own refusal, naming the media file it could not read.
        #expect(throws: DeckError.self) { try DeckHTMLExporter().export(deck, to: file) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter { $0.contains("deck.html") }.isEmpty)
    }
}
