import Foundation
import Persistence
import SQLite
import Testing
@testable import DeckDocument

/// Format version 1 (and 0) decks migrate to version 2 through ``DeckMigrationPlan``, keeping
/// card ids, tags, media, dates, scheduling and reviews (docs/FORMAT.md, "Migration").
@Suite struct MigrationV2Tests {
    typealias V2 = DeckSchemaV2

    func copyFixture(_ name: String, to playground: Playground) throws -> URL {
        let target = playground.file((name as NSString).lastPathComponent)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: target)
        return target
    }

    func storeURL(_ deck: URL) throws -> URL {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: deck.appendingPathComponent("manifest.json"))) as? [String: Any]
        return deck.appendingPathComponent(try #require(object?["store"] as? String))
    }

    func manifestVersion(_ deck: URL) throws -> Int {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: deck.appendingPathComponent("manifest.json"))) as? [String: Any]
        return try #require(object?["formatVersion"] as? Int)
    }

    /// Table → its columns, and the index names, of a store.
    func layout(_ path: String) throws -> [String: [String]] {
        let db = try Database(path: path, mode: .readOnly)
        defer { db.close() }
        var result: [String: [String]] = [:]
        for row in try db.rows("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'") {
            guard case .text(let type) = row[0], case .text(let name) = row[1], !DeckStoreV2.searchShadowTables.contains(name) else { continue }
            result[name] = type == "table" ? try db.columns(of: name).sorted() : [type]
        }
        return result
    }

    @Test func version1FixtureMigratesToVersion2WithEverything() throws {
        let playground = try Playground()
        let url = try copyFixture("v1/Languages.sampledeck", to: playground)
        let original = try snapshot(of: url)
        let before = try JSONSerialization.jsonObject(with: Data(contentsOf: url.appendingPathComponent("manifest.json"))) as? [String: Any]

        let result = try DeckDocument.migrate(at: url, to: 2)
        #expect(result.from == 1 && result.to == 2)
        let backup = try #require(result.backup)
        #expect(backup.lastPathComponent == "Languages.sampledeck.backup-v1")
        #expect(try snapshot(of: backup) == original)
        #expect(try manifestVersion(url) == 2)
        let after = try JSONSerialization.jsonObject(with: Data(contentsOf: url.appendingPathComponent("manifest.json"))) as? [String: Any]
        #expect(after?["documentID"] as? String == before?["documentID"] as? String)
        #expect(after?["title"] as? String == "Languages (format 1)")
        let store = try storeURL(url)
        #expect(store.lastPathComponent == "Deck-v2.sqlite")
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("Deck.sqlite").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).allSatisfy { !$0.hasSuffix(".migrating") })

        // The migrated store has the tables, columns and indexes of a new version 2 store.
        let fresh = playground.file("fresh.sqlite")
        try DeckStoreV2.createStore(at: fresh, title: "Fresh")
        #expect(try layout(store.path) == layout(fresh.path))
        let db = try Database(path: store.path, mode: .readOnly)
        #expect(try db.userVersion() == 2)
        #expect(try db.integrityCheck() == ["ok"])
        #expect(try db.foreignKeyViolations() == 0)
        #expect(try db.scalar("SELECT count(*) FROM NoteSearch", as: Int.self) == 53)
        #expect(try db.scalar("SELECT count(*) FROM NoteSearch WHERE NoteSearch MATCH 'eleve'", as: Int.self) == 1)
        db.close()

        let container = try ModelContainer(for: DeckStoreV2.schema(), configurations: [ModelConfiguration("Deck", url: store)])
        defer { try? container.close() }
        let context = ModelContext(container)
        let notes = try context.fetch(FetchDescriptor<V2.Note>())
        #expect(notes.count == 53)
        #expect(Set(notes.map(\.guid)).count == 53)
        let types = try context.fetch(FetchDescriptor<V2.NoteType>())
        #expect(Set(types.map(\.name)) == ["Basic", "Basic (and reversed card)", "Cloze"])
        let reversedType = try #require(types.first { $0.stockKind == .basicAndReversed })
        #expect(reversedType.templates.map(\.ordinal).sorted() == [0, 1])
        #expect(reversedType.fields.sorted { $0.ordinal < $1.ordinal }.map(\.name) == ["Front", "Back"])

        let cards = try context.fetch(FetchDescriptor<V2.Card>(sortBy: [SortDescriptor(\.ordinal)])).sorted { $0.id < $1.id }
        // 49 basic, 2 reversible (two cards each), a cloze with c1 and one with c1 and c2.
        #expect(cards.count == 56)
        #expect(cards.prefix(53).map(\.id) == Array(1...53))
        #expect(cards.prefix(53).allSatisfy { $0.ordinal == 0 })
        #expect(cards.suffix(3).map(\.id) == [54, 55, 56])
        #expect(cards.allSatisfy { $0.note != nil && $0.deck != nil })

        let chat = try #require(cards.first { $0.id == 1 }?.note)
        #expect(chat.fields == ["chat", "cat"])
        #expect(chat.noteType?.name == "Basic")
        #expect(Set(chat.tags.map(\.name)) == ["animals", "edited", "nouns"])
        #expect(chat.cards.map(\.id) == [1])
        let cafe = try #require(cards.first { $0.id == 2 }?.note)
        #expect(cafe.noteType?.name == "Basic (and reversed card)")
        #expect(cafe.cards.map(\.ordinal).sorted() == [0, 1])
        let paris = try #require(cards.first { $0.id == 51 }?.note)
        #expect(paris.noteType?.kind == .cloze)
        #expect(paris.fields[0] == "{{c1::Paris}} is the capital of {{c2::France}}")
        #expect(paris.cards.map(\.ordinal).sorted() == [0, 1])
        #expect(try context.fetchCount(FetchDescriptor<V2.Tag>()) == 19)

        // Scheduling, dates and reviews.
        let dog = try #require(cards.first { $0.id == 53 })
        let dayZero = DeckMigrationPlan.migratedDayZero
        let due = Int64(ISO8601DateFormatter().date(from: "2026-03-01T00:00:00Z")!.timeIntervalSince1970)
        #expect(dog.type == .review && dog.queue == .review)
        #expect(dog.due == (due - dayZero) / 86_400)
        #expect(dog.interval == 14 && dog.repetitions == 3 && dog.lapses == 1 && dog.easeFactor == 2350)
        #expect(dog.note?.created == ISO8601DateFormatter().date(from: "2026-01-02T03:04:05Z")!.addingTimeInterval(0.678))
        let reviews = dog.reviews.sorted { $0.time < $1.time }
        #expect(reviews.map(\.duration) == [4500, 12250, 2000])
        #expect(reviews.map(\.rating) == [3, 1, 4])
        #expect(reviews.map(\.interval) == [1, 0, 14])
        #expect(reviews.map(\.lastInterval) == [0, 1, 0])
        #expect(reviews.first?.time == 1_767_323_400_000)
        #expect(try context.fetchCount(FetchDescriptor<V2.Review>()) == 5)
        let etre = try #require(cards.first { $0.id == 5 })
        #expect(etre.type == .new && etre.queue == .new && etre.due == 5 && etre.easeFactor == 0)
        #expect(try context.fetch(FetchDescriptor<V2.DeckInfo>()).map(\.dayZero) == [dayZero])

        // Media: three files, each under its original name; the dog note uses dot.gif.
        #expect(try context.fetchCount(FetchDescriptor<V2.MediaFile>()) == 3)
        #expect(dog.note?.media.map(\.name) == ["dot.gif"])
        #expect(dog.note?.media.first?.file?.fileName.hasSuffix(".gif") == true)

        // Decks: every Anki deck path with its ancestors, all with the Default preset.
        let decks = try context.fetch(FetchDescriptor<V2.Deck>())
        let names = Set(decks.map(\.name))
        #expect(names.contains("Default"))
        for name in names where name.contains("::") {
            #expect(names.contains(name.components(separatedBy: "::").dropLast().joined(separator: "::")), "\(name)")
        }
        #expect(decks.allSatisfy { $0.preset?.name == "Default" })
        let ankiNotes = notes.filter { note in note.cards.contains { $0.deck?.name != "Default" } }
        #expect(ankiNotes.count == 5)
    }

    @Test func version0FixtureMigratesAllTheWayToVersion2() throws {
        let playground = try Playground()
        let url = try copyFixture("v0/Vocabulary.sampledeck", to: playground)
        let result = try DeckDocument.migrate(at: url, to: 2)
        #expect(result.from == 0 && result.to == 2)
        #expect(try manifestVersion(url) == 2)
        let container = try ModelContainer(for: DeckStoreV2.schema(), configurations: [ModelConfiguration("Deck", url: try storeURL(url))])
        defer { try? container.close() }
        let context = ModelContext(container)
        let cards = try context.fetch(FetchDescriptor<V2.Card>()).sorted { $0.id < $1.id }
        #expect(cards.map(\.id) == [1, 2, 5, 7, 8])
        #expect(cards.last?.note?.fields == ["Café", "coffee"])
        #expect(cards.last?.ordinal == 1)
        let cloze = try #require(cards.first { $0.id == 5 }?.note)
        #expect(cloze.noteType?.name == "Cloze")
        #expect(Set(cloze.tags.map(\.name)) == ["geo", "nouns"])
        #expect(cards.first { $0.id == 7 }?.note?.sortText == "l'élève")
        #expect(cards.allSatisfy { $0.queue == .new })
    }

    @Test func aMigrationThatFailsLeavesTheDeckAsItWas() throws {
        let playground = try Playground()
        let url = try copyFixture("v1/Languages.sampledeck", to: playground)
        let db = try Database(path: url.appendingPathComponent("Deck.sqlite").path, mode: .readWrite)
        try db.execute("UPDATE Review SET ease = 9 WHERE pk = (SELECT max(pk) FROM Review)")
        db.close()
        let original = try snapshot(of: url)
        do {
            _ = try DeckDocument.migrate(at: url, to: 2)
            Issue.record("migrated a review with the answer 9")
        } catch let error as DeckError {
            #expect(error.kind == .corrupt)
            #expect(error.description.contains("answer 9"), "\(error)")
        }
        // Everything but the writers' lock file, which the attempt created.
        #expect(try snapshot(of: url).filter { !$0.key.hasSuffix(".lock") } == original)
        #expect(try manifestVersion(url) == 1)
        // The version 1 store is intact: its 53 cards are there, and opening still asks for `deck migrate`.
        let check = try Database(path: url.appendingPathComponent("Deck.sqlite").path, mode: .readOnly)
        #expect(try check.scalar("SELECT count(*) FROM Card", as: Int.self) == 53)
        check.close()
        #expect(throws: DeckError.self) { _ = try DeckDocument.open(at: url, mode: .readOnly) }
    }
}
