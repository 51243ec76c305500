import Anki
import DeckDocument
import Foundation
import Persistence
import Testing
@testable import Interchange

extension Testing.Tag {
    /// Tests that run a real peer (python3 with the anki package).
    @Tag static var interop: Self
}

@Suite struct AnkiExportTests {
    @Test func writesEveryKindAsItsNoteType() throws {
        let scratch = try Scratch()
        let deck = try scratch.richDeck()
        let out = scratch.file("out.apkg")
        let report = try AnkiExporter().export(deck, to: out)
        #expect(report.notes == 5)
        #expect(report.cards == 7)  // basic ×3, reversible ×2, cloze with two numbers ×2
        #expect(report.media == 2)
        #expect(report.reviews == 2)

        let reader = try AnkiPackageReader(url: out)
        defer { reader.close() }
        var notes: [AnkiNote] = []
        try reader.forEachNote { notes.append($0) }
        let byFront = Dictionary(uniqueKeysWithValues: notes.map { ($0.fields[0], $0) })
        let typeName = { (note: AnkiNote) in reader.noteType(id: note.noteTypeID)?.name }
        #expect(typeName(try #require(byFront["bonjour"])) == "Basic")
        #expect(typeName(try #require(byFront["le chat"])) == "Basic (and reversed card)")
        let cloze = try #require(byFront["{{c1::Paris}} is the capital of {{c2::France}}"])
        #expect(typeName(cloze) == "Cloze")
        #expect(cloze.fields == ["{{c1::Paris}} is the capital of {{c2::France}}", "geography"])
        #expect(Set(try #require(byFront["bonjour"]).tags) == ["french", "greeting"])
        #expect(Set(reader.media.map(\.name)) == ["red dot.png", "bonjour.mp3"])
        #expect(Set(reader.decks.map(\.name)).isSuperset(of: ["French::Greetings", "Geography", "Default"]))
        var scheduled: [AnkiCard] = []
        try reader.forEachCard { if $0.type == .review { scheduled.append($0) } }
        #expect(scheduled.count == 1)
        #expect(scheduled.first?.interval == 12)
        #expect(scheduled.first?.factor == 2650)
        #expect(scheduled.first?.lapses == 1)
    }

    @Test func exportThenImportKeepsTheCards() throws {
        let scratch = try Scratch()
        let source = try scratch.richDeck()
        let out = scratch.file("out.apkg")
        try AnkiExporter().export(source, to: out)
        let target = try scratch.deck("Back.sampledeck")
        let report = try AnkiImporter().importPackage(at: out, into: target)
        #expect(report.notesAdded == 5)
        var before: [String: CardSnapshot] = [:], after: [String: CardSnapshot] = [:]
        try source.forEachCardSnapshot { before[$0.front] = $0 }
        try target.forEachCardSnapshot { after[$0.front] = $0 }
        #expect(Set(before.keys) == Set(after.keys))
        for (front, original) in before {
            let copy = try #require(after[front])
            #expect(copy.kind == original.kind)
            #expect(copy.back == original.back)
            #expect(copy.tags == original.tags)
            #expect(copy.media == original.media)  // same content → same content-addressed names
            #expect(copy.repetitions == original.repetitions)
            #expect(copy.lapses == original.lapses)
            #expect(copy.interval == original.interval)
            #expect(copy.ease == original.ease)
            #expect(copy.reviews.map(\.ease) == original.reviews.map(\.ease))
            #expect(copy.reviews.map(\.date) == original.reviews.map(\.date))
            // Due dates go through Anki's day numbers: the same day.
            if let due = original.due {
                let copied = try #require(copy.due)
                #expect(abs(copied.timeIntervalSince(due)) < 86_400)
            } else {
                #expect(copy.due == nil)
            }
        }
        #expect(after["bonjour"]?.deckPath == "French::Greetings")
        // Exporting the imported deck again keeps the GUIDs: re-importing adds nothing.
        let again = scratch.file("again.apkg")
        try AnkiExporter().export(target, to: again)
        let reimport = try AnkiImporter().importPackage(at: again, into: target)
        #expect(reimport.notesAdded == 0)
        #expect(reimport.updates.unchanged == 5)
    }

    @Test func failedExportLeavesNothing() throws {
        let scratch = try Scratch()
        let deck = try scratch.richDeck()
        try FileManager.default.removeItem(at: deck.mediaURL)  // media files gone: the export fails
        let out = scratch.file("out.apkg")
        #expect(throws: (any Error).self) { try AnkiExporter().export(deck, to: out) }
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func tagNames() {
        #expect(AnkiExporter.ankiTags(["two words", "", "x"]) == ["two_words", "x"])
    }
}

/// Our packages imported by current Anki (the `anki` package on PyPI) through
/// Fixtures/anki/import_with_anki.py; fails, not skips, when python3 or anki is missing.
@Suite(.tags(.interop)) struct AnkiExportInteropTests {
    struct Imported: Decodable {
        struct Note: Decodable { let guid, notetype: String; let fields: [String: String]; let tags: [String] }
        struct Card: Decodable { let guid: String; let ord: Int; let deck: String; let type, queue, ivl, factor, reps, lapses: Int }
        struct Review: Decodable { let card_guid: String; let ease, ivl: Int }
        let notes: [Note]
        let cards: [Card]
        let revlog: [Review]
        let media: [String: String]
    }

    @Test func currentAnkiImportsEveryNoteFieldTagAndMedia() throws {
        let scratch = try Scratch()
        let deck = try scratch.richDeck()
        let out = scratch.file("deck.apkg")
        try AnkiExporter().export(deck, to: out)
        let script = Fixtures.anki("import_with_anki.py").path
        let result = try runProgram("/usr/bin/env", ["python3", script, out.path])
        #expect(result.status == 0, "\(result.stderr)")
        let imported = try JSONDecoder().decode(Imported.self, from: Data(result.stdout.utf8))
        #expect(imported.notes.count == 5)
        let notes = Dictionary(uniqueKeysWithValues: imported.notes.map { ($0.fields.values.sorted().joined(separator: "|"), $0) })
        var expected: [String: (type: String, tags: Set<String>)] = [:]
        try deck.forEachCardSnapshot { card in
            let fields = card.kind == .cloze ? [card.text ?? card.front, card.back] : [card.front, card.back]
            let type = switch card.kind { case .basic: "Basic"; case .reversible: "Basic (and reversed card)"; case .cloze: "Cloze" }
            expected[fields.sorted().joined(separator: "|")] = (type, Set(card.tags))
        }
        #expect(Set(notes.keys) == Set(expected.keys))
        for (key, note) in notes {
            #expect(note.notetype.hasPrefix(expected[key]?.type ?? "?"))
            #expect(Set(note.tags) == expected[key]?.tags)
        }
        #expect(imported.cards.count == 7)
        let review = try #require(imported.cards.first { $0.type == 2 })
        #expect(review.ivl == 12)
        #expect(review.factor == 2650)
        #expect(review.deck == "French::Greetings")
        #expect(imported.revlog.map(\.ease) == [3, 1])
        // Media arrive byte for byte (Anki reports SHA-1s).
        var sha1s: [String: String] = [:]
        for media in try deck.allMedia() {
            let data = try Data(contentsOf: deck.fileURL(of: media))
            sha1s[media.originalName] = sha1Hex(data)
        }
        #expect(imported.media == sha1s)
    }
}

/// SHA-1 through the system's sha1sum (the peer check must not trust our own hashing).
func sha1Hex(_ data: Data) -> String {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha1-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: file) }
    guard (try? data.write(to: file)) != nil, let result = try? runProgram("/usr/bin/sha1sum", [file.path]) else { return "" }
    return String(result.stdout.prefix(40))
}
