import DeckDocument
import Foundation
import Persistence
import Testing
@testable import Interchange

@Suite struct JSONExportTests {
    @Test(arguments: [false, true])
    func exportImportExportGivesIdenticalBytes(_ embedsMedia: Bool) throws {
        let scratch = try Scratch()
        let source = try scratch.richDeck()
        let first = scratch.file("first.json")
        try DeckJSONExporter(embedsMedia: embedsMedia).export(source, to: first)
        if !embedsMedia {  // referenced media are found in a Media folder beside the file
            try FileManager.default.copyItem(at: source.mediaURL, to: scratch.file("Media"))
        }
        let copy = try scratch.deck("Copy.sampledeck", title: "other")
        let report = try DeckJSONImporter(adoptsTitle: true).importFile(at: first, into: copy)
        #expect(report.cardsAdded == 5)
        #expect(report.mediaFiles == 2)
        #expect(report.missingMedia == 0)
        #expect(report.reviews == 2)
        let second = scratch.file("second.json")
        try DeckJSONExporter(embedsMedia: embedsMedia).export(copy, to: second)
        let a = try Data(contentsOf: first), b = try Data(contentsOf: second)
        #expect(a == b)
        #expect(String(decoding: a, as: UTF8.self).contains("\"data\": ") == embedsMedia)
        #expect(copy.manifest.title == source.manifest.title)
        #expect(copy.check().isEmpty)
    }

    @Test func keepsEverythingACardHolds() throws {
        let scratch = try Scratch()
        let source = try scratch.richDeck()
        let file = scratch.file("deck.json")
        try DeckJSONExporter(embedsMedia: true).export(source, to: file)
        let copy = try scratch.deck("Copy.sampledeck")
        try DeckJSONImporter().importFile(at: file, into: copy)
        var before: [CardSnapshot] = [], after: [CardSnapshot] = []
        try source.forEachCardSnapshot { before.append($0) }
        try copy.forEachCardSnapshot { after.append($0) }
        #expect(after.count == before.count)
        for (original, imported) in zip(before, after) {
            #expect(imported.kind == original.kind)
            #expect(imported.front == original.front)
            #expect(imported.back == original.back)
            #expect(imported.text == original.text)
            #expect(imported.tags == original.tags)
            #expect(imported.media == original.media)
            #expect(imported.deckPath == original.deckPath)
            #expect(imported.interval == original.interval)
            #expect(imported.ease == original.ease)
            #expect(imported.lapses == original.lapses)
            #expect(imported.due == original.due)  // whole seconds in the sample: exact
            #expect(abs(imported.created.timeIntervalSince(original.created)) < 0.001)
            #expect(imported.reviews == original.reviews)
        }
    }

    @Test(.tags(.interop)) func exportValidatesAgainstTheSchema() throws {
        let scratch = try Scratch()
        let source = try scratch.richDeck()
        let file = scratch.file("deck.json")
        try DeckJSONExporter(embedsMedia: true).export(source, to: file)
        let schema = Fixtures.root.deletingLastPathComponent().appendingPathComponent("Schemas/sampledeck.schema.json")
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1])); jsonschema.Draft202012Validator.check_schema(schema)
            jsonschema.Draft202012Validator(schema).validate(json.load(open(sys.argv[2])))
            bad = json.load(open(sys.argv[2])); bad["cards"][0]["kind"] = "mystery"
            try:
                jsonschema.Draft202012Validator(schema).validate(bad); sys.exit(3)
            except jsonschema.ValidationError: pass
            """
        let result = try runProgram("/usr/bin/env", ["python3", "-c", script, schema.path, file.path])
        #expect(result.status == 0, "\(result.stderr)")
    }

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
    @Test func onePageWithMediaInlinedAndTextEscaped() throws {
        let scratch = try Scratch()
        let deck = try scratch.richDeck()
        let file = scratch.file("deck.html")
        try DeckHTMLExporter().export(deck, to: file)
        let html = try String(contentsOf: file, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<title>Rich &lt;deck&gt; &amp; &quot;quotes&quot;</title>"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; é"))
        #expect(!html.contains("<script"))
        #expect(html.contains("hello &lt;img src=&quot;red dot.png&quot;&gt;"))
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]).base64EncodedString()
        #expect(html.contains("<img src=\"data:image/png;base64,\(png)\""))
        #expect(html.contains("<audio controls src=\"data:audio/mpeg;base64,"))
        #expect(html.components(separatedBy: "<section class=\"card").count - 1 == 5)
        // Self-contained: no reference to anything outside the page.
        for outside in ["src=\"http", "href=\"http", "src=\"red", "<link"] { #expect(!html.contains(outside)) }
    }

    /// Media files an import wrote before it failed are removed with the rest of it: `Media/`
    /// is as it was (the last media item's checksum is wrong, so the import fails after the
    /// others were written).
    @Test func failedImportLeavesTheMediaFolderAsItWas() throws {
        let scratch = try Scratch()
        let source = try scratch.richDeck()
        let exported = scratch.file("rich.json")
        try DeckJSONExporter(embedsMedia: true).export(source, to: exported)
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
