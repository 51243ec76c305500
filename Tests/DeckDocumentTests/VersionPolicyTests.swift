import Foundation
import Persistence
import SQLite
import Testing
@testable import DeckDocument

/// The committed fixtures under Fixtures/decks.
let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures/decks")

@Suite struct VersionPolicyTests {
    func copyFixture(_ name: String, to playground: Playground) throws -> URL {
        let target = playground.file((name as NSString).lastPathComponent)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: target)
        return target
    }

    @Test func version0FixtureIsRefusedByOpenAndMigrated() throws {
        let playground = try Playground()
        let url = try copyFixture("v0/Vocabulary.sampledeck", to: playground)
        do {
            _ = try DeckDocument.open(at: url)
            Issue.record("opened an old deck")
        } catch let error as DeckError {
            #expect(error.description.contains("deck migrate"))
            #expect(error.description.contains("0"))
        }
        let original = try snapshot(of: url)
        let result = try DeckDocument.migrate(at: url)
        #expect(result.from == 0)
        #expect(result.to == DeckManifest.currentFormatVersion)
        let backup = try #require(result.backup)
        #expect(backup.lastPathComponent == "Vocabulary.sampledeck.backup-v0")
        #expect(try snapshot(of: backup) == original)
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("Cards.sqlite").path))

        let deck = try DeckDocument.open(at: url)
        defer { try? deck.close() }
        #expect(deck.manifest.title == "Vocabulary")
        #expect(deck.manifest.created == Date(timeIntervalSince1970: 1_767_225_600))
        let cards = try deck.cards(where: nil, sortedBy: [], limit: nil, offset: nil)
        #expect(cards.map(\.id) == [1, 2, 5, 7])
        #expect(cards.map(\.kind) == ["basic", "reversible", "cloze", "basic"])
        #expect(try deck.cardCount() == 5)  // the reversed note has a second card, 8
        #expect(Set(cards[2].tags) == ["geo", "nouns"])
        #expect(cards[3].front == "l'élève")
        #expect(try deck.search("eleve", limit: nil).map(\.id) == [7])
        #expect(try deck.search("nouns", limit: nil).map(\.id) == [1, 5])
        #expect(deck.check().isEmpty, "\(deck.check())")
        // New ids continue after the migrated ones.
        let added = try deck.addCard(kind: .basic, front: "new", back: "", tags: ["nouns"])
        try deck.save()
        #expect(added.cards.map(\.id) == [9])
    }

    /// The format version 1 deck made by `Fixtures/decks/make-v1.sh` with the tool of that
    /// version (every kind, tags, a CSV, an Anki package and a JSON file with reviews and media):
    /// refused by open with a pointer to `deck migrate`, then opened with everything the tool put in.
    @Test func version1FixtureMigratesWithEverythingTheToolPutIn() throws {
        let playground = try Playground()
        let url = try copyFixture("v1/Languages.sampledeck", to: playground)
        for mode in [DeckOpenMode.readOnly, .readWrite] {
            #expect { _ = try DeckDocument.open(at: url, mode: mode) } throws: { error in
                (error as? DeckError)?.description.contains("deck migrate") == true
            }
        }
        _ = try DeckDocument.migrate(at: url)
        let deck = try DeckDocument.open(at: url, mode: .readOnly)
        defer { try? deck.close() }
        #expect(deck.manifest.formatVersion == 2)
        #expect(deck.manifest.title == "Languages (format 1)")
        let cards = try deck.cardSnapshots()
        #expect(cards.count == 53)
        #expect(cards.map(\.id) == Array(1...53))
        #expect(cards.filter { $0.kind == .cloze }.count == 2)
        #expect(cards.filter { $0.kind == .reversible }.count == 2)
        #expect(cards[0].front == "chat")
        #expect(Set(cards[0].tags) == ["animals", "edited", "nouns"])
        #expect(Set(cards.compactMap(\.deckPath)).count == 2)  // two Anki decks (nil: Default)
        let reviewed = try #require(cards.last)
        #expect(reviewed.front == "le chien <img src=\"dot.gif\">")
        // Review cards are due on a day (days start at 04:00 UTC in a migrated deck): v1's
        // 2026-03-01T00:00Z falls in the day that starts on 2026-02-28 at 04:00.
        #expect(reviewed.due == ISO8601DateFormatter().date(from: "2026-02-28T04:00:00Z"))
        #expect(reviewed.interval == 14 && reviewed.repetitions == 3 && reviewed.lapses == 1)
        #expect(reviewed.reviews.count == 3)
        #expect(reviewed.media.count == 1)
        #expect(cards.reduce(0) { $0 + $1.reviews.count } == 5)
        #expect(try deck.allMedia().count == 3)
        #expect(try deck.search("eleve", limit: nil).map(\.id) == [4])
        #expect(deck.check().isEmpty, "\(deck.check())")
    }

    @Test func migratingTwiceKeepsBothBackupsAndCurrentIsANoOp() throws {
        let playground = try Playground()
        let url = try copyFixture("v0/Vocabulary.sampledeck", to: playground)
        try FileManager.default.copyItem(at: url, to: URL(fileURLWithPath: url.path + ".backup-v0"))
        let result = try DeckDocument.migrate(at: url)
        #expect(result.backup?.lastPathComponent == "Vocabulary.sampledeck.backup-v0-2")
        let again = try DeckDocument.migrate(at: url)
        #expect(again.from == again.to)
        #expect(again.backup == nil)
    }

    @Test func newerVersionIsRefusedNamingBothVersions() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        var manifest = try DeckDocument.readManifest(of: url)
        manifest.formatVersion = 99
        try manifest.encoded().write(to: url.appendingPathComponent("manifest.json"))
        for attempt in [{ _ = try DeckDocument.open(at: url) }, { _ = try DeckDocument.open(at: url, mode: .readOnly) },
                        { _ = try DeckDocument.migrate(at: url) }] {
            do {
                try attempt()
                Issue.record("a newer deck was accepted")
            } catch let error as DeckError {
                #expect(error.kind == .newerVersion)
                #expect(error.reason.contains("99"))
                #expect(error.reason.contains("\(DeckManifest.currentFormatVersion)"))
            }
        }
    }

    /// Damages a fresh deck, then expects `open` to fail with a kind and a phrase.
    @Test(arguments: [
        ("missing manifest", DeckError.Kind.notADeck, "manifest.json is missing"),
        ("foreign content type", .notADeck, "contentType is \"com.example.other\""),
        ("no content type", .notADeck, "no contentType"),
        ("missing store", .notADeck, "Deck.sqlite is missing"),
        ("store not sqlite", .corrupt, "store can't be read"),
        ("foreign sqlite", .notADeck, "table Note is missing"),
        ("manifest not json", .corrupt, "not valid JSON"),
        ("manifest lacks field", .corrupt, "lacks the field \"documentID\""),
        ("store escapes package", .corrupt, "not a file name inside the package"),
        ("not a directory", .notADeck, "a package is a directory"),
        ("nothing there", .missing, "no such deck"),
    ])
    func damagedPackagesAreRefused(damage: String, kind: DeckError.Kind, phrase: String) throws {
        let playground = try Playground()
        var url = try playground.sampleDeck()
        let manifestURL = url.appendingPathComponent("manifest.json")
        let store = url.appendingPathComponent("Deck.sqlite")
        func editManifest(_ edit: (inout [String: Any]) -> Void) throws {
            var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
            edit(&object)
            try JSONSerialization.data(withJSONObject: object).write(to: manifestURL)
        }
        switch damage {
        case "missing manifest": try FileManager.default.removeItem(at: manifestURL)
        case "foreign content type": try editManifest { $0["contentType"] = "com.example.other" }
        case "no content type": try editManifest { $0["contentType"] = nil }
        case "missing store": try FileManager.default.removeItem(at: store)
        case "store not sqlite": try Data(repeating: 0x41, count: 4096).write(to: store)
        case "foreign sqlite":
            try FileManager.default.removeItem(at: store)
            let db = try Database(path: store.path)
            try db.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
            db.close()
        case "manifest not json": try Data("{ not json".utf8).write(to: manifestURL)
        case "manifest lacks field": try editManifest { $0["documentID"] = nil }
        case "store escapes package": try editManifest { $0["store"] = "../elsewhere.sqlite" }
        case "not a directory":
            url = playground.file("plain.sampledeck")
            try Data("hello".utf8).write(to: url)
        default: url = playground.file("absent.sampledeck")
        }
        let before = FileManager.default.fileExists(atPath: url.path) ? try? snapshot(of: url) : nil
        for mode in [DeckOpenMode.readWrite, .readOnly] {
            do {
                let deck = try DeckDocument.open(at: url, mode: mode)
                try deck.close()
                Issue.record("\(damage): opened")
            } catch let error as DeckError {
                #expect(error.kind == kind, "\(damage): \(error)")
                #expect(error.description.contains(phrase), "\(damage): \(error)")
            }
        }
        // Refusing must not modify anything (the lock file aside).
        if let before, var after = try? snapshot(of: url) {
            after["/.lock"] = before["/.lock"]
            #expect(after == before, "\(damage)")
        }
    }
}
