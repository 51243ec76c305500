import DeckDocument
import Digest
import Foundation
import Testing
@testable import Interchange

/// A deck's contents with something in every column: a custom note type with several fields
/// and templates (one with a deck override), nested decks with descriptions and two presets, a
/// filtered deck holding a card, cards in every queue with FSRS state, flags and custom data,
/// reviews, a detached review, media with equal bytes under two names, collapsed tags, Anki ids
/// and verbatim options, dates with sub-millisecond fractions.
enum FullDeck {
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 9, 8, 7])
    static let ogg = Data((0..<200).map { UInt8(($0 * 13 + 5) % 256) })

    static func media(_ data: Data, ext: String, names: [String], mime: String) -> MediaRecord {
        let sha = SHA256.hex(data)
        return MediaRecord(fileName: "\(sha).\(ext)", sha256: sha, sha1: "", mime: mime, size: data.count, names: names)
    }

    static func field(_ ordinal: Int, _ name: String) -> FieldRecord {
        FieldRecord(ordinal: ordinal, name: name, font: "Arial", fontSize: 20, rightToLeft: false, sticky: ordinal == 2, plainText: false,
                    collapsed: false, excludeFromSearch: ordinal == 3, description: ordinal == 0 ? "the word" : "",
                    ankiID: ordinal == 0 ? 7_000_001 : nil, ankiOptions: ordinal == 1 ? "{\"media\":[],\"tag\":null}" : "{}")
    }

    static func template(_ ordinal: Int, _ name: String, _ q: String, _ a: String, deck: Int64? = nil) -> TemplateRecord {
        TemplateRecord(ordinal: ordinal, name: name, questionFormat: q, answerFormat: a, browserQuestionFormat: ordinal == 1 ? "{{Meaning}}" : "",
                       browserAnswerFormat: "", browserFont: "", browserFontSize: 0, modified: 1_700_000_000.123456,
                       ankiID: nil, ankiOptions: "{}", targetDeck: deck)
    }

    static func card(_ id: Int64, ordinal: Int, deck: Int64, type: Int, queue: Int, due: Int64, reviews: [ReviewRecord] = [],
                     originalDeck: Int64? = nil, originalDue: Int64 = 0, flag: Int = 0) -> CardRecord {
        let scheduled = type != 0
        return CardRecord(id: id, ordinal: ordinal, deck: deck, originalDeck: originalDeck, type: type, queue: queue, due: due,
                          interval: scheduled ? 12 : 0, easeFactor: scheduled ? 2650 : 0, repetitions: reviews.count, lapses: scheduled ? 1 : 0,
                          remainingSteps: type == 1 ? 2002 : 0, originalDue: originalDue, flag: flag,
                          stability: scheduled ? 12.3456789012345 : nil, difficulty: scheduled ? 5.25 : nil,
                          desiredRetention: scheduled ? 0.87 : nil, decay: scheduled ? 0.1542 : nil,
                          lastReview: reviews.last.map { $0.time / 1000 }, originalPosition: scheduled ? 4 : nil,
                          customData: scheduled ? "{\"v\":\"x\"}" : "", created: 1_700_000_100.000123, modified: 1_700_500_000.5,
                          ankiID: scheduled ? 1_690_000_000_000 + id : nil, ankiOptions: scheduled ? "{\"pos\":4}" : "{}", reviews: reviews)
    }

    static func review(_ time: Int64, rating: Int, kind: Int = 1) -> ReviewRecord {
        ReviewRecord(time: time, rating: rating, interval: rating == 1 ? -600 : 12, lastInterval: 3, easeFactor: 2650,
                     duration: 6543, kind: kind, ankiID: time)
    }

    static func contents(title: String = "Full <deck> & \"quotes\"") -> (DeckContents, [NoteRecord], [String: Data]) {
        let image = media(png, ext: "png", names: ["cat.png", "kitty.png"], mime: "image/png")
        let sound = media(ogg, ext: "ogg", names: ["miaou.ogg"], mime: "audio/ogg")
        let stockCSS = ".card {\n    font-family: arial;\n    font-size: 20px;\n    text-align: center;\n}\n.cloze { font-weight: bold; color: blue; }\n"
        let presets = [
            PresetRecord(id: 1, name: "Default", newPerDay: 20, reviewsPerDay: 200, learningSteps: "[1,10]", relearningSteps: "[10]",
                         maximumInterval: 36_500, usesFSRS: true, fsrsParameters: "[]", desiredRetention: 0.9, startingEase: 2500,
                         graduatingInterval: 1, easyInterval: 4, easyBonus: 1.3, hardMultiplier: 1.2, intervalMultiplier: 1,
                         lapseMultiplier: 0, minimumLapseInterval: 1, leechThreshold: 8, buryNewSiblings: false, buryReviewSiblings: false,
                         buryInterdaySiblings: false, modified: 1_699_999_999.25, ankiID: 1, ankiOptions: "{}"),
            PresetRecord(id: 4, name: "Intense", newPerDay: 50, reviewsPerDay: 9999, learningSteps: "[0.5,5,30]", relearningSteps: "[]",
                         maximumInterval: 365, usesFSRS: false, fsrsParameters: "[0.4,1.2,3.1,15.7,7.2,0.5,1.5,0.005,1.5,0.1,1,1.9,0.1,0.3,2.3,0.2,3,0.5,0.7,0.1,0.15]",
                         desiredRetention: 0.95, startingEase: 2300, graduatingInterval: 2, easyInterval: 5, easyBonus: 1.45,
                         hardMultiplier: 1.1, intervalMultiplier: 0.95, lapseMultiplier: 0.3, minimumLapseInterval: 2, leechThreshold: 5,
                         buryNewSiblings: true, buryReviewSiblings: true, buryInterdaySiblings: true, modified: 1_700_000_000.000001,
                         ankiID: 1_650_000_000_123, ankiOptions: "{\"newSortOrder\":1,\"questionAction\":0}"),
        ]
        let decks = [
            DeckRecord(id: 1, name: "Default", kind: 0, description: "", markdownDescription: false, collapsed: false, filterTerms: "[]",
                       reschedules: true, modified: 1_699_999_999.25, ankiID: 1, ankiOptions: "{}", preset: 1),
            DeckRecord(id: 5, name: "Languages", kind: 0, description: "<b>All</b> languages", markdownDescription: false, collapsed: true,
                       filterTerms: "[]", reschedules: true, modified: 1_700_000_001, ankiID: 1_600_000_000_001, ankiOptions: "{\"browserCollapsed\":true}", preset: 1),
            DeckRecord(id: 6, name: "Languages::French", kind: 0, description: "*Verbs* and nouns", markdownDescription: true, collapsed: false,
                       filterTerms: "[]", reschedules: true, modified: 1_700_000_002, ankiID: nil, ankiOptions: "{}", preset: 4),
            DeckRecord(id: 9, name: "Cram", kind: 1, description: "", markdownDescription: false, collapsed: false,
                       filterTerms: "[{\"search\":\"deck:Languages\",\"limit\":100,\"order\":1}]", reschedules: false,
                       modified: 1_700_000_003, ankiID: nil, ankiOptions: "{\"delays\":null}", preset: nil),
        ]
        let basic = NoteTypeRecord(id: 1, name: "Basic", kind: 0, stockKind: 1, css: stockCSS, sortField: 0, latexPre: "\\documentclass{article}",
                                   latexPost: "\\end{document}", latexSVG: false, modified: 1_699_999_999.25, ankiID: 1_111, ankiOptions: "{}",
                                   fields: [field(0, "Front"), field(1, "Back")],
                                   templates: [template(0, "Card 1", "{{Front}}", "{{FrontSide}}<hr id=answer>{{Back}}")])
        let cloze = NoteTypeRecord(id: 3, name: "Cloze", kind: 1, stockKind: 5, css: stockCSS, sortField: 0, latexPre: "", latexPost: "",
                                   latexSVG: true, modified: 1_699_999_999.25, ankiID: nil, ankiOptions: "{\"originalId\":null}",
                                   fields: [field(0, "Text"), field(1, "Back Extra")],
                                   templates: [template(0, "Cloze", "{{cloze:Text}}", "{{cloze:Text}}<br>{{Back Extra}}")])
        let vocab = NoteTypeRecord(id: 7, name: "Vocab", kind: 0, stockKind: nil, css: ".card { background: url('_paper.png'); }\n.jp { font-size: 2em; }",
                                   sortField: 1, latexPre: "", latexPost: "", latexSVG: false, modified: 1_700_000_000.999, ankiID: 1_650_000_000_777,
                                   ankiOptions: "{\"vers\":[],\"req\":[[0,\"any\",[0]]]}",
                                   fields: [field(0, "Word"), field(1, "Meaning"), field(2, "Reading"), field(3, "Example")],
                                   templates: [template(0, "Recognition", "<div class=jp>{{Word}}</div>", "{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{furigana:Reading}}"),
                                               template(1, "Production", "{{Meaning}}", "{{FrontSide}}<hr id=answer>{{Word}}", deck: 6),
                                               template(2, "Example", "{{#Example}}{{Example}}{{/Example}}", "{{FrontSide}}<hr id=answer>{{Word}}")])
        let tags = [TagRecord(name: "animals", collapsed: false), TagRecord(name: "lang::fr", collapsed: true), TagRecord(name: "unused", collapsed: false)]
        let contents = DeckContents(title: title, description: "Every column, with <markup> & é", dayZero: 1_699_934_400, dayStartsAt: 5,
                                    ankiConfig: "{\"curModel\":1,\"sortType\":\"noteFld\",\"rollover\":5}", presets: presets, decks: decks,
                                    noteTypes: [basic, cloze, vocab], tags: tags, media: [image, sound],
                                    detachedReviews: [])
        let notes = [
            NoteRecord(id: 2, guid: "f?K8/a`b", noteType: 1, fields: ["chat <img src=\"cat.png\">", "cat [sound:miaou.ogg]"], sortText: "chat",
                       created: 1_700_000_000.000457, modified: 1_700_000_050.5, ankiID: 1_690_000_000_002, tags: ["animals", "lang::fr"],
                       media: ["cat.png", "miaou.ogg"],
                       cards: [card(10, ordinal: 0, deck: 6, type: 2, queue: 2, due: 30,
                                    reviews: [review(1_700_100_000_000, rating: 1, kind: 0), review(1_700_200_000_123, rating: 3)], flag: 3)]),
            NoteRecord(id: 3, guid: "guid-cloze", noteType: 3, fields: ["{{c1::Paris}} is in {{c2::France}}", "geo"], sortText: "Paris is in France",
                       created: 1_700_000_001, modified: 1_700_000_001, ankiID: nil, tags: [], media: [],
                       cards: [card(11, ordinal: 0, deck: 9, type: 2, queue: -1, due: 31, originalDeck: 5, originalDue: 29),
                               card(12, ordinal: 1, deck: 1, type: 1, queue: 1, due: 1_700_300_000, reviews: [review(1_700_250_000_000, rating: 1, kind: 0)])]),
            NoteRecord(id: 8, guid: "vocab-1", noteType: 7, fields: ["日本", "Japan", "日本[にほん]", ""], sortText: "Japan",
                       created: 1_700_000_002, modified: 1_700_000_003, ankiID: 1_690_000_000_008, tags: ["lang::fr"], media: ["kitty.png"],
                       cards: [card(13, ordinal: 0, deck: 5, type: 0, queue: 0, due: 7), card(14, ordinal: 1, deck: 6, type: 0, queue: -2, due: 8),
                               card(20, ordinal: 2, deck: 5, type: 3, queue: 3, due: 40, flag: 7)]),
        ]
        return (contents, notes, [image.fileName: png, sound.fileName: ogg])
    }

    /// A new deck holding `contents()` restored in place.
    static func deck(in scratch: Scratch, _ name: String = "Full.sampledeck") throws -> DeckDocument {
        let deck = try scratch.deck(name, title: "placeholder")
        let (contents, notes, data) = Self.contents()
        let report = try deck.restore(contents, notes: notes, mediaData: { data[$0.fileName] }, adoptsTitle: true)
        #expect(report.restoredInPlace)
        return deck
    }
}

extension DeckDocument {
    func noteRecords() throws -> [NoteRecord] {
        var notes: [NoteRecord] = []
        try forEachNoteRecord { notes.append($0) }
        return notes
    }
}

@Suite struct LosslessJSONTests {
    /// The restore keeps every value given, and export → import into a new deck → export is
    /// byte-identical, with media inside the file and in a folder.
    @Test(arguments: [false, true])
    func everyValueSurvivesAndTheBytesRepeat(_ inFolder: Bool) throws {
        let scratch = try Scratch()
        let source = try FullDeck.deck(in: scratch)
        let (expected, expectedNotes, _) = FullDeck.contents()
        // The new deck's own stock type that the file does not name stays (its ids and names are not the file's).
        func withoutKept(_ contents: DeckContents) -> DeckContents {
            var contents = contents
            contents.noteTypes.removeAll { $0.name == "Basic (and reversed card)" }
            return contents
        }
        #expect(try source.contents().noteTypes.map(\.name) == ["Basic", "Basic (and reversed card)", "Cloze", "Vocab"])
        let restored = withoutKept(try source.contents())
        #expect(restored == expected)
        if restored != expected {
            for (a, b) in zip(Mirror(reflecting: restored).children, Mirror(reflecting: expected).children) where "\(a.value)" != "\(b.value)" {
                Issue.record("\(a.label ?? ""): \(a.value)\nexpected \(b.value)")
            }
        }
        #expect(try source.noteRecords() == expectedNotes)
        #expect(source.check().filter { $0.severity == .error }.isEmpty)

        let placement: DeckJSONExporter.MediaPlacement = inFolder ? .folder(scratch.file("media")) : .embedded
        let first = scratch.file("first.json")
        try DeckJSONExporter(media: placement).export(source, to: first)
        let copy = try scratch.deck("Copy.sampledeck", title: "other")
        let report = try DeckJSONImporter(adoptsTitle: true, mediaFolder: inFolder ? scratch.file("media") : nil).importFile(at: first, into: copy)
        #expect(report.cardsAdded == 3)
        #expect(report.mediaFiles == 2)
        #expect(report.missingMedia == 0)
        #expect(report.reviews == 3)
        let second = scratch.file("second.json")
        try DeckJSONExporter(media: inFolder ? .folder(scratch.file("media2")) : .embedded).export(copy, to: second)
        let a = try Data(contentsOf: first), b = try Data(contentsOf: second)
        #expect(a == b)
        #expect(String(decoding: a, as: UTF8.self).contains("\"data\": ") == !inFolder)
        #expect(withoutKept(try copy.contents()) == expected)
        #expect(try copy.noteRecords() == expectedNotes)
        #expect(try copy.readMedia(named: expected.media[0].fileName) == FullDeck.png)
        #expect(copy.check().filter { $0.severity == .error }.isEmpty)
        // Search works on restored notes (the index is brought up to date).
        #expect(try copy.search("Paris", limit: nil).count == 1)
        if inFolder {
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("media").path).sorted() == expected.media.map(\.fileName).sorted())
        }
    }

    /// Decks made through the everyday API round-trip too (stock note types, imported scheduling).
    @Test func aDeckBuiltByImportRoundTrips() throws {
        let scratch = try Scratch()
        let source = try scratch.richDeck()
        let first = scratch.file("first.json")
        try DeckJSONExporter().export(source, to: first)
        let copy = try scratch.deck("Copy.sampledeck", title: "other")
        let report = try DeckJSONImporter(adoptsTitle: true).importFile(at: first, into: copy)
        #expect(report.cardsAdded == 5)
        let second = scratch.file("second.json")
        try DeckJSONExporter().export(copy, to: second)
        #expect(try Data(contentsOf: first) == Data(contentsOf: second))
        #expect(copy.manifest.title == source.manifest.title)
        #expect(try copy.cardSnapshots() == source.cardSnapshots())
    }

    /// Into a deck that has notes: note types, decks and presets are reused by name, notes
    /// already there (same GUID) are unchanged, the rest get new ids, and review due days follow
    /// the deck's own day zero.
    @Test func importingIntoADeckWithNotesMerges() throws {
        let scratch = try Scratch()
        let source = try FullDeck.deck(in: scratch)
        let file = scratch.file("full.json")
        try DeckJSONExporter().export(source, to: file)
        let target = try scratch.deck("Target.sampledeck", title: "Target")
        _ = try target.addCard(kind: .basic, front: "existing", back: "note", tags: ["Animals"])
        try target.save()
        let targetDayZero = try target.contents().dayZero
        let first = try DeckJSONImporter().importFile(at: file, into: target)
        #expect(first.cardsAdded == 3)
        #expect(first.duplicatesSkipped == 0)
        let again = try DeckJSONImporter().importFile(at: file, into: target)
        #expect(again.cardsAdded == 0)
        #expect(again.updates.unchanged == 3)
        #expect(again.updates.updated == 0 && again.updates.skipped == 0)
        let contents = try target.contents()
        #expect(contents.title == "Target")
        #expect(contents.dayZero == targetDayZero)
        #expect(contents.noteTypes.map(\.name).sorted() == ["Basic", "Basic (and reversed card)", "Cloze", "Vocab"])
        #expect(contents.decks.map(\.name).sorted() == ["Cram", "Default", "Languages", "Languages::French"])
        #expect(contents.tags.map(\.name).sorted() == ["Animals", "lang::fr", "unused"])  // "animals" reuses "Animals"
        let notes = try target.noteRecords()
        #expect(notes.count == 4)
        let chat = try #require(notes.first { $0.guid == "f?K8/a`b" })
        let original = try #require(try source.noteRecords().first { $0.guid == "f?K8/a`b" })
        #expect(chat.fields == original.fields)
        #expect(chat.cards[0].reviews == original.cards[0].reviews)
        let shift = Int64(((Double(FullDeck.contents().0.dayZero) - Double(targetDayZero)) / 86_400).rounded())
        #expect(chat.cards[0].due == original.cards[0].due + shift)
        #expect(chat.media == ["cat.png", "miaou.ogg"])
        #expect(target.check().filter { $0.severity == .error }.isEmpty)
    }

    @Test(arguments: [
        ("\"queue\": 2", "\"queue\": 9", "queue 9"),
        ("\"deck\": 6", "\"deck\": 99", "deck 99 is not in the file"),
        ("\"Meaning\": \"Japan\"", "\"Meening\": \"Japan\"", "no field \"Meening\""),
        ("\"formatVersion\": 2", "\"formatVersion\": 3", "newer"),
        ("\"guid\": \"vocab-1\"", "\"guid\": \"guid-cloze\"", "two notes have the GUID"),
        ("\"rating\": 3", "\"rating\": 7", "rating 7"),
        ("\"noteType\": 7", "\"noteType\": 70", "note type 70"),
        ("\"dayStartsAt\": 5", "\"dayStartsAt\": \"5\"", "wrong type"),
    ])
    func malformedFilesAreRefusedAndChangeNothing(_ find: String, _ replace: String, _ expected: String) throws {
        let scratch = try Scratch()
        let source = try FullDeck.deck(in: scratch)
        let file = scratch.file("full.json")
        try DeckJSONExporter().export(source, to: file)
        var text = try String(contentsOf: file, encoding: .utf8)
        let range = try #require(text.range(of: find))
        text.replaceSubrange(range, with: replace)
        try Data(text.utf8).write(to: file)
        let target = try scratch.deck("Target.sampledeck")
        let before = try target.contents()
        let error = try #require(throws: InterchangeError.self) { try DeckJSONImporter(adoptsTitle: true).importFile(at: file, into: target) }
        #expect(error.kind == .malformed)
        #expect(error.description.contains(expected), "\(error)")
        #expect(try target.contents() == before)
        #expect(try target.noteCount() == 0)
    }

    /// A media file whose bytes do not match its SHA-256 fails the import and leaves `Media/` as it was.
    @Test func mediaThatDoNotMatchTheirHashAreRefused() throws {
        let scratch = try Scratch()
        let source = try FullDeck.deck(in: scratch)
        let file = scratch.file("full.json")
        try DeckJSONExporter(media: .folder(scratch.file("media"))).export(source, to: file)
        let (contents, _, _) = FullDeck.contents()
        try Data("other bytes".utf8).write(to: scratch.file("media").appendingPathComponent(contents.media[1].fileName))
        let target = try scratch.deck("Target.sampledeck")
        #expect(throws: InterchangeError.self) {
            try DeckJSONImporter(mediaFolder: scratch.file("media")).importFile(at: file, into: target)
        }
        #expect((try? FileManager.default.contentsOfDirectory(atPath: target.mediaURL.path)) ?? [] == [])
        #expect(try target.noteCount() == 0)
    }

    /// Every export of these tests' decks validates against Schemas/sampledeck.schema.json, and
    /// files the schema must refuse are refused (one python3 process).
    @Test(.tags(.interop)) func exportsValidateAgainstTheSchema() throws {
        let scratch = try Scratch()
        var files: [URL] = []
        let full = try FullDeck.deck(in: scratch)
        for (name, deck, placement) in [("full.json", full, DeckJSONExporter.MediaPlacement.embedded),
                                        ("full-folder.json", full, .folder(scratch.file("media"))),
                                        ("rich.json", try scratch.richDeck(), .embedded),
                                        ("empty.json", try scratch.deck("Empty.sampledeck"), .embedded)] {
            let file = scratch.file(name)
            try DeckJSONExporter(media: placement).export(deck, to: file)
            files.append(file)
        }
        let schema = Fixtures.root.deletingLastPathComponent().appendingPathComponent("Schemas/sampledeck.schema.json")
        let script = """
            import copy, json, sys, jsonschema
            schema = json.load(open(sys.argv[1])); jsonschema.Draft202012Validator.check_schema(schema)
            validator = jsonschema.Draft202012Validator(schema)
            for path in sys.argv[2:]:
                validator.validate(json.load(open(path)))
            good = json.load(open(sys.argv[2]))
            def bad(change):
                doc = copy.deepcopy(good); change(doc)
                if validator.is_valid(doc): sys.exit("accepted: " + change.__doc__)
            def queue(d):
                "queue 9"
                d["notes"][0]["cards"][0]["queue"] = 9
            def extra(d):
                "an unknown key"
                d["notes"][0]["mystery"] = 1
            def sha(d):
                "a short sha256"
                d["media"][0]["sha256"] = "abc"
            def version(d):
                "format version 1"
                d["formatVersion"] = 1
            def missing(d):
                "no noteTypes"
                del d["noteTypes"]
            for change in (queue, extra, sha, version, missing): bad(change)
            """
        let result = try runProgram("/usr/bin/env", ["python3", "-c", script, schema.path] + files.map(\.path))
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func importsAreToldFromTheirBytes() throws {
        let scratch = try Scratch()
        func sniff(_ bytes: [UInt8]) throws -> InterchangeFormat? { try InterchangeFormat.sniffImport(Data(bytes), path: "x") }
        #expect(try sniff(Array("\u{FEFF}  {\"format\": \"sampledeck\"}".utf8)) == .json)
        #expect(try sniff(Array("Front,Back\nchat,cat\n".utf8)) == nil)
        #expect(try sniff([0xFF, 0xFE, 0x46, 0x00]) == nil)  // UTF-16 text
        let apkg = try Data(contentsOf: Fixtures.anki("anki-current.apkg"))
        #expect(try InterchangeFormat.sniffImport(apkg, path: "x") == .apkg)
        #expect(try InterchangeFormat.sniffImport(try Data(contentsOf: Fixtures.anki("genanki-legacy.apkg")), path: "x") == .apkg)
        for (bytes, what) in [(Array("SQLite format 3\0rest".utf8), "an SQLite database"), ([0x1F, 0x8B, 8, 0], "a gzip file"),
                              ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0], "binary data"), ([], "empty"),
                              ([0x50, 0x4B, 0x03, 0x04] + Array("....manifest.json".utf8), ".sampledeck package")] {
            let error = try #require(throws: InterchangeError.self) { try sniff(bytes) }
            #expect(error.kind == .malformed)
            #expect(error.reason.contains(what), "\(error)")
        }
        let file = scratch.file("deck.data")
        try Data("{}".utf8).write(to: file)
        #expect(try InterchangeFormat.sniffImport(at: file) == .json)
    }
}
