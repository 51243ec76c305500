import CSQLite
import Foundation
@testable import SQLite
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

    /// Makes `PRAGMA foreign_keys = …` (setting it, not reading it) fail on `db` (`SQLITE_DENY`:
    /// the statement is refused) or do nothing (`SQLITE_IGNORE`: SQLite skips it without a
    /// word), through SQLite's authorizer; `nil` removes the authorizer.
    static func answerForeignKeySwitches(_ db: Database, with answer: Int32?) {
        guard let answer else { sqlite3_set_authorizer(db.handle, nil, nil); return }
        sqlite3_set_authorizer(db.handle, { context, action, pragma, value, _, _ in
            guard action == SQLITE_PRAGMA, value != nil, let pragma,
                  String(cString: pragma).lowercased() == "foreign_keys" else { return SQLITE_OK }
            return Int32(Int(bitPattern: context))
        }, UnsafeMutableRawPointer(bitPattern: Int(answer)))
    }

    /// Foreign keys that can't be switched back on after a committed import are the import's
    /// error (the connection would go on without them): refused or silently skipped, the call
    /// throws, and the notes stay, since they are committed.
    @Test(arguments: [SQLITE_DENY, SQLITE_IGNORE])
    func foreignKeysThatStayOffAfterTheCommitAreAnError(answer: Int32) throws {
        let playground = try Playground()
        let deck = try DeckDocument.create(at: playground.file("deck.sampledeck"), title: "Keys")
        let when = Date(timeIntervalSince1970: 1_700_000_000)
        var thrown: (any Error)?
        do {
            try deck.bulkImport(rowsPerStatement: nil, foreignKeys: .atEnd) { session in
                for index in 0..<20 {
                    try session.add(ImportedNote(kind: .basic, front: "front \(index)", back: "back", created: when), tags: ["t"])
                }
                try deck.container.withDatabase(for: Note.self) { db in Self.answerForeignKeySwitches(db, with: answer) }
            }
        } catch {
            thrown = error
        }
        try deck.container.withDatabase(for: Note.self) { db in Self.answerForeignKeySwitches(db, with: nil) }
        switch thrown {
        case let error as DatabaseError:
            #expect(answer == SQLITE_DENY && error.code == SQLITE_AUTH, "\(error)")
        case let error as DeckError:
            #expect(answer == SQLITE_IGNORE && error.kind == .io, "\(error)")
        case let error?:
            Issue.record("unexpected error: \(error)")
        case nil:
            Issue.record("the import went on without foreign keys and said nothing")
        }
        #expect(try Self.foreignKeysOn(deck) == 0)
        #expect(try deck.noteCount() == 20)
        try deck.close()
    }

    /// On the error path switching foreign keys back on is best effort: when it fails too, the
    /// import's own error is the one thrown, and nothing of the import stays.
    @Test func aFailedImportReportsItsOwnErrorWhenForeignKeysStayOff() throws {
        let playground = try Playground()
        let deck = try DeckDocument.create(at: playground.file("deck.sampledeck"), title: "Keys")
        let when = Date(timeIntervalSince1970: 1_700_000_000)
        do {
            try deck.bulkImport(rowsPerStatement: nil, foreignKeys: .atEnd) { session in
                let typeKey = try Self.noteType(session)
                try session.add(BulkImportRowsTests.record(0, typeKey: typeKey, deck: 9_999, when: when))
                try deck.container.withDatabase(for: Note.self) { db in Self.answerForeignKeySwitches(db, with: SQLITE_DENY) }
            }
            Issue.record("the import was accepted")
        } catch let error as DatabaseError {
            #expect(error.extendedCode == DatabaseError.constraintForeignKey, "\(error)")
        }
        try deck.container.withDatabase(for: Note.self) { db in Self.answerForeignKeySwitches(db, with: nil) }
        #expect(try deck.noteCount() == 0)
        try deck.close()
    }
}
