import Foundation
import SQLite
import Testing
@testable import DeckDocument

/// A bulk import into a deck without notes runs with foreign keys off and checks at the end
/// what it wrote (``DeckDocument/ForeignKeyChecking/atEnd``): a key that SQLite's check at the
/// commit refuses is refused with the same error, nothing of the import stays, and foreign keys
/// are on again after it. (That both ways store the same rows: ``BulkImportRowsTests``.)
@Suite struct BulkImportForeignKeyTests {
    typealias Checking = DeckDocument.ForeignKeyChecking

    static func foreignKeysOn(_ deck: DeckDocument) throws -> Int64? {
        try deck.container.withDatabase(for: Note.self) { db in try db.scalar("PRAGMA foreign_keys", as: Int64.self) }
    }

    static func noteType(_ session: BulkImport) throws -> Int64 {
        try BulkImportRowsTests.addNoteType(session, when: Date(timeIntervalSince1970: 1_700_000_000))
    }

    /// Each way of breaking a key inside an import, in both modes: the same error, no note left.
    @Test(arguments: ["card deck", "original deck", "deck deleted", "note type deleted"])
    func brokenKeysAreRefusedAsSQLiteRefusesThem(breakage: String) throws {
        let playground = try Playground()
        var errors: [DatabaseError] = []
        for checking in [Checking.everyRow, .atEnd] {
            let url = playground.file("deck-\(checking).sampledeck")
            let deck = try DeckDocument.create(at: url, title: "Keys")
            let when = Date(timeIntervalSince1970: 1_700_000_000)
            do {
                try deck.bulkImport(rowsPerStatement: nil, foreignKeys: checking) { session in
                    let typeKey = try Self.noteType(session)
                    let deckKey = try session.addDeck(ImportDeck(name: "Words"))
                    for index in 0..<150 {
                        var record = BulkImportRowsTests.record(index, typeKey: typeKey, deck: deckKey, when: when)
                        if index == 70 && breakage == "card deck" { record.cards[1].deck = 9_999 }
                        if index == 70 && breakage == "original deck" { record.cards[0].originalDeck = 9_998 }
                        try session.add(record)
                        try session.add(ImportedNote(kind: .basic, front: "front \(index)", back: "back", created: when), tags: ["t\(index % 3)"])
                    }
                    try session.flush()
                    try deck.container.withDatabase(for: Note.self) { db in
                        if breakage == "deck deleted" { try db.execute("DELETE FROM \"Deck\" WHERE \"pk\" = ?", [.integer(deckKey)]) }
                        if breakage == "note type deleted" { try db.execute("DELETE FROM \"NoteType\" WHERE \"pk\" = ?", [.integer(typeKey)]) }
                    }
                }
                Issue.record("\(breakage), \(checking): the import was accepted")
            } catch let error as DatabaseError {
                errors.append(error)
            }
            #expect(try deck.noteCount() == 0, "\(breakage), \(checking)")
            #expect(try Self.foreignKeysOn(deck) == 1, "\(breakage), \(checking)")
            try deck.close()
        }
        #expect(errors.count == 2)
        #expect(errors.allSatisfy { $0.extendedCode == DatabaseError.constraintForeignKey })
        #expect(errors.first == errors.last)
    }

    /// An import that breaks nothing: accepted in both modes, foreign keys on again, and the
    /// store passes `foreign_key_check`.
    @Test func importsThatBreakNothingAreKept() throws {
        let playground = try Playground()
        for checking in [Checking?.none, .atEnd, .everyRow] {
            let url = playground.file("deck-\(String(describing: checking)).sampledeck")
            let deck = try DeckDocument.create(at: url, title: "Keys")
            _ = try deck.addMedia(Data("one".utf8), originalName: "one.png")
            let when = Date(timeIntervalSince1970: 1_700_000_000)
            for round in 0..<2 {
                try deck.bulkImport(rowsPerStatement: nil, foreignKeys: checking) { session in
                    let typeKey = try Self.noteType(session)
                    let deckKey = try session.addDeck(ImportDeck(name: "Words"))
                    for index in 0..<100 {
                        var record = BulkImportRowsTests.record(index + round * 1000, typeKey: typeKey, deck: deckKey, when: when)
                        if index % 10 == 0 { record.cards[0].originalDeck = deckKey }
                        try session.add(record)
                        try session.add(ImportedNote(kind: .reversible, front: "front \(index)", back: "back", created: when),
                                        tags: ["t\(index % 3)"], media: ["one.png"])
                    }
                }
                #expect(try Self.foreignKeysOn(deck) == 1)
            }
            #expect(try deck.noteCount() == 400)
            let violations = try deck.container.withDatabase(for: Note.self) { db in try db.foreignKeyViolations() }
            #expect(violations == 0)
            try deck.close()
        }
    }
}
