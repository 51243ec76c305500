import Archive
import Foundation
import SQLite
import Testing
@testable import Anki

/// Every kind of broken package gives an ``AnkiError`` of the right kind, naming the file; none crashes.
@Suite struct MalformedInputTests {
    /// Builds a zip with `entries` in `dir`.
    static func package(_ dir: TemporaryDirectory, name: String = "bad.apkg", _ entries: [(String, Data)]) throws -> URL {
        let url = dir.file(name)
        let writer = try ArchiveWriter(url: url, format: .zip)
        for (path, data) in entries { try writer.addFile(path, contents: data) }
        try writer.finish()
        return url
    }

    /// A valid schema 11 collection file's bytes, optionally changed with SQL first.
    static func legacyCollection(_ dir: TemporaryDirectory, sql: String? = nil) throws -> Data {
        let url = dir.file("col-\(UUID().uuidString)")
        let writer = try AnkiCollectionWriter(url: url, creationTime: 0)
        try writer.add(AnkiNoteType.basic(id: 1))
        for i in 1...200 { try writer.add(AnkiNote(id: Int64(i), noteTypeID: 1, fields: ["front \(i)", String(repeating: "back ", count: 20)])) }
        try writer.finish()
        if let sql {
            let database = try Database(path: url.path, mode: .readWrite)
            try database.allowUnsafeJournalModes()  // not defensive: `sql` may rewrite the schema
            try database.execute(sql)
            database.close()
        }
        return try Data(contentsOf: url)
    }

    /// The schema 18 collection of the anki-current fixture, optionally changed with SQL, zstd-compressed.
    static func currentCollection(_ dir: TemporaryDirectory, sql: String) throws -> Data {
        let source = try #require(try ArchiveReader(url: Fixtures.url("anki-current.apkg")).readAllFiles()["collection.anki21b"])
        let url = try dir.write("current-\(UUID().uuidString)", try Zstd.decompress(source, limit: 1 << 24))
        let database = try Database(path: url.path, mode: .readWrite)
        try database.execute(sql)
        database.close()
        return try Zstd.compress(try Data(contentsOf: url))
    }

    static func expect(_ kind: AnkiError.Kind, opening url: URL, limits: AnkiReadLimits = .default,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let reader = try AnkiPackageReader(url: url, limits: limits)
            reader.close()
            Issue.record("opened a package that should fail with \(kind)", sourceLocation: sourceLocation)
        } catch let error as AnkiError {
            #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
            #expect(error.path.hasPrefix(url.path), "the error names the package: \(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not an AnkiError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func notAZip() throws {
        let dir = try TemporaryDirectory()
        Self.expect(.notAPackage, opening: try dir.write("text.apkg", Data("just some text, no zip here\n".utf8)))
        Self.expect(.notAPackage, opening: try dir.write("empty.apkg", Data()))
        Self.expect(.io, opening: dir.file("absent.apkg"))
    }

    @Test func truncatedZip() throws {
        let dir = try TemporaryDirectory()
        let whole = try Data(contentsOf: Fixtures.url("anki-legacy.apkg"))
        let url = try dir.write("cut.apkg", whole.prefix(whole.count / 2))
        #expect(throws: AnkiError.self) { try AnkiPackageReader(url: url).close() }
    }

    @Test func missingCollection() throws {
        let dir = try TemporaryDirectory()
        Self.expect(.missingCollection, opening: try Self.package(dir, [("media", Data("{}".utf8))]))
        // meta says anki21b, but only a legacy collection is there.
        Self.expect(.missingCollection, opening: try Self.package(dir, name: "v3.apkg", [
            ("meta", Data([0x08, 0x03])), ("collection.anki21", try Self.legacyCollection(dir)),
        ]))
    }

    @Test(arguments: [[0x08, 0x63] as [UInt8], [0x08, 0x00], []])
    func unsupportedPackageVersion(_ meta: [UInt8]) throws {
        let dir = try TemporaryDirectory()
        Self.expect(.unsupportedVersion, opening: try Self.package(dir, [
            ("meta", Data(meta)), ("collection.anki2", try Self.legacyCollection(dir)),
        ]))
    }

    @Test func malformedMeta() throws {
        let dir = try TemporaryDirectory()
        Self.expect(.malformedProtobuf, opening: try Self.package(dir, [
            ("meta", Data([0x08])), ("collection.anki2", try Self.legacyCollection(dir)),
        ]))
    }

    @Test func collectionsThatAreNotAnkiCollections() throws {
        let dir = try TemporaryDirectory()
        Self.expect(.corruptCollection, opening: try Self.package(dir, name: "a.apkg", [("collection.anki2", Data("not sqlite".utf8))]))
        Self.expect(.corruptCollection, opening: try Self.package(dir, name: "b.apkg", [
            ("collection.anki2", try Self.legacyCollection(dir, sql: "DROP TABLE col")),
        ]))
        Self.expect(.corruptCollection, opening: try Self.package(dir, name: "c.apkg", [
            ("collection.anki2", try Self.legacyCollection(dir, sql: "DELETE FROM col")),
        ]))
        Self.expect(.corruptCollection, opening: try Self.package(dir, name: "d.apkg", [
            ("collection.anki2", try Self.legacyCollection(dir, sql: "DROP TABLE cards")),
        ]))
        Self.expect(.unsupportedVersion, opening: try Self.package(dir, name: "e.apkg", [
            ("collection.anki2", try Self.legacyCollection(dir, sql: "UPDATE col SET ver = 99")),
        ]))
    }

    /// A collection is untrusted: SQL in its schema that a read would run (a view in place of
    /// `notes`, a trigger, a generated column) is refused before any query; SQL that only a
    /// write would run (a `CHECK` calling randomblob) is never run, since the collection is read only.
    @Test(arguments: [
        ("ALTER TABLE notes RENAME TO note_rows; CREATE VIEW notes AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
            + "SELECT note_rows.* FROM note_rows, r", "view \"notes\""),
        ("CREATE TRIGGER evil AFTER UPDATE ON notes BEGIN DELETE FROM cards; END", "trigger \"evil\" on \"notes\""),
        ("ALTER TABLE notes ADD COLUMN evil AS (length(zeroblob(100000000)))", "generated column \"evil\""),
        ("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, 'flds text NOT NULL', "
            + "'flds text NOT NULL CHECK (length(randomblob(1000000000)) > 0)') WHERE name = 'notes'", ""),
    ])
    func hostileCollectionSchemas(_ sql: String, refusal: String) throws {
        let dir = try TemporaryDirectory()
        let collection = try Self.legacyCollection(dir, sql: sql)
        if refusal.isEmpty {
            #expect(collection.range(of: Data("randomblob".utf8)) != nil, "the CHECK was planted")
        }
        let url = try Self.package(dir, [("collection.anki2", collection)])
        do {
            let reader = try AnkiPackageReader(url: url)
            defer { reader.close() }
            #expect(refusal.isEmpty, "opened a collection holding \(refusal)")
            #expect(try reader.noteCount() == 200)
            var notes = 0
            try reader.forEachNote { _ in notes += 1 }
            #expect(notes == 200)
        } catch let error as AnkiError {
            #expect(!refusal.isEmpty, "\(error)")
            #expect(error.kind == .corruptCollection && error.reason.contains(refusal), "\(error)")
        }
    }

    @Test(arguments: [
        "UPDATE col SET models = '{not json'",
        "UPDATE col SET models = '{\"1\": {\"name\": \"no id\"}}'",
        "UPDATE col SET decks = '[1, 2]'",
        "UPDATE col SET decks = ''",
    ])
    func badLegacyJSON(_ sql: String) throws {
        let dir = try TemporaryDirectory()
        Self.expect(.malformedJSON, opening: try Self.package(dir, [("collection.anki2", try Self.legacyCollection(dir, sql: sql))]))
    }

    @Test(arguments: [
        "UPDATE notetypes SET config = x'FFFFFFFF'",
        "UPDATE templates SET config = x'0A05'",
        "UPDATE decks SET kind = x'0A'",
    ])
    func badSchema18Protobuf(_ sql: String) throws {
        let dir = try TemporaryDirectory()
        Self.expect(.malformedProtobuf, opening: try Self.package(dir, [
            ("meta", Data([0x08, 0x03])), ("collection.anki21b", try Self.currentCollection(dir, sql: sql)),
        ]))
    }

    @Test func badZstd() throws {
        let dir = try TemporaryDirectory()
        Self.expect(.malformedCompression, opening: try Self.package(dir, name: "a.apkg", [
            ("meta", Data([0x08, 0x03])), ("collection.anki21b", try Self.legacyCollection(dir)),
        ]))
        let compressed = try Zstd.compress(try Self.legacyCollection(dir))
        Self.expect(.malformedCompression, opening: try Self.package(dir, name: "b.apkg", [
            ("meta", Data([0x08, 0x03])), ("collection.anki21b", compressed.prefix(compressed.count - 10)),
        ]))
    }

    @Test func zstdBomb() throws {
        let dir = try TemporaryDirectory()
        // 256 MiB of zeros in a few KiB; refused long before it is written out.
        let bomb = try Zstd.compress(Data(count: 256 << 20), level: 19)
        let url = try Self.package(dir, [("meta", Data([0x08, 0x03])), ("collection.anki21b", bomb)])
        Self.expect(.limitExceeded, opening: url, limits: AnkiReadLimits(maxCollectionSize: 16 << 20))
    }

    @Test func badMediaLists() throws {
        let dir = try TemporaryDirectory()
        let collection = try Self.legacyCollection(dir)
        Self.expect(.malformedJSON, opening: try Self.package(dir, name: "a.apkg", [
            ("collection.anki2", collection), ("media", Data("{\"0\": 5}".utf8)),
        ]))
        Self.expect(.badMediaName, opening: try Self.package(dir, name: "b.apkg", [
            ("collection.anki2", collection), ("media", Data("{\"0\": \"../../etc/passwd\"}".utf8)),
        ]))
        Self.expect(.badMediaName, opening: try Self.package(dir, name: "c.apkg", [
            ("collection.anki2", collection), ("media", Data("{\"0\": \"a.png\", \"1\": \"a.png\"}".utf8)),
        ]))
        let current = try Self.currentCollection(dir, sql: "SELECT 1")
        Self.expect(.malformedProtobuf, opening: try Self.package(dir, name: "d.apkg", [
            ("meta", Data([0x08, 0x03])), ("collection.anki21b", current), ("media", try Zstd.compress(Data([0x0A, 0x7F]))),
        ]))
        Self.expect(.malformedCompression, opening: try Self.package(dir, name: "e.apkg", [
            ("meta", Data([0x08, 0x03])), ("collection.anki21b", current), ("media", Data([0x0A, 0x00])),
        ]))
    }

    @Test func mediaListedButAbsent() throws {
        let dir = try TemporaryDirectory()
        let url = try Self.package(dir, [
            ("collection.anki2", try Self.legacyCollection(dir)),
            ("media", Data("{\"0\": \"here.png\", \"1\": \"gone.png\"}".utf8)),
            ("0", Data([1, 2, 3])),
        ])
        let reader = try AnkiPackageReader(url: url)
        defer { reader.close() }
        let error = try #require(throws: AnkiError.self) { try reader.extractMedia(to: dir.file("media")) }
        #expect(error.kind == .missingMedia)
        #expect(error.reason.contains("gone.png"))
        // The files that are there were still extracted.
        #expect(try Data(contentsOf: dir.file("media/here.png")) == Data([1, 2, 3]))
    }

    @Test func mediaWhoseSizeDisagreesWithTheList() throws {
        let dir = try TemporaryDirectory()
        let list = MediaEntries(entries: [.init(name: "a.bin", size: 5, sha1: [], legacyZipFilename: nil)])
        let url = try Self.package(dir, [
            ("meta", Data([0x08, 0x03])), ("collection.anki21b", try Self.currentCollection(dir, sql: "SELECT 1")),
            ("media", try Zstd.compress(Data(list.encoded()))), ("0", try Zstd.compress(Data(count: 5000))),
        ])
        let reader = try AnkiPackageReader(url: url)
        defer { reader.close() }
        #expect(throws: AnkiError.self) { try reader.extractMedia(to: dir.file("media")) }
        #expect(!FileManager.default.fileExists(atPath: dir.file("media/a.bin").path))
    }

    /// Flips bytes of real packages at many places: each attempt must end in values or an
    /// ``AnkiError``, never a crash or another error type.
    @Test(arguments: ["genanki-legacy.apkg", "anki-current.apkg"])
    func corruptedBytesNeverCrash(_ file: String) throws {
        let dir = try TemporaryDirectory()
        let original = try Data(contentsOf: Fixtures.url(file))
        var generator = SplitMix(seed: 0x5EED_0000 &+ UInt64(original.count))
        var failures = 0
        for attempt in 0..<24 {
            var bytes = original
            for _ in 0..<8 {
                let index = Int(generator.next() % UInt64(bytes.count))
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            let url = try dir.write("fuzz-\(attempt).apkg", bytes)
            do {
                let reader = try AnkiPackageReader(url: url)
                defer { reader.close() }
                try reader.forEachNote { _ in }
                try reader.forEachCard { _ in }
                try reader.forEachReview { _ in }
                try reader.extractMedia(to: dir.file("media-\(attempt)"))
            } catch is AnkiError {
                failures += 1
            }
        }
        #expect(failures > 0, "some of the corrupted copies must be refused")
    }
}

/// A small deterministic random number generator for reproducible corruption.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
