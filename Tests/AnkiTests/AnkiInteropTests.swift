import Foundation
import Digest
import Testing
@testable import Anki

extension Tag {
    /// Tests that run a real peer (python3 with the anki package).
    @Tag static var interop: Self
}

/// Our packages imported by current Anki (the `anki` package on PyPI, Anki's own Rust backend),
/// through Fixtures/anki/import_with_anki.py. These fail, rather than skip, when python3 or the
/// anki package is missing: `make test` installs them.
@Suite(.tags(.interop)) struct AnkiInteropTests {
    struct Imported: Decodable {
        struct Log: Decodable { let new, updated, duplicate, conflicting: Int }
        struct NoteType: Decodable { let name: String; let kind: Int; let fields: [String]; let templates: [[String]] }
        struct Note: Decodable { let guid, notetype: String; let fields: [String: String]; let tags: [String] }
        struct Card: Decodable { let guid: String; let ord: Int; let deck: String; let type, queue, ivl, factor, reps, lapses, due: Int }
        struct Review: Decodable { let card_guid: String; let ease, ivl, last_ivl, factor, time, type: Int }
        let anki_version: String
        let log: Log
        let notetypes: [NoteType]
        let decks: [String]
        let notes: [Note]
        let cards: [Card]
        let revlog: [Review]
        let media: [String: String]
    }

    static func importWithAnki(_ package: URL) throws -> Imported {
        let script = Fixtures.url("import_with_anki.py").path
        let result = try run("/usr/bin/env", ["python3", script, package.path])
        if result.status != 0 {
            Issue.record("python3 \(script) failed (\(result.status)): \(result.stderr)")
        }
        return try JSONDecoder().decode(Imported.self, from: Data(result.stdout.utf8))
    }

    @Test(arguments: [
        AnkiPackageWriter.Options(format: .anki21),
        AnkiPackageWriter.Options(format: .anki2, compressionLevel: 0, buildsIndexes: true),
        AnkiPackageWriter.Options(format: .anki21b),
    ])
    func currentAnkiImportsEverythingWeWrite(_ options: AnkiPackageWriter.Options) throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("export.apkg")
        let expected = try SampleExport.write(to: url, options: options, mediaDirectory: dir.url)
        let imported = try Self.importWithAnki(url)

        #expect(imported.log.new == expected.notes.count)
        #expect(imported.log.conflicting == 0 && imported.log.duplicate == 0)
        #expect(imported.notes.count == expected.notes.count)
        // A fresh collection already has Anki's stock "Basic", "Cloze", …; Anki renames an imported
        // type of the same name but another id by appending "+".
        func importedName(_ name: String) -> String {
            imported.notetypes.contains { $0.name == name + "+" } ? name + "+" : name
        }
        for note in imported.notes {
            let want = try #require(expected.notes[note.guid], "Anki holds a note we did not write: \(note.guid)")
            #expect(note.notetype == importedName(want.type))
            #expect(note.fields == want.fields)
            #expect(note.tags.sorted() == want.tags.sorted())
        }
        for type in [SampleExport.basic, SampleExport.reversed, SampleExport.cloze, SampleExport.vocab] {
            let found = imported.notetypes.filter { $0.name == importedName(type.name) }
            #expect(found.count == 1, "note type \(type.name)")
            #expect(found.first?.fields == type.fieldNames)
            #expect(found.first?.kind == type.kind.rawValue)
            #expect(found.first?.templates == type.templates.map { [$0.name, $0.questionFormat, $0.answerFormat] })
        }
        #expect(Set(imported.decks).isSuperset(of: ["Swift Export", "Swift Export::Verbs", "Languages::Japanese::Kana"]))
        #expect(imported.cards.count == expected.cardCount)
        let kanji = imported.cards.filter { $0.deck == "Languages::Japanese::Kana" }
        #expect(kanji.count == 1)
        let reviewed = try #require(imported.cards.first { $0.guid == expected.reviewedGUID })
        #expect(reviewed.type == 2 && reviewed.queue == 2)
        #expect(reviewed.ivl == 21 && reviewed.factor == 2350 && reviewed.reps == 5 && reviewed.lapses == 1)
        #expect(abs(Int64(reviewed.due) - expected.reviewDue) <= 1, "the due day survives (within a day of rollover)")
        #expect(imported.revlog.map(\.ease) == [3, 2])
        #expect(imported.revlog.allSatisfy { $0.card_guid == expected.reviewedGUID })
        #expect(imported.revlog.map(\.time) == [3100, 5400])
        #expect(imported.media == expected.media.mapValues { SHA1.hash($0).hexString })
    }

    @Test func genankiAndAnkiFixturesImportIntoAnkiAsWeReadThem() throws {
        // A cross-check of the reader: what Anki imports from each fixture is what we read.
        for file in ["genanki-legacy.apkg", "anki-current.apkg"] {
            let reader = try AnkiPackageReader(url: Fixtures.url(file))
            defer { reader.close() }
            var ours: [String: [String]] = [:]
            try reader.forEachNote { ours[$0.guid] = $0.fields }
            let imported = try Self.importWithAnki(Fixtures.url(file))
            #expect(imported.notes.count == ours.count, "\(file)")
            for note in imported.notes {
                let fields = try #require(ours[note.guid])
                #expect(Set(note.fields.values) == Set(fields), "\(file) \(note.guid)")
            }
        }
    }
}
