import Foundation
import Testing
@testable import SQLite

/// Every connection treats its file as hostile: schema SQL untrusted, defensive mode, no
/// views or triggers on read-only connections, and a bound on each statement's work.
@Suite struct HardeningTests {
    static let runaway = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r"

    @Test func everyConnectionDistrustsTheSchemaAndIsDefensive() throws {
        let dir = try TemporaryDirectory()
        for db in [try Database.inMemory(), try Database(path: dir.path("a.sqlite"), mode: .create)] {
            #expect(try db.scalar("PRAGMA trusted_schema", as: Int.self) == 0)
            try db.execute("CREATE TABLE t(x)")
            try db.execute("PRAGMA writable_schema = ON")
            // Defensive mode: the schema table stays read-only, whatever the pragma says.
            #expect(throws: DatabaseError.self) {
                try db.execute("UPDATE sqlite_schema SET sql = 'CREATE TABLE t(y)' WHERE name = 't'")
            }
        }
    }

    @Test func aReadOnlyConnectionRunsNoViewAndNoTrigger() throws {
        let dir = try TemporaryDirectory()
        let writer = try Database(path: dir.path("v.sqlite"), mode: .create)
        try writer.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1); CREATE VIEW v AS \(Self.runaway)")
        try writer.execute("CREATE TRIGGER tr AFTER INSERT ON t BEGIN DELETE FROM t; END")
        writer.close()
        let reader = try Database(path: dir.path("v.sqlite"), mode: .readOnly)
        #expect(try reader.schemaObjects().map(\.type).sorted() == ["table", "trigger", "view"])
        #expect(throws: DatabaseError.self) { _ = try reader.scalar("SELECT * FROM v", as: Int.self) }
        #expect(try reader.scalar("SELECT count(*) FROM t", as: Int.self) == 1)
    }

    @Test func aStatementOverItsWorkLimitFailsClearly() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.path("w.sqlite"), mode: .create)
        #expect((db.workLimit ?? 0) >= 200_000_000, "a file gets a size-based limit by default")
        db.workLimit = 2_000_000
        do {
            _ = try db.scalar(Self.runaway, as: Int.self)
            Issue.record("the runaway query finished")
        } catch {
            #expect(error.isWorkLimitExceeded)
            #expect(error.message.contains("work limit"))
        }
        // The next statement starts with a fresh budget.
        #expect(try db.scalar("SELECT 1 + 1", as: Int.self) == 2)
        #expect(throws: DatabaseError.self) { try db.execute(Self.runaway) }
        // An interrupt from elsewhere is not mistaken for the limit.
        db.workLimit = nil
        #expect(db.workLimit != nil, "back to the size-based default")
    }

    @Test func memoryHasNoLimitByDefault() throws {
        #expect(try Database.inMemory().workLimit == nil)
    }

    @Test func schemaObjectsDescribeThemselves() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(x); CREATE INDEX t_x ON t(x); CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END")
        try db.execute("CREATE VIRTUAL TABLE f USING fts5(a)")
        let objects = try db.schemaObjects()
        #expect(objects.first { $0.name == "tr" }?.description == "trigger \"tr\" on \"t\"")
        #expect(objects.first { $0.name == "f" }?.isVirtualTable == true)
        #expect(objects.first { $0.name == "f" }?.description == "virtual table \"f\"")
        #expect(objects.first { $0.name == "t_x" }?.sql == "CREATE INDEX t_x ON t(x)")
    }
}
