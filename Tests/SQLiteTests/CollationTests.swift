import Foundation
import Testing
@testable import SQLite

/// The case-folding collation the Anki writer registers as `unicase` (current Anki declares it
/// on the names of its schema-18 tables).
@Suite struct CollationTests {
    @Test func ordersByCaseFolding() throws {
        let db = try Database.inMemory()
        try db.registerCaseFoldingCollation(named: "unicase")
        try db.execute("CREATE TABLE t (name TEXT NOT NULL COLLATE unicase)")
        try db.execute("CREATE UNIQUE INDEX t_name ON t (name)")
        for name in ["beta", "Alpha", "gamma", "Ärger", "Zeta", "straße"] {
            try db.execute("INSERT INTO t VALUES (?)", [.text(name)])
        }
        let names = try db.rows("SELECT name FROM t ORDER BY name").compactMap { row -> String? in
            if case .text(let text) = row.first { return text }
            return nil
        }
        #expect(names == ["Alpha", "beta", "gamma", "straße", "Zeta", "Ärger"])
        // Names equal but for case are one name to the unique index, as they are to Anki.
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES ('ALPHA')") }
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES ('STRASSE')") }
        #expect(try db.scalar("PRAGMA integrity_check", as: String.self) == "ok")
    }

    @Test func foldingMatchesCaseInsensitiveASCII() {
        func order(_ a: String, _ b: String) -> Int { Database.caseFoldingOrder(a, b) }
        #expect(order("Basic", "basic") == 0)
        #expect(order("Basic", "Basic+") < 0)
        #expect(order("a_b", "A[b") > 0)  // '_' (0x5F) sorts after '[' (0x5B), as A-Z lowered do
        #expect(order("Σίσυφος", "σίσυφοσ") == 0)
        #expect(order("Éte", "éte") == 0)
        #expect(order("", "a") < 0)
    }
}
