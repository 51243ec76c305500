import Foundation
import SQLite
import Testing
@testable import DeckDocument

/// `DeckStoreV2.check` finds a planted fault of each kind docs/FORMAT.md names, one line each,
/// and nothing in a healthy migrated deck.
@Suite struct CheckV2Tests {
    /// The v1 fixture migrated to version 2 in a fresh playground; returns the package.
    func migratedDeck(_ playground: Playground) throws -> URL {
        let url = playground.file("Languages.sampledeck")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("v1/Languages.sampledeck"), to: url)
        _ = try DeckDocument.migrate(at: url, to: 2)
        return url
    }

    func check(_ deck: URL) -> [DeckProblem] {
        DeckStoreV2.check(storeAt: deck.appendingPathComponent("Deck-v2.sqlite"), mediaFolder: deck.appendingPathComponent("Media"))
    }

    @Test func aMigratedDeckIsHealthy() throws {
        let playground = try Playground()
        let deck = try migratedDeck(playground)
        #expect(check(deck) == [])
        let fresh = playground.file("fresh.sqlite")
        try DeckStoreV2.createStore(at: fresh, title: "Fresh")
        #expect(DeckStoreV2.check(storeAt: fresh, mediaFolder: playground.file("no-media")) == [])
    }

    @Test(arguments: [
        ("UPDATE Card SET queue = 7 WHERE pk = 1", "Card 1.queue = 7: an unknown queue"),
        ("UPDATE Card SET flag = 'red' WHERE pk = 1", "Card 1.flag = 'red': not a flag"),
        ("UPDATE Card SET easeFactor = 200000 WHERE pk = 2", "Card 2.easeFactor = 200000: out of range"),
        ("UPDATE Review SET kind = 9 WHERE pk = 1", "Review 1.kind = 9: an unknown review kind"),
        ("UPDATE Deck SET filterTerms = 'nope' WHERE name = 'Default'", "filterTerms = 'nope': not a JSON array"),
        ("UPDATE Note SET fields = json_array('no gaps here', '') WHERE pk = (SELECT note FROM Card WHERE pk = 3)", "is a cloze note without cloze numbers"),
        ("UPDATE Card SET ordinal = 5 WHERE pk = 1", "Card 1 has ordinal 5, but its note type has no such template"),
        ("UPDATE Note SET fields = json_array('alone') WHERE pk = 1", "Note 1 has 1 field value(s); its note type has 2 field(s)"),
        ("UPDATE Card SET deck = 9999 WHERE pk = 1", "foreign key violation"),
        ("UPDATE Card SET note = NULL WHERE pk = 4", "Card 4 has no note"),
        ("UPDATE NoteSearch SET fields = 'tampered' WHERE rowid = 1", "the search index text differs from the notes for 1 note(s) (first: note 1)"),
        ("DELETE FROM NoteSearch WHERE rowid = 2", "1 note(s) missing from the search index"),
        ("UPDATE Deck SET name = 'Orphan::Child' WHERE name = 'Default'", "its parent deck \"Orphan\" is missing"),
        ("DROP TABLE Preset", "Preset is missing"),
        ("CREATE VIEW Sneaky AS SELECT 1", "Sneaky is not part of the format"),
        // A migrated store's tables carry constant defaults; anything else in a statement is reported.
        ("ALTER TABLE Card ADD COLUMN evil TEXT", "Deck-v2.sqlite: table \"Card\" is not as the format defines it (its statement differs at ,, where the format has )"),
        ("ALTER TABLE Tag ADD COLUMN evil AS (length(zeroblob(100000000)))", "table \"Tag\" is not as the format defines it"),
        ("DROP INDEX Review_time; CREATE INDEX Review_time ON Review(time) WHERE time > 0", "index \"Review_time\" on \"Review\" is not as the format defines it"),
        ("UPDATE MediaFile SET fileName = '../../etc/passwd' WHERE pk = 1", "is not a content-addressed file name"),
    ])
    func aPlantedRowFaultIsReported(plant: String, phrase: String) throws {
        let playground = try Playground()
        let deck = try migratedDeck(playground)
        let db = try Database(path: deck.appendingPathComponent("Deck-v2.sqlite").path, mode: .readWrite)
        try db.execute("PRAGMA foreign_keys = OFF")
        try db.execute(plant)
        db.close()
        let problems = check(deck)
        #expect(problems.contains { $0.severity == .error && $0.message.contains(phrase) }, "\(problems)")
        #expect(problems.allSatisfy { !$0.message.contains("\n") })
    }

    /// Every value rule `check` and the readers apply is written down: in docs/FORMAT.md's
    /// "Value ranges" of version 2 and in sampledeck(5)'s, as `Table.column`.
    @Test func everyValueRuleIsDocumented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let format = try String(contentsOf: root.appendingPathComponent("docs/FORMAT.md"), encoding: .utf8)
        let page = try String(contentsOf: root.appendingPathComponent("man/sampledeck.5"), encoding: .utf8)
        let formatStart = try #require(format.range(of: "\n### Value ranges\n")), formatEnd = try #require(format.range(of: "\n# Format version 1\n"))
        let pageStart = try #require(page.range(of: "\n.Ss Value ranges\n")), pageEnd = try #require(page.range(of: "\n.Sh FILES\n"))
        let table = format[formatStart.upperBound..<formatEnd.lowerBound]
        let words = Set(page[pageStart.upperBound..<pageEnd.lowerBound].split { " \n,;".contains($0) })
        #expect(DeckStoreV2.columnRules.count > 100)
        for rule in DeckStoreV2.columnRules {
            let name = "\(rule.table).\(rule.column)"
            #expect(table.contains("`\(name)`"), "docs/FORMAT.md: \(name)")
            #expect(words.contains(Substring(name)), "sampledeck(5): \(name)")
        }
    }

    @Test(arguments: ["missing", "differs", "directory", "symlink", "extra"])
    func aPlantedMediaFaultIsReported(fault: String) throws {
        let playground = try Playground()
        let deck = try migratedDeck(playground)
        let media = deck.appendingPathComponent("Media")
        let gif = try #require(try FileManager.default.contentsOfDirectory(atPath: media.path).first { $0.hasSuffix(".gif") })
        let file = media.appendingPathComponent(gif)
        let size = try Data(contentsOf: file).count
        let expected: (DeckProblem.Severity, String)
        switch fault {
        case "missing":
            try FileManager.default.removeItem(at: file)
            expected = (.error, "Media/\(gif): referenced by the store but missing")
        case "differs":
            try Data(repeating: 0x41, count: size).write(to: file)
            expected = (.error, "Media/\(gif): contents differ")
        case "directory":
            try FileManager.default.removeItem(at: file)
            try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
            expected = (.error, "Media/\(gif): not a regular file")
        case "symlink":
            try FileManager.default.removeItem(at: file)
            try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: "/etc/hostname")
            expected = (.error, "Media/\(gif): not a regular file")
        default:
            try Data("stray".utf8).write(to: media.appendingPathComponent("stray.txt"))
            expected = (.warning, "Media/stray.txt: not referenced by the store")
        }
        let problems = check(deck)
        #expect(problems.contains { $0.severity == expected.0 && $0.message.contains(expected.1) }, "\(problems)")
    }
}
