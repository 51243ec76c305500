import Foundation
import Digest
import Testing
@testable import Anki

/// Reads every committed fixture (made by Fixtures/anki/make_fixtures.py with genanki and the
/// anki package) and checks what a user would see: notes, fields, tags, decks, media, scheduling.
@Suite struct PackageReaderTests {
    struct Expectation: Sendable, CustomStringConvertible {
        let file: String
        let version: AnkiPackageVersion
        let schema: Int
        let rootDeck: String
        let typeSuffix: String
        let reviews: Int
        var description: String { file }
    }

    static let fixtures = [
        Expectation(file: "genanki-legacy.apkg", version: .legacy1, schema: 11, rootDeck: "Genanki Test",
                    typeSuffix: " (genanki)", reviews: 0),
        Expectation(file: "anki-legacy.apkg", version: .legacy2, schema: 11, rootDeck: "Anki Test", typeSuffix: "", reviews: 2),
        Expectation(file: "anki-current.apkg", version: .latest, schema: 18, rootDeck: "Anki Test", typeSuffix: "", reviews: 2),
        Expectation(file: "anki-collection.colpkg", version: .latest, schema: 18, rootDeck: "Anki Test", typeSuffix: "", reviews: 2),
    ]

    @Test(arguments: fixtures)
    func readsNoteTypesAndDecks(_ fixture: Expectation) throws {
        let reader = try AnkiPackageReader(url: Fixtures.url(fixture.file))
        defer { reader.close() }
        #expect(reader.version == fixture.version)
        #expect(reader.schemaVersion == fixture.schema)

        let byName = Dictionary(reader.noteTypes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let basic = try #require(byName["Basic" + fixture.typeSuffix])
        #expect(basic.kind == .standard && basic.fieldNames == ["Front", "Back"] && basic.templates.count == 1)
        #expect(basic.templates.first?.questionFormat == "{{Front}}")
        let reversed = try #require(byName["Basic (and reversed card)" + fixture.typeSuffix])
        #expect(reversed.templates.map(\.questionFormat) == ["{{Front}}", "{{Back}}"])
        #expect(reversed.templates.map(\.ordinal) == [0, 1])
        let cloze = try #require(byName["Cloze" + fixture.typeSuffix])
        #expect(cloze.kind == .cloze && cloze.fieldNames == ["Text", "Back Extra"])
        #expect(cloze.templates.first?.questionFormat == "{{cloze:Text}}")
        #expect(cloze.css.contains(".cloze"))
        let vocab = try #require(byName["Vocab (3 fields)"])
        #expect(vocab.fieldNames == ["Word", "Meaning", "Example"])
        #expect(vocab.templates.first?.answerFormat == "{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{Example}}")

        let deckNames = Set(reader.decks.map(\.name))
        #expect(deckNames.isSuperset(of: ["Default", fixture.rootDeck, fixture.rootDeck + "::Sub"]))
        let root = try #require(reader.decks.first { $0.name == fixture.rootDeck })
        #expect(root.description.hasPrefix("Made by"))
    }

    @Test(arguments: fixtures)
    func readsNotesWithFieldsAndTags(_ fixture: Expectation) throws {
        let reader = try AnkiPackageReader(url: Fixtures.url(fixture.file))
        defer { reader.close() }
        var notes: [String: AnkiNote] = [:]
        try reader.forEachNote { notes[$0.fields[0]] = $0 }
        #expect(try reader.noteCount() == 5)
        #expect(notes.count == 5)
        let bonjour = try #require(notes["bonjour"])
        #expect(bonjour.fields == ["bonjour", "hello <img src=\"red dot.png\">"])
        #expect(Set(bonjour.tags) == ["french", "greeting"])
        #expect(!bonjour.guid.isEmpty)
        #expect(reader.noteType(id: bonjour.noteTypeID)?.name == "Basic" + fixture.typeSuffix)
        #expect(notes["merci"]?.fields[1] == "thank you [sound:bonjour.mp3]")
        #expect(notes["le chat"].map { Set($0.tags) } == ["french", "animals"])
        let cloze = try #require(notes["{{c1::Paris}} is the capital of {{c2::France}}"])
        #expect(cloze.fields[1] == "geography" && cloze.tags == ["geo"])
        #expect(notes["maison"]?.fields == ["maison", "house", "La maison est grande."])
        #expect(notes["maison"].map { Set($0.tags) } == ["french", "nouns"])
    }

    @Test(arguments: fixtures)
    func readsCardsAndScheduling(_ fixture: Expectation) throws {
        let reader = try AnkiPackageReader(url: Fixtures.url(fixture.file))
        defer { reader.close() }
        var notesByID: [Int64: AnkiNote] = [:]
        try reader.forEachNote { notesByID[$0.id] = $0 }
        var cards: [AnkiCard] = []
        try reader.forEachCard { cards.append($0) }
        #expect(cards.count == 7, "1 + 1 basic, 2 reversed, 2 cloze, 1 vocab")
        #expect(try reader.cardCount() == 7)
        let deckNames = Dictionary(reader.decks.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        for card in cards {
            let note = try #require(notesByID[card.noteID])
            let expectedDeck = ["le chat", "maison"].contains(note.fields[0]) ? fixture.rootDeck + "::Sub" : fixture.rootDeck
            #expect(deckNames[card.deckID] == expectedDeck)
        }
        let clozeCards = cards.filter { notesByID[$0.noteID]?.fields[0].hasPrefix("{{c1::") == true }
        #expect(clozeCards.map(\.ordinal).sorted() == [0, 1])

        var reviews: [AnkiReview] = []
        try reader.forEachReview { reviews.append($0) }
        #expect(reviews.count == fixture.reviews)
        if fixture.reviews > 0 {
            // The fixture script made "bonjour" a review card with this history.
            let card = try #require(cards.first { notesByID[$0.noteID]?.fields[0] == "bonjour" })
            #expect(card.type == .review && card.queue == .review)
            #expect(card.interval == 12 && card.factor == 2650 && card.reps == 2 && card.lapses == 1)
            #expect(reviews.allSatisfy { $0.cardID == card.id && $0.kind == .review && $0.ease == 3 })
            #expect(reviews.map(\.interval) == [3, 12])
            #expect(reviews.map(\.lastInterval) == [0, 3])
            #expect(reviews.map(\.timeTaken) == [4000, 4001])
            #expect(reviews.first?.id == 1_700_000_000_000)
            let today = (Int64(Date().timeIntervalSince1970) - reader.creationTime) / 86_400
            #expect(card.due > 0 && card.due <= today + 5, "due is a day number counted from the collection's creation")
        } else {
            #expect(cards.allSatisfy { $0.type == .new && $0.queue == .new })
        }
    }

    @Test(arguments: fixtures)
    func extractsMediaBytes(_ fixture: Expectation) throws {
        let reader = try AnkiPackageReader(url: Fixtures.url(fixture.file))
        defer { reader.close() }
        #expect(Set(reader.media.map(\.name)) == ["red dot.png", "bonjour.mp3"])
        #expect(Set(reader.media.map(\.entryName)) == ["0", "1"])
        let dir = try TemporaryDirectory()
        let files = try reader.extractMedia(to: dir.url)
        #expect(files.count == 2)
        let sound = try Data(contentsOf: try #require(files["bonjour.mp3"]))
        #expect(sound == Fixtures.bonjour)
        let png = try Data(contentsOf: try #require(files["red dot.png"]))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        for item in reader.media where fixture.version == .latest {
            // Current packages record each file's size and SHA-1; check them against the bytes.
            let bytes = item.name == "bonjour.mp3" ? sound : png
            #expect(item.size == Int64(bytes.count))
            #expect(item.sha1 == SHA1.hash(bytes))
        }
        // One file at a time, and into memory.
        let single = try #require(reader.media.first { $0.name == "bonjour.mp3" })
        #expect(try reader.mediaData(single) == Fixtures.bonjour)
        // Extraction never overwrites.
        let again = try #require(throws: AnkiError.self) { try reader.extractMedia(to: dir.url) }
        #expect(again.kind == .io)
    }

    @Test func closeRemovesTemporaryFilesAndLaterCallsFail() throws {
        let base = try TemporaryDirectory()
        let reader = try AnkiPackageReader(url: Fixtures.url("anki-current.apkg"), temporaryDirectory: base.url)
        #expect(try FileManager.default.contentsOfDirectory(atPath: base.url.path).count == 1)
        try reader.forEachNote { _ in }
        // Anki exports its collection in WAL mode; reading our private copy creates no -wal/-shm files.
        let work = try #require(try FileManager.default.contentsOfDirectory(atPath: base.url.path).first)
        let files = try FileManager.default.contentsOfDirectory(atPath: base.file(work).path)
        #expect(!files.contains { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") }, "\(files)")
        reader.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: base.url.path).isEmpty)
        let error = try #require(throws: AnkiError.self) { try reader.forEachNote { _ in } }
        #expect(error.kind == .closed)
        #expect(throws: AnkiError.self) { try reader.extractMedia(to: base.file("m")) }
    }
}
