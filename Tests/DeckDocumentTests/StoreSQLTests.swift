import Foundation
import Persistence
import SQLite
import Testing
@testable import DeckDocument

/// Format version 2's store: `Schemas/store.sql` is generated from the models and agrees with
/// what a new store holds; the models round-trip through a store.
@Suite struct StoreSQLTests {
    static let storeSQLFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Schemas/store.sql")

    /// `type name sql` of every object SQLite keeps for a store, without FTS5's shadow tables
    /// and SQLite's own objects.
    func schemaObjects(_ path: String) throws -> Set<String> {
        let db = try Database(path: path, mode: .readOnly)
        defer { db.close() }
        let rows = try db.rows("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'")
        return Set(rows.compactMap { row -> String? in
            guard case .text(let type) = row[0], case .text(let name) = row[1], case .text(let sql) = row[2] else { return nil }
            if DeckStoreV2.searchShadowTables.contains(name) { return nil }
            return "\(type) \(name) \(sql)"
        })
    }

    @Test func storeSQLFileIsGeneratedFromTheModels() throws {
        let expected = DeckStoreV2.storeSQL
        if ProcessInfo.processInfo.environment["SAMPLEDECK_WRITE_STORE_SQL"] == "1" {
            try Data(expected.utf8).write(to: Self.storeSQLFile)
        }
        let onDisk = try String(contentsOf: Self.storeSQLFile, encoding: .utf8)
        #expect(onDisk == expected, "Schemas/store.sql is stale; regenerate it with SAMPLEDECK_WRITE_STORE_SQL=1")
    }

    @MainActor @Test func aNewStoreHoldsExactlyWhatStoreSQLCreates() throws {
        let playground = try Playground()
        let made = playground.file("made.sqlite")
        try DeckStoreV2.createStore(at: made, title: "Made")
        // A stranger's writer: run store.sql with nothing but SQLite.
        let written = playground.file("written.sqlite")
        let db = try Database(path: written.path, mode: .create)
        try db.execute(try String(contentsOf: Self.storeSQLFile, encoding: .utf8))
        db.close()
        let fromLibrary = try schemaObjects(made.path)
        let fromFile = try schemaObjects(written.path)
        #expect(fromLibrary == fromFile)
        #expect(fromLibrary.contains { $0.hasPrefix("table NoteSearch CREATE VIRTUAL TABLE") })
        #expect(fromLibrary.contains { $0.hasPrefix("trigger Note_search_delete ") })
        for store in [made, written] {
            let check = try Database(path: store.path, mode: .readOnly)
            defer { check.close() }
            #expect(try check.userVersion() == 2)
            #expect(try check.scalar("PRAGMA page_size", as: Int.self) == 16_384)
            #expect(try check.scalar("SELECT value FROM persistence_metadata WHERE key = 'schemaVersion'", as: String.self) == "2.1.0")
            #expect(try check.scalar("SELECT count(*) FROM DeckInfo", as: Int.self) == 1)
        }
        // The library opens the stranger's store as its own.
        let container = try ModelContainer(for: DeckStoreV2.schema(), configurations: [ModelConfiguration("Deck", url: written)])
        #expect(try container.mainContext.fetchCount(FetchDescriptor<DeckSchemaV2.DeckInfo>()) == 1)
        try container.close()
    }

    @Test func everyModelRoundTripsThroughAStore() throws {
        typealias V2 = DeckSchemaV2
        let playground = try Playground()
        let url = playground.file("round.sqlite")
        try DeckStoreV2.createStore(at: url, title: "Round", dayZero: 1_767_240_000)
        do {
            let container = try ModelContainer(for: DeckStoreV2.schema(), configurations: [ModelConfiguration("Deck", url: url)])
            let context = ModelContext(container)
            let type = V2.NoteType(name: "Vocab", kind: .standard, stockKind: .basicAndReversed, css: ".card { color: red }")
            context.insert(type)
            for (ordinal, name) in ["Word", "Meaning", "Reading"].enumerated() {
                let field = V2.NoteField(ordinal: ordinal, name: name)
                field.rightToLeft = ordinal == 2
                field.noteType = type
                context.insert(field)
            }
            let preset = V2.Preset(name: "Default")
            preset.fsrsParameters = "[0.212,1.2931]"
            context.insert(preset)
            let deck = V2.Deck(name: "Languages::Japanese")
            deck.preset = preset
            context.insert(deck)
            let template = V2.CardTemplate(ordinal: 0, name: "Recognition", questionFormat: "{{Word}}", answerFormat: "{{FrontSide}}<hr id=answer>{{Meaning}}")
            template.noteType = type
            template.targetDeck = deck
            context.insert(template)
            let note = V2.Note(guid: "f3Lq}x9#Ab", fields: ["<b>猫</b>", "cat", "ねこ"])
            note.noteType = type
            note.sortText = "猫"
            note.tags = [V2.Tag(name: "lang::ja")]
            let file = V2.MediaFile()
            file.fileName = String(repeating: "a", count: 64) + ".png"
            context.insert(file)
            let first = V2.MediaName(name: "cat.png"), second = V2.MediaName(name: "neko.png")
            first.file = file
            second.file = file
            note.media = [first, second]
            context.insert(note)
            let card = V2.Card(ordinal: 0)
            card.note = note
            card.deck = deck
            card.type = .review
            card.queue = .suspended
            card.due = 120
            card.interval = 12
            card.stability = 14.5
            card.difficulty = 5.25
            card.flag = 3
            context.insert(card)
            let review = V2.Review(time: 1_767_300_000_123, rating: 3, interval: 12, lastInterval: -600, easeFactor: 2500, duration: 4200, kind: .review)
            review.card = card
            context.insert(review)
            try context.save()
            try container.close()
        }
        let container = try ModelContainer(for: DeckStoreV2.schema(), configurations: [ModelConfiguration("Deck", url: url)])
        let context = ModelContext(container)
        let notes = try context.fetch(FetchDescriptor<V2.Note>(predicate: #Predicate { $0.sortText == "猫" }))
        let note = try #require(notes.first)
        #expect(note.fields == ["<b>猫</b>", "cat", "ねこ"])
        #expect(note.noteType?.name == "Vocab")
        #expect(note.noteType?.fields.sorted { $0.ordinal < $1.ordinal }.map(\.name) == ["Word", "Meaning", "Reading"])
        #expect(note.noteType?.templates.first?.targetDeck?.name == "Languages::Japanese")
        #expect(note.tags.map(\.name) == ["lang::ja"])
        #expect(Set(note.media.map(\.name)) == ["cat.png", "neko.png"])
        #expect(Set(note.media.compactMap { $0.file?.fileName }).count == 1)
        let suspended = try context.fetch(FetchDescriptor<V2.Card>(predicate: #Predicate { $0.flag == 3 }))
        let card = try #require(suspended.first)
        #expect(card.queue == .suspended && card.type == .review && card.due == 120)
        #expect(card.stability == 14.5 && card.difficulty == 5.25 && card.desiredRetention == nil)
        #expect(card.deck?.preset?.fsrsParameters == "[0.212,1.2931]")
        #expect(card.reviews.map(\.lastInterval) == [-600])
        #expect(card.reviews.first?.time == 1_767_300_000_123)
        let info = try context.fetch(FetchDescriptor<V2.DeckInfo>())
        #expect(info.map(\.dayZero) == [1_767_240_000])
        try container.close()
    }

    /// `Schemas/manifest.schema.json` accepts what the library writes and the v1 fixture, and
    /// refuses a manifest without a required field or with a path as its store.
    @Test func manifestSchemaAcceptsWrittenManifestsAndRefusesBrokenOnes() throws {
        let playground = try Playground()
        let deck = try DeckDocument.create(at: playground.file("New.sampledeck"), title: "New")
        try deck.close()
        let schema = Self.storeSQLFile.deletingLastPathComponent().appendingPathComponent("manifest.schema.json")
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1])); jsonschema.Draft202012Validator.check_schema(schema)
            validator = jsonschema.Draft202012Validator(schema)
            for path in sys.argv[2:]:
                manifest = json.load(open(path)); validator.validate(manifest)
                for broken in ({k: v for k, v in manifest.items() if k != "documentID"}, dict(manifest, store="../x.sqlite"),
                               dict(manifest, contentType="other"), dict(manifest, created="yesterday")):
                    if validator.is_valid(broken): sys.exit("accepted a broken manifest: %r" % broken)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, schema.path,
                             playground.file("New.sampledeck/manifest.json").path,
                             fixtures.appendingPathComponent("v1/Languages.sampledeck/manifest.json").path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(message)")
    }

    /// The index holds each field as CardTemplates' plain text, one field a line.
    @Test(arguments: [
        (["plain  text "], "plain text"),
        (["<b>bold</b> &amp; <i>it</i>", "second"], "bold & it\nsecond"),
        (["<style>.x{}</style>after<script>alert(1)</script>"], "after"),
        (["caf&#233; &nbsp;x &lt;tag&gt;"], "café x <tag>"),
        (["<img src=\"cat.png\">[sound:a.mp3]", ""], "[sound:a.mp3]\n"),
    ])
    func searchTextIsThePlainTextOfEachField(fields: [String], text: String) {
        #expect(DeckStoreV2.searchText(ofFields: fields) == text)
    }
}
