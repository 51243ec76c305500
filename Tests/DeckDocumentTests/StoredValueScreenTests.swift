import Foundation
import SQLite
import Testing
@testable import DeckDocument

/// `forEachStoredNote(verifyingValues:)` checks the value rules of notes, cards and reviews in
/// Swift as it reads them (StoredValueScreen) instead of running them in SQL first: it must
/// refuse exactly what `verifyValues()` refuses, with the same error, and pass what it passes.
@Suite struct StoredValueScreenTests {
    /// Rows that break a rule (each on its own), and unusual rows that keep every rule.
    static let broken: [(table: String, column: String, value: String)] = [
        ("Note", "guid", "''"), ("Note", "guid", "'a b'"), ("Note", "guid", "'é'"),
        ("Note", "guid", "'" + String(repeating: "g", count: 65) + "'"), ("Note", "sortText", "X'00'"),
        ("Note", "created", "1e12"), ("Note", "modified", "'x'"), ("Note", "ankiID", "1.5"), ("Note", "fields", "'{}'"),
        ("Note", "fields", "'[1'"), ("Note", "fields", "X'00'"),
        ("Card", "ordinal", "500"), ("Card", "ordinal", "-1"), ("Card", "type", "4"), ("Card", "queue", "5"),
        ("Card", "queue", "-4"), ("Card", "due", "253402300801"), ("Card", "originalDue", "-253402300801"),
        ("Card", "interval", "2147483648"), ("Card", "repetitions", "-1"), ("Card", "lapses", "1.5"),
        ("Card", "remainingSteps", "-1"), ("Card", "easeFactor", "100001"), ("Card", "flag", "8"),
        ("Card", "stability", "'x'"), ("Card", "decay", "X'00'"), ("Card", "difficulty", "0.5"), ("Card", "difficulty", "11"),
        ("Card", "desiredRetention", "1"), ("Card", "desiredRetention", "0"), ("Card", "lastReview", "253402300801"),
        ("Card", "lastReview", "1.5"), ("Card", "originalPosition", "-1"), ("Card", "ankiID", "'x'"), ("Card", "customData", "'x'"),
        ("Card", "customData", "'[]'"), ("Card", "created", "-62135596801"), ("Card", "modified", "'x'"),
        ("Card", "ankiOptions", "''"), ("Card", "ankiOptions", "'[]'"),
        ("Review", "time", "253402300800001"), ("Review", "rating", "5"), ("Review", "interval", "2147483648"),
        ("Review", "lastInterval", "-2147483649"), ("Review", "easeFactor", "-1"), ("Review", "duration", "86400001"),
        ("Review", "kind", "6"), ("Review", "ankiID", "1.5"), ("Review", "time", "1.5"),
    ]
    static let unusual: [(table: String, column: String, value: String)] = [
        ("Card", "customData", #"'{"v":1}'"#), ("Card", "ankiOptions", #"'{"x":[1]}'"#), ("Card", "customData", "' {} '"),
        ("Card", "stability", "3"), ("Card", "difficulty", "10"), ("Card", "desiredRetention", "0.99"), ("Note", "ankiID", "NULL"),
        ("Note", "created", "253402300800"), ("Note", "fields", #"'[ "a" , "b" ]'"#), ("Review", "interval", "-2147483648"),
    ]

    @Test func screenRefusesWhatTheRulesRefuse() throws {
        let playground = try Playground()
        let deck = try DeckDocument.create(at: playground.file("Screen.sampledeck"), title: "Screen")
        defer { try? deck.close() }
        let when = Date(timeIntervalSince1970: 1_700_000_000)
        try deck.bulkImport { session in
            for index in 0..<5 {
                let note = ImportedNote(kind: .reversible, front: "front \(index)", back: "back", created: when)
                note.due = when
                try session.add(note, tags: ["t"], reviews: [ReviewSnapshot(date: when, ease: 3, interval: 1, duration: 2)])
            }
        }
        func outcome(_ run: () throws -> Void) -> String {
            do {
                try run()
                return "passed"
            } catch {
                return "\(error)"
            }
        }
        func compare(_ table: String, _ column: String, _ value: String, key: Int64 = 3, expectRefusal: Bool) throws {
            try deck.container.withDatabase(for: Note.self) { db in
                try db.execute("SAVEPOINT screen")
                try db.execute("UPDATE \(quoteIdentifier(table)) SET \(quoteIdentifier(column)) = \(value) WHERE \"pk\" = \(key)")
            }
            defer {
                try? deck.container.withDatabase(for: Note.self) { db in
                    try db.execute("ROLLBACK TO screen")
                    try db.execute("RELEASE screen")
                }
            }
            let rules = outcome { try deck.verifyValues() }
            let screen = outcome { try deck.forEachStoredNote(verifyingValues: true) { _ in } }
            #expect(screen == rules, "\(table).\(column) = \(value)")
            #expect((rules != "passed") == expectRefusal, "\(table).\(column) = \(value): \(rules)")
        }
        for (table, column, value) in Self.broken { try compare(table, column, value, expectRefusal: true) }
        for (table, column, value) in Self.unusual { try compare(table, column, value, expectRefusal: false) }
        // Rows the walk does not reach: a card of no note (card 3, the first of note 2), and its review (2).
        try compare("Card", "note", "NULL", expectRefusal: false)
        try deck.container.withDatabase(for: Note.self) { db in
            try db.execute("SAVEPOINT orphans")
            try db.execute("PRAGMA defer_foreign_keys = ON")
            try db.execute("UPDATE \"Card\" SET \"note\" = NULL WHERE \"pk\" = 3")
        }
        try compare("Card", "interval", "-1", key: 3, expectRefusal: true)
        try compare("Review", "rating", "9", key: 2, expectRefusal: true)
        try deck.container.withDatabase(for: Note.self) { db in
            try db.execute("ROLLBACK TO orphans")
            try db.execute("RELEASE orphans")
        }
        // Nothing wrong: both pass, and the walk sees every note.
        var seen = 0
        try deck.forEachStoredNote(verifyingValues: true) { _ in seen += 1 }
        #expect(seen == 5)
    }
}
