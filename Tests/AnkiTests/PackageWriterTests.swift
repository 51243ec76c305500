import Foundation
import Testing
@testable import Anki

@Suite struct PackageWriterTests {
    @Test(arguments: AnkiPackageWriter.Options.Format.allCases)
    func writtenPackagesReadBack(_ format: AnkiPackageWriter.Options.Format) throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("out.apkg")
        let expected = try SampleExport.write(to: url, options: .init(format: format), mediaDirectory: dir.url)

        let reader = try AnkiPackageReader(url: url)
        defer { reader.close() }
        #expect(reader.version == (format == .anki2 ? .legacy1 : format.isCurrent ? .latest : .legacy2))
        #expect(reader.schemaVersion == (format.isCurrent ? 18 : 11))
        #expect(Set(reader.noteTypes.map(\.shape)) == [SampleExport.basic, SampleExport.reversed, SampleExport.cloze, SampleExport.vocab])
        #expect(Set(reader.decks.map(\.name)) == ["Default", "Swift Export", "Swift Export::Verbs", "Languages",
                                                   "Languages::Japanese", "Languages::Japanese::Kana"])
        #expect(reader.deck(id: SampleExport.parent.id)?.description == SampleExport.parent.description)

        var notes: [String: AnkiNote] = [:]
        try reader.forEachNote { notes[$0.guid] = $0 }
        #expect(notes.count == expected.notes.count)
        for (guid, want) in expected.notes {
            let note = try #require(notes[guid])
            let type = try #require(reader.noteType(id: note.noteTypeID))
            #expect(type.name == want.type)
            #expect(Dictionary(uniqueKeysWithValues: zip(type.fieldNames, note.fields)) == want.fields)
            #expect(note.tags == want.tags)
        }
        var cards: [AnkiCard] = []
        try reader.forEachCard { cards.append($0) }
        #expect(cards.count == expected.cardCount)
        #expect(cards.filter { $0.type == .new }.map(\.due).sorted() == Array(1...Int64(expected.cardCount - 1)),
                "new cards are numbered in the order they were added")
        let reviewed = try #require(cards.first { $0.type == .review })
        #expect(reviewed.interval == 21 && reviewed.factor == 2350 && reviewed.reps == 5 && reviewed.lapses == 1)
        var reviews: [AnkiReview] = []
        try reader.forEachReview { reviews.append($0) }
        #expect(reviews.map(\.ease) == [3, 2])
        #expect(reviews.allSatisfy { $0.cardID == reviewed.id })

        #expect(reader.media.map(\.name) == ["dot.png", "voice.mp3"])
        let files = try reader.extractMedia(to: dir.file("media"))
        for (name, bytes) in expected.media {
            #expect(try Data(contentsOf: try #require(files[name])) == bytes)
        }
    }

    /// Anki's field and template ids are random 64-bit numbers: any of them, to the ends of Int64,
    /// is written and read back exactly in both layouts (one beyond ±9.2e18 was lost).
    @Test(arguments: [AnkiPackageWriter.Options.Format.anki21, .anki21b])
    func fieldAndTemplateIdsKeepEveryBit(_ format: AnkiPackageWriter.Options.Format) throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("ids.apkg")
        var type = AnkiNoteType.basic(id: 1_700_000_000_000)
        let ids: [Int64] = [-9_200_549_937_604_165_799, Int64.max - 3, Int64.min + 1]
        type.fields[0].id = ids[0]
        type.fields[1].id = ids[1]
        type.templates[0].id = ids[2]
        let writer = try AnkiPackageWriter(url: url, options: .init(format: format))
        try writer.addNoteType(type)
        try writer.addNote(AnkiNote(id: 5, noteTypeID: type.id, fields: ["a", "b"]), generatingCardsIn: 1)
        try writer.finish()
        let reader = try AnkiPackageReader(url: url)
        defer { reader.close() }
        let read = try #require(reader.noteType(id: type.id))
        #expect(read.fields.map(\.id) == [ids[0], ids[1]])
        #expect(read.templates.map(\.id) == [ids[2]])
    }

    @Test func theCollectionStoresAnkisDerivedColumns() throws {
        // sfld (the sort field, HTML stripped) and csum, as Anki computes them.
        let dir = try TemporaryDirectory()
        let url = dir.file("c.anki21")
        let writer = try AnkiCollectionWriter(url: url, creationTime: 0)
        try writer.add(SampleExport.vocab)
        try writer.add(AnkiNote(id: 1, noteTypeID: SampleExport.vocab.id, fields: ["test", "<b>42</b>", "x"]))
        try writer.finish()
        let database = try SQLiteProbe(url)
        #expect(try database.row("SELECT csum, sfld, typeof(sfld), tags, flds FROM notes") ==
            ["2840236005", "42", "integer", "", "test\u{1F}<b>42</b>\u{1F}x"])
    }

    /// A preset value JSON can't hold (a retention that is not finite) stops the export with an
    /// error naming the options: the legacy layout's `dconf` used to be written as `{}`, every
    /// preset lost without a word.
    @Test(arguments: [Double.infinity, -.infinity])
    func aPresetJSONCannotHoldIsAnErrorNotAnEmptyObject(_ retention: Double) throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("out.apkg")
        let writer = try AnkiPackageWriter(url: url, options: .init(format: .anki2))
        var preset = AnkiPreset(id: 2)
        preset.desiredRetention = retention
        try writer.addPreset(preset)
        try writer.addNoteType(.basic(id: 1))
        try writer.addNote(AnkiNote(id: 0, noteTypeID: 1, fields: ["a", "b"]), generatingCardsIn: 1)
        let error = try #require(throws: AnkiError.self) { try writer.finish() }
        #expect(error.kind == .invalidInput)
        #expect(error.description.contains("as JSON"))
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func aCancelledOrFailedExportLeavesNothingBehind() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("out.apkg")
        let scratch = dir.file("scratch")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let writer = try AnkiPackageWriter(url: url, options: .init(temporaryDirectory: scratch))
        try writer.addNoteType(.basic(id: 1))
        try writer.addNote(AnkiNote(id: 0, noteTypeID: 1, fields: ["a", "b"]), generatingCardsIn: 1)
        try writer.addMedia(name: "a.png", data: Data([1, 2, 3]))
        writer.cancel()
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["scratch"])
        let closed = try #require(throws: AnkiError.self) { try writer.finish() }
        #expect(closed.kind == .closed)
    }

    @Test func unsafeOrRepeatedMediaNamesAreRefused() throws {
        let dir = try TemporaryDirectory()
        let writer = try AnkiPackageWriter(url: dir.file("out.apkg"))
        defer { writer.cancel() }
        for name in ["../evil.png", "a/b.png", "", "..", "bad\u{0}name"] {
            let error = try #require(throws: AnkiError.self) { try writer.addMedia(name: name, data: Data()) }
            #expect(error.kind == .invalidInput)
        }
        try writer.addMedia(name: "ok.png", data: Data([1]))
        #expect(throws: AnkiError.self) { try writer.addMedia(name: "ok.png", data: Data([2])) }
        let missing = try #require(throws: AnkiError.self) {
            try writer.addMedia(name: "gone.png", contentsOf: dir.file("does-not-exist"))
        }
        #expect(missing.kind == .io)
    }

    @Test func notesGetTheCardsAnkiWouldGenerate() throws {
        let dir = try TemporaryDirectory()
        let writer = try AnkiPackageWriter(url: dir.file("out.apkg"))
        defer { writer.cancel() }
        try writer.addNoteType(SampleExport.reversed)
        try writer.addNoteType(SampleExport.cloze)
        let (_, both) = try writer.addNote(AnkiNote(id: 0, noteTypeID: SampleExport.reversed.id, fields: ["a", "b"]),
                                           generatingCardsIn: 1)
        #expect(both.map(\.ordinal) == [0, 1])
        let (_, clozes) = try writer.addNote(AnkiNote(id: 0, noteTypeID: SampleExport.cloze.id,
                                                      fields: ["{{c2::x}} {{c5::y}}", ""]), generatingCardsIn: 1)
        #expect(clozes.map(\.ordinal) == [1, 4])
        #expect(throws: AnkiError.self) {
            try writer.addNote(AnkiNote(id: 0, noteTypeID: SampleExport.cloze.id, fields: ["x", ""]), generatingCardsIn: 999)
        }
    }
}
