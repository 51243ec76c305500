import Foundation
import Digest
import SQLite
import Testing
@testable import DeckDocument

@Suite struct CheckTests {
    @Test func healthyDeckHasNoProblems() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        let note = try #require(try deck.note(forCard: 1))
        try deck.attachMedia(named: [try deck.addMedia(Data("meow".utf8), originalName: "Cat.MP3").originalName], to: note)
        try deck.save()
        #expect(deck.check() == [])
    }

    @Test func mediaIsContentAddressedAndShared() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        let a = try deck.addMedia(Data("abc".utf8), originalName: "a.png")
        let b = try deck.addMedia(Data("abc".utf8), originalName: "copy.png")
        #expect(a.fileName == b.fileName && a.originalName == "a.png" && b.originalName == "copy.png")
        #expect(try deck.allMedia().count == 0)
        try deck.save()
        // Two names, one file.
        #expect(try deck.allMedia().map(\.originalName) == ["a.png", "copy.png"])
        #expect(try Set(deck.allMedia().map(\.fileName)).count == 1)
        #expect(a.fileName == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad.png")
        #expect(a.mime == "image/png")
        #expect(try Data(contentsOf: deck.fileURL(of: a)) == Data("abc".utf8))
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256MatchesFIPSVectors(input: String, digest: String) {
        #expect(SHA256.hex(Data(input.utf8)) == digest)
        #expect(SHA256.hex(Data(String(repeating: input, count: 100).utf8)) != digest || input.isEmpty)
    }

    @Test func sha256OfAMillionAs() {
        #expect(SHA256.hex(Data(repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Each kind of damage is reported by a message naming what is wrong.
    @Test(arguments: [
        ("missing media", DeckProblem.Severity.error, "missing"),
        ("changed media", .error, "contents differ"),
        ("unreferenced media", .warning, "not referenced"),
        ("search index stale", .error, "missing from the search index"),
        ("foreign key", .error, "foreign key violation"),
        ("manifest version", .error, "format version 7"),
    ])
    func eachProblemIsReported(damage: String, severity: DeckProblem.Severity, phrase: String) throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        let media = try deck.addMedia(Data("meow".utf8), originalName: "cat.mp3")
        try deck.attachMedia(named: [media.originalName], to: try #require(try deck.note(forCard: 1)))
        try deck.save()
        switch damage {
        case "missing media": try FileManager.default.removeItem(at: deck.fileURL(of: media))
        case "changed media": try Data("woof".utf8).write(to: deck.fileURL(of: media))
        case "unreferenced media": try Data("x".utf8).write(to: deck.mediaURL.appendingPathComponent("stray.png"))
        case "search index stale":
            try deck.container.withDatabase(for: Note.self) { db in try db.execute("DELETE FROM NoteSearch WHERE rowid = 2") }
        case "foreign key":
            try deck.container.withDatabase(for: Note.self) { db in
                try db.execute("PRAGMA foreign_keys = OFF")
                try db.execute("INSERT INTO Note_tags(source, target) VALUES (1, 999)")
                try db.execute("PRAGMA foreign_keys = ON")
            }
        default:
            var manifest = deck.manifest
            manifest.formatVersion = 7
            try manifest.encoded().write(to: deck.url.appendingPathComponent("manifest.json"))
        }
        let problems = deck.check()
        #expect(problems.contains { $0.severity == severity && $0.message.contains(phrase) }, "\(problems)")
    }
}

@Suite struct FormatDocumentationTests {
    @Test func manPageIsLintClean() throws {
        let page = fixtures.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("man/sampledeck.5")
        let result = try run("/usr/bin/mandoc", ["-T", "lint", "-W", "warning", page.path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.isEmpty)
    }

    /// Every store column the code creates is named in docs/FORMAT.md.
    @Test func formatDocumentNamesEveryColumn() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let doc = try String(contentsOf: fixtures.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/FORMAT.md"), encoding: .utf8)
        let deck = try DeckDocument.open(at: url, mode: .readOnly)
        defer { try? deck.close() }
        try deck.container.withDatabase(for: Note.self) { db in
            for table in ["NoteType", "NoteField", "CardTemplate", "Note", "Card", "Deck", "Preset", "Tag", "MediaFile", "MediaName",
                          "Review", "DeckInfo", "Note_tags", "Note_media"] {
                #expect(doc.contains("`\(table)"), "\(table)")
                for column in try db.columns(of: table) {
                    #expect(doc.contains(column), "\(table).\(column)")
                }
            }
        }
    }

    /// Every table and column of a format version 2 store is named in docs/FORMAT.md and
    /// sampledeck(5), each column in its table's section of the document.
    @Test func formatDocumentNamesEveryVersion2TableAndColumn() throws {
        let root = fixtures.deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/FORMAT.md"), encoding: .utf8)
        let page = try String(contentsOf: root.appendingPathComponent("man/sampledeck.5"), encoding: .utf8)
        let version2 = try #require(doc.components(separatedBy: "\n# Format version 1").first)
        let playground = try Playground()
        let store = playground.file("v2.sqlite")
        try DeckStoreV2.createStore(at: store, title: "Documented")
        let db = try Database(path: store.path, mode: .readOnly)
        defer { db.close() }
        let tables = try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").compactMap { row -> String? in
            if case .text(let name) = row[0], !DeckStoreV2.searchShadowTables.contains(name) { name } else { nil }
        }
        #expect(tables.count == 17)
        for table in tables {
            #expect(version2.contains("`\(table)"), "\(table)")
            if !table.hasPrefix("persistence") { #expect(page.contains("Sy \(table)"), "sampledeck.5: \(table)") }
            let section = version2.components(separatedBy: "`\(table)").dropFirst().joined()
            for column in try db.columns(of: table) where column != "pk" {
                #expect(section.contains(column), "\(table).\(column)")
                if !["NoteSearchPending", "persistence_metadata", "Note_tags", "Note_media"].contains(table) {
                    #expect(page.contains("Cm \(column)"), "sampledeck.5: \(table).\(column)")
                }
            }
        }
    }
}
