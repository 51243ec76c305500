import Foundation
import Testing
@testable import SQLite

/// ``Database/init(readOnlySliceOf:offset:length:)``: a database read in place from a byte
/// range of a larger file (a stored zip entry).
@Suite struct FileSliceTests {
    /// A database of `rows` rows (with text long enough to fill several pages), as bytes.
    static func databaseBytes(in dir: TemporaryDirectory, rows: Int = 2_000) throws -> Data {
        let path = dir.path("source-\(UUID().uuidString).sqlite")
        let db = try Database(path: path, mode: .create)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n INTEGER)")
        try db.execute("BEGIN")
        let insert = try db.prepare("INSERT INTO t (name, n) VALUES (?, ?)")
        for index in 0..<rows {
            insert.reset()
            insert.bind(text: "row \(index) " + String(repeating: "x", count: index % 50), at: 1)
            insert.bind(int64: Int64((index * 7919) % rows), at: 2)
            _ = try insert.step()
        }
        try db.execute("COMMIT")
        db.close()
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// `prefix` bytes, the database, then `suffix` bytes, in one file; returns its path and the slice.
    static func embedded(_ database: Data, prefix: Int, suffix: Int, in dir: TemporaryDirectory) throws -> (String, Int64, Int64) {
        let path = dir.path("container-\(UUID().uuidString).bin")
        var bytes = Data((0..<prefix).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        bytes.append(database)
        bytes.append(Data(repeating: 0xA5, count: suffix))
        try bytes.write(to: URL(fileURLWithPath: path))
        return (path, Int64(prefix), Int64(database.count))
    }

    @Test(arguments: [0, 1, 4096, 12_345])
    func readsADatabaseAtAnOffset(_ prefix: Int) throws {
        let dir = try TemporaryDirectory()
        let (path, offset, length) = try Self.embedded(try Self.databaseBytes(in: dir), prefix: prefix, suffix: 777, in: dir)
        let db = try Database(readOnlySliceOf: path, offset: offset, length: length)
        defer { db.close() }
        #expect(db.isReadOnly)
        #expect(try db.scalar("SELECT count(*) FROM t", as: Int64.self) == 2_000)
        #expect(try db.scalar("SELECT name FROM t WHERE id = 1500", as: String.self) == "row 1499 " + String(repeating: "x", count: 1499 % 50))
        // A sort without an index (its temporary b-tree goes through the default VFS).
        let sorted = try db.prepare("SELECT n FROM t ORDER BY n DESC, name")
        var previous = Int64.max, count = 0
        while try sorted.step() {
            let n = sorted.int64(at: 0)
            #expect(n <= previous)
            previous = n
            count += 1
        }
        #expect(count == 2_000)
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t (name, n) VALUES ('new', 0)") }
    }

    @Test func aSliceCutShortIsAnErrorNotACrash() throws {
        let dir = try TemporaryDirectory()
        let database = try Self.databaseBytes(in: dir)
        let (path, offset, _) = try Self.embedded(database, prefix: 100, suffix: 0, in: dir)
        // Only the first page: the header says there are more (opening or the query fails).
        #expect(throws: DatabaseError.self) {
            let db = try Database(readOnlySliceOf: path, offset: offset, length: 4096)
            defer { db.close() }
            _ = try db.scalar("SELECT sum(length(name)) FROM t", as: Int64.self)
        }
    }

    @Test func bytesThatAreNotADatabaseOrAMissingFileAreRefused() throws {
        let dir = try TemporaryDirectory()
        let (path, _, _) = try Self.embedded(Data(repeating: 7, count: 8192), prefix: 10, suffix: 0, in: dir)
        #expect(throws: DatabaseError.self) { try Database(readOnlySliceOf: path, offset: 10, length: 8192) }
        #expect(throws: DatabaseError.self) { try Database(readOnlySliceOf: dir.path("absent"), offset: 0, length: 8192) }
        #expect(throws: DatabaseError.self) { try Database(readOnlySliceOf: path, offset: -1, length: 10) }
    }
}
