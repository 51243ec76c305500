import Foundation
import Testing
import SQLite
@testable import DeckDocument

/// A shared deck's store is untrusted: its schema is checked before any query, so a view,
/// a planted trigger or a foreign virtual table is refused (never run), and a read-only
/// open never writes the package, not even to roll back a hot journal.
@Suite struct HostileStoreTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var sql: String
        /// A fragment of the refusal; empty when the deck must open.
        var refusal: String
        var testDescription: String { name }
    }

    static let noteColumns = "pk, guid, fields, sortText, created, modified, ankiID, noteType"

    static let cases: [Case] = [
        Case(name: "a recursive view named Note",
             sql: """
                DROP TRIGGER Note_search_delete;
                ALTER TABLE Note RENAME TO NoteRows;
                CREATE VIEW Note AS WITH RECURSIVE r(\(noteColumns)) AS (SELECT * FROM NoteRows UNION ALL
                  SELECT pk + 1, guid, fields, sortText, created, modified, ankiID, noteType FROM r)
                SELECT * FROM r;
                """,
             refusal: "view \"Note\""),
        Case(name: "a view beside the tables", sql: "CREATE VIEW Everything AS SELECT * FROM Card, Tag;", refusal: "view \"Everything\""),
        Case(name: "a trigger planted on Card", sql: "CREATE TRIGGER evil AFTER INSERT ON Card BEGIN DELETE FROM Tag; END;",
             refusal: "trigger \"evil\" on \"Card\""),
        Case(name: "a trigger with our name and other SQL",
             sql: "DROP TRIGGER Note_search_delete; CREATE TRIGGER Note_search_delete AFTER DELETE ON Note BEGIN DELETE FROM Tag; END;",
             refusal: "trigger \"Note_search_delete\" on \"Note\" is not as the format defines it (its statement differs"),
        Case(name: "our trigger moved to another table",
             sql: """
                DROP TRIGGER Note_search_delete;
                CREATE TRIGGER Note_search_delete AFTER DELETE ON "Tag" BEGIN SELECT 1; END;
                """,
             refusal: "trigger \"Note_search_delete\""),
        Case(name: "a virtual table of an unknown module",
             sql: "PRAGMA writable_schema = ON; INSERT INTO sqlite_schema VALUES ('table', 'Evil', 'Evil', 0, 'CREATE VIRTUAL TABLE Evil USING nosuchmodule(x)');",
             refusal: "virtual table \"Evil\""),
        Case(name: "a second FTS5 table", sql: "CREATE VIRTUAL TABLE Other USING fts5(x);", refusal: "virtual table \"Other\""),
        Case(name: "an extra table", sql: "CREATE TABLE Extra(x);", refusal: "table \"Extra\" is not as the format defines it (the format has no such table)"),
        Case(name: "an extra index on Card", sql: "CREATE INDEX Card_flag_extra ON Card(flag);", refusal: "index \"Card_flag_extra\" on \"Card\""),
        Case(name: "our index made unique (a second new card in a deck could never be added)",
             sql: "DROP INDEX Card_deck_queue_due; CREATE UNIQUE INDEX Card_deck_queue_due ON Card(deck, queue, due, note, ordinal);",
             refusal: "index \"Card_deck_queue_due\" on \"Card\" is not as the format defines it (its statement differs at UNIQUE"),
        Case(name: "an index version 1 allowed (retired then) is no index of version 2",
             sql: "CREATE INDEX \"Card_kind\" ON \"Card\"(\"type\");", refusal: "index \"Card_kind\""),
        // Tables are compared by statement, not by name (a CHECK, a DEFAULT or a generated
        // column is SQL SQLite runs on the reader's or writer's behalf).
        Case(name: "an extra column in Card", sql: "ALTER TABLE Card ADD COLUMN evil TEXT;",
             refusal: "table \"Card\" is not as the format defines it (its statement differs at ,, where the format has ))"),
        Case(name: "a generated column in Card", sql: "ALTER TABLE Card ADD COLUMN evil AS (length(zeroblob(100000000)));",
             refusal: "table \"Card\" is not as the format defines it"),
        Case(name: "a CHECK calling randomblob in Card",
             sql: rewrite("Card", #""flag" INTEGER NOT NULL"#, #""flag" INTEGER NOT NULL CHECK (length(randomblob(1000000000)) > 0)"#),
             refusal: "table \"Card\" is not as the format defines it (its statement differs at CHECK, where the format has ,)"),
        Case(name: "another type in Card", sql: rewrite("Card", #""flag" INTEGER NOT NULL"#, #""flag" TEXT NOT NULL"#),
             refusal: "table \"Card\" is not as the format defines it (its statement differs at TEXT, where the format has INTEGER)"),
        Case(name: "a DEFAULT calling a function in Card",
             sql: rewrite("Card", #""customData" TEXT NOT NULL"#, #""customData" TEXT NOT NULL DEFAULT (hex(randomblob(100)))"#),
             refusal: "table \"Card\" is not as the format defines it (its statement differs at DEFAULT"),
        Case(name: "a table made WITHOUT ROWID", sql: rewrite("DeckInfo", #""ankiConfig" TEXT NOT NULL)"#, #""ankiConfig" TEXT NOT NULL) WITHOUT ROWID"#),
             refusal: "table \"DeckInfo\" is not as the format defines it"),
        Case(name: "a shadow table of the search index with another column", sql: rewrite("NoteSearch_config", "v)", "v, w DEFAULT (randomblob(9)))"),
             refusal: "table \"NoteSearch_config\" is not as the format defines it"),
        Case(name: "our index on an expression", sql: #"DROP INDEX Card_ankiID_set; CREATE INDEX "Card_ankiID_set" ON "Card"(abs("ankiID")) WHERE "ankiID" IS NOT NULL;"#,
             refusal: "index \"Card_ankiID_set\" on \"Card\" is not as the format defines it (its statement differs at ABS"),
        Case(name: "our partial index with another WHERE", sql: #"DROP INDEX Note_ankiID_set; CREATE INDEX "Note_ankiID_set" ON "Note"("ankiID") WHERE "ankiID" > 0;"#,
             refusal: "index \"Note_ankiID_set\" on \"Note\" is not as the format defines it (its statement differs at >"),
        Case(name: "a comment in a table's statement", sql: rewrite("Tag", #""collapsed" INTEGER NOT NULL"#, #""collapsed" INTEGER NOT NULL /* hidden */"#),
             refusal: "table \"Tag\" is not as the format defines it (its statement holds a comment"),
        Case(name: "nothing planted (the deck opens)", sql: "SELECT 1;", refusal: ""),
        // What the format allows besides its own text: constant defaults (migrated stores have
        // them), other whitespace and other quotes around a name.
        Case(name: "a constant DEFAULT, other whitespace and [quotes] (the deck opens)",
             sql: rewrite("Tag", #""collapsed" INTEGER NOT NULL"#, "[collapsed]\n   INTEGER  NOT NULL DEFAULT -1")
                + rewrite("DeckInfo", #""ankiConfig" TEXT NOT NULL"#, #"`ankiConfig` TEXT NOT NULL DEFAULT '{}'"#),
             refusal: ""),
    ]

    /// SQL that replaces `old` by `new` in `table`'s statement in `sqlite_schema` (what a
    /// hostile writer can do; SQLite reads the new text at the next open).
    static func rewrite(_ table: String, _ old: String, _ new: String) -> String {
        func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        return "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, \(literal(old)), \(literal(new))) "
            + "WHERE name = \(literal(table)); PRAGMA writable_schema = OFF;"
    }

    /// Applies `sql` to the store with a connection that may rewrite the schema (not defensive).
    static func tamper(_ deck: URL, _ sql: String) throws {
        let db = try Database(path: deck.appendingPathComponent("Deck.sqlite").path, mode: .readWrite)
        defer { db.close() }
        try db.allowUnsafeJournalModes()
        try db.execute(sql)
    }

    @Test(arguments: cases)
    func hostileSchema(_ test: Case) throws {
        let play = try Playground()
        let deck = try play.sampleDeck()
        try Self.tamper(deck, test.sql)
        let before = try snapshot(of: deck)
        // The library's check (which a caller may run without opening the deck) reports it too.
        let problems = DeckStoreV2.check(storeAt: deck.appendingPathComponent("Deck.sqlite"), mediaFolder: deck.appendingPathComponent("Media"))
        #expect(problems.contains { $0.severity == .error } == !test.refusal.isEmpty, "\(test.name): \(problems)")
        #expect(problems.allSatisfy { !$0.message.contains("\n") })
        for mode in [DeckOpenMode.readOnly, .readWrite] {
            if test.refusal.isEmpty {
                let document = try DeckDocument.open(at: deck, mode: mode)
                #expect(try document.noteCount() == 3)
                #expect(document.check().filter { $0.severity == .error }.isEmpty)
                try document.close()
                continue
            }
            do {
                let document = try DeckDocument.open(at: deck, mode: mode)
                try? document.close()
                Issue.record("\(test.name): opened \(mode)")
            } catch let error as DeckError {
                #expect(error.kind == .corrupt, "\(error)")
                #expect(error.reason.contains(test.refusal), "\(error.reason)")
                #expect(error.path.hasSuffix("Deck.sqlite"))
                #expect(!error.description.contains("\n"), "\(error)")
            }
            #expect(try snapshot(of: deck) == before, "\(test.name): the package changed (\(mode))")
        }
    }

    static let hotJournal = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/reliability/hot-journal.sampledeck")

    @Test func aReaderRecoversAHotJournalIntoAPrivateCopy() throws {
        let play = try Playground()
        let deck = play.file("D.sampledeck")
        try FileManager.default.copyItem(at: Self.hotJournal, to: deck)
        let before = try snapshot(of: deck)
        #expect(before.keys.contains("/Deck.sqlite-journal"))
        let document = try DeckDocument.open(at: deck, mode: .readOnly)
        #expect(document.readsRecoveredCopy)
        let copy = document.storeURL.deletingLastPathComponent()
        #expect(!document.storeURL.path.hasPrefix(deck.path))
        #expect(document.check().filter { $0.severity == .error }.isEmpty)
        #expect(document.check().contains { $0.message.contains("a write was interrupted") })
        _ = try document.cardCount()
        try document.close()
        #expect(!FileManager.default.fileExists(atPath: copy.path), "the private copy is removed on close")
        #expect(try snapshot(of: deck) == before, "a reader wrote the package")
        // A writer (it holds the lock) rolls the journal back in place.
        let writer = try DeckDocument.open(at: deck, mode: .readWrite)
        #expect(!writer.readsRecoveredCopy)
        try writer.close()
        #expect(!FileManager.default.fileExists(atPath: deck.appendingPathComponent("Deck.sqlite-journal").path))
    }

    /// A journal whose tail names a super-journal: SQLite would read, and might delete, the
    /// file it names when rolling it back. Refused before SQLite sees it.
    @Test(arguments: [DeckOpenMode.readOnly, .readWrite])
    func aJournalNamingASuperJournalIsRefused(_ mode: DeckOpenMode) throws {
        let play = try Playground()
        let deck = try play.sampleDeck()
        let victim = play.file("victim.txt")
        try Data("keep me".utf8).write(to: victim)
        var journal = Data([0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]) + Data(count: 504)
        let name = Data(victim.path.utf8)
        journal += Data([0, 0, 0, 1]) + name
        let length = UInt32(name.count)
        journal += Data([UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
        let checksum = name.reduce(UInt32(0)) { $0 &+ UInt32(Int8(bitPattern: $1)) }
        journal += Data([UInt8(checksum >> 24), UInt8(checksum >> 16 & 0xFF), UInt8(checksum >> 8 & 0xFF), UInt8(checksum & 0xFF)])
        journal += Data([0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7])
        try journal.write(to: deck.appendingPathComponent("Deck.sqlite-journal"))
        let before = try snapshot(of: deck)
        #expect(throws: DeckError.self) { _ = try DeckDocument.open(at: deck, mode: mode) }
        do {
            _ = try DeckDocument.open(at: deck, mode: mode)
        } catch let error as DeckError {
            #expect(error.kind == .corrupt && error.reason.contains("super-journal"), "\(error)")
        }
        #expect(try snapshot(of: deck) == before)
        #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
    }
}
