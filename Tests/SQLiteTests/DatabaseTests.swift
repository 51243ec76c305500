import Foundation
import Testing
import TestSupport
@testable import SQLite

/// A temporary directory removed when the test ends (the shared ``TemporaryTree``).
typealias TemporaryDirectory = TemporaryTree

extension TemporaryTree {
    /// The path of `name` inside the directory.
    func path(_ name: String) -> String { file(name).path }
}

enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case memory, file
    var testDescription: String { rawValue }
    func open(in directory: TemporaryDirectory) throws -> Database {
        switch self {
        case .memory: try Database.inMemory()
        case .file: try Database(path: directory.path("test.sqlite"), mode: .create)
        }
    }
}

@Suite struct DatabaseTests {
    @Test(arguments: StoreKind.allCases)
    func typedValuesRoundTrip(kind: StoreKind) throws {
        let dir = try TemporaryDirectory()
        let db = try kind.open(in: dir)
        try db.execute("CREATE TABLE t(i, d, s, b, n, flag, date, uuid, url, dec, small, big)")
        let date = Date(timeIntervalSince1970: 1_790_000_000.25)
        let uuid = UUID()
        let url = URL(string: "https://example.com/a?b=c")!
        let insert = try db.prepare("INSERT INTO t VALUES (?,?,?,?,?,?,?,?,?,?,?,?)")
        insert.bind(Int64.max, at: 1)
        insert.bind(3.5, at: 2)
        insert.bind("Café ✓", at: 3)
        insert.bind(Data([0, 1, 2, 255]), at: 4)
        insert.bind(Optional<String>.none, at: 5)
        insert.bind(true, at: 6)
        insert.bind(date, at: 7)
        insert.bind(uuid, at: 8)
        insert.bind(url, at: 9)
        insert.bind(Decimal(string: "12.345")!, at: 10)
        insert.bind(Int8(-7), at: 11)
        insert.bind(UInt64.max, at: 12)
        try insert.step()
        let row = try db.prepare("SELECT * FROM t")
        #expect(try row.step())
        #expect(row.column(0, as: Int64.self) == Int64.max)
        #expect(row.column(1, as: Double.self) == 3.5)
        #expect(row.column(2, as: String.self) == "Café ✓")
        #expect(row.column(3, as: Data.self) == Data([0, 1, 2, 255]))
        #expect(row.isNull(at: 4))
        #expect(row.column(4, as: String?.self) == .some(nil))
        #expect(row.column(5, as: Bool.self) == true)
        #expect(row.column(6, as: Date.self) == date)
        #expect(row.column(7, as: UUID.self) == uuid)
        #expect(row.column(8, as: URL.self) == url)
        #expect(row.column(9, as: Decimal.self) == Decimal(string: "12.345"))
        #expect(row.column(10, as: Int8.self) == -7)
        #expect(row.column(11, as: UInt64.self) == UInt64.max)
        #expect(row.column(0, as: Int8.self) == nil, "a value that does not fit is refused, not truncated")
    }

    @Test(arguments: StoreKind.allCases)
    func transactionRollsBackOnError(kind: StoreKind) throws {
        let dir = try TemporaryDirectory()
        let db = try kind.open(in: dir)
        try db.execute("CREATE TABLE t(x UNIQUE)")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.execute("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t", as: Int.self) == 0)
        try db.transaction {
            try db.execute("INSERT INTO t VALUES (1)")
            // A failing nested transaction rolls back only its own work.
            _ = try? db.transaction { try db.execute("INSERT INTO t VALUES (2)"); throw Boom() }
        }
        #expect(try db.rows("SELECT x FROM t") == [[.integer(1)]])
        #expect(!db.isInTransaction)
    }

    @Test func errorsCarryExtendedCodeAndSQLButNotValues() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE TABLE t(x UNIQUE)")
        try db.execute("INSERT INTO t VALUES (?)", [.text("secret-1")])
        let error = #expect(throws: DatabaseError.self) {
            try db.execute("INSERT INTO t VALUES (?)", [.text("secret-1")])
        }
        #expect(error?.code == DatabaseError.constraint)
        #expect(error?.extendedCode == DatabaseError.constraintUnique)
        #expect(error?.sql == "INSERT INTO t VALUES (?)")
        #expect(error.map { !$0.description.contains("secret-1") } == true)
        let syntax = #expect(throws: DatabaseError.self) { try db.prepare("SELEC 1") }
        #expect(syntax?.message.contains("syntax error") == true)
    }

    @Test func readOnlyNeverWrites() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("ro.sqlite")
        do {
            let db = try Database(path: path, mode: .create)
            try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let ro = try Database(path: path, mode: .readOnly)
        #expect(try ro.scalar("SELECT x FROM t", as: Int.self) == 1)
        let error = #expect(throws: DatabaseError.self) { try ro.execute("INSERT INTO t VALUES (2)") }
        #expect(error?.code == DatabaseError.readOnly)
        ro.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func missingAndForeignFilesAreClearErrors() throws {
        let dir = try TemporaryDirectory()
        let missing = #expect(throws: DatabaseError.self) { try Database(path: dir.path("nope.sqlite"), mode: .readOnly) }
        #expect(missing?.code == DatabaseError.cantOpen)
        let junk = dir.path("junk.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: junk))
        let notADB = #expect(throws: DatabaseError.self) { try Database(path: junk, mode: .readOnly) }
        #expect(notADB?.code == DatabaseError.notADatabase)
    }

    @Test func walAndConcurrentReader() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("wal.sqlite")
        let writer = try Database(path: path, mode: .create)
        #expect(try writer.setJournalMode(.wal).uppercased() == "WAL")
        try writer.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        let reader = try Database(path: path, mode: .readOnly)
        try writer.transaction { try writer.execute("INSERT INTO t VALUES (2)") }
        #expect(try reader.scalar("SELECT count(*) FROM t", as: Int.self) == 2)
    }

    @Test func backupAndVacuumIntoAreConsistentCopies() throws {
        let dir = try TemporaryDirectory()
        let source = try Database(path: dir.path("source.sqlite"), mode: .create)
        try source.execute("CREATE TABLE t(x)")
        try source.transaction {
            let insert = try source.cachedStatement("INSERT INTO t VALUES (?)")
            for i in 0..<500 { try insert.execute([.integer(Int64(i))]) }
        }
        let copy = try Database(path: dir.path("copy.sqlite"), mode: .create)
        var steps = 0
        try source.backup(to: copy, pagesPerStep: 1) { _, _ in steps += 1 }
        #expect(steps > 1)
        #expect(try copy.scalar("SELECT sum(x) FROM t", as: Int.self) == 124_750)
        try source.vacuum(into: dir.path("snapshot.sqlite"))
        let snapshot = try Database(path: dir.path("snapshot.sqlite"), mode: .readOnly)
        #expect(try snapshot.scalar("SELECT count(*) FROM t", as: Int.self) == 500)
        #expect(try snapshot.integrityCheck() == ["ok"])
        #expect(throws: DatabaseError.self) { try source.vacuum(into: dir.path("snapshot.sqlite")) }
    }

    @Test func cachedStatementsAreReused() throws {
        let db = try Database.inMemory()
        let a = try db.cachedStatement("SELECT 1")
        let b = try db.cachedStatement("SELECT 1")
        #expect(a === b)
        #expect(try db.scalar("SELECT ?", [.integer(5)], as: Int.self) == 5)
        #expect(throws: DatabaseError.self) { try db.execute("SELECT ?", [.integer(1), .integer(2)]) }
    }
}
