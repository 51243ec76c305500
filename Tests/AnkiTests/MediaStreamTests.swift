import Foundation
import Testing
@testable import Anki

/// ``AnkiPackageReader/forEachMediaFile(_:)``: every media file's bytes from memory, in one pass,
/// with the same checks as extraction.
@Suite struct MediaStreamTests {
    @Test(arguments: PackageReaderTests.fixtures)
    func yieldsEveryFileWithItsBytes(_ fixture: PackageReaderTests.Expectation) throws {
        let reader = try AnkiPackageReader(url: Fixtures.url(fixture.file))
        defer { reader.close() }
        var files: [String: Data] = [:]
        let missing = try reader.forEachMediaFile { item, data in
            #expect(files[item.name] == nil, "each file once")
            files[item.name] = data
        }
        #expect(missing.isEmpty)
        #expect(files["bonjour.mp3"] == Fixtures.bonjour)
        #expect(files["red dot.png"]?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true)
        #expect(Set(files.keys) == Set(reader.media.map(\.name)))
        for item in reader.media {
            #expect(files[item.name] == (try reader.mediaData(item)), "the same bytes as extraction gives")
        }
    }

    @Test func filesListedButAbsentAreReturned() throws {
        let dir = try TemporaryDirectory()
        let url = try MalformedInputTests.package(dir, [
            ("collection.anki2", try MalformedInputTests.legacyCollection(dir)),
            ("media", Data("{\"0\": \"here.png\", \"1\": \"gone.png\"}".utf8)),
            ("0", Data([1, 2, 3])),
        ])
        let reader = try AnkiPackageReader(url: url)
        defer { reader.close() }
        var files: [String: Data] = [:]
        let missing = try reader.forEachMediaFile { files[$0.name] = $1 }
        #expect(missing.map(\.name) == ["gone.png"])
        #expect(files == ["here.png": Data([1, 2, 3])])
    }

    @Test func aSizeThatDisagreesWithTheListOrTheLimitIsRefused() throws {
        let dir = try TemporaryDirectory()
        let list = MediaEntries(entries: [.init(name: "a.bin", size: 5, sha1: [], legacyZipFilename: nil)])
        let current = try MalformedInputTests.package(dir, name: "current.apkg", [
            ("meta", Data([0x08, 0x03])), ("collection.anki21b", try MalformedInputTests.currentCollection(dir, sql: "SELECT 1")),
            ("media", try Zstd.compress(Data(list.encoded()))), ("0", try Zstd.compress(Data(count: 5000))),
        ])
        let reader = try AnkiPackageReader(url: current)
        defer { reader.close() }
        var calls = 0
        #expect(throws: AnkiError.self) { try reader.forEachMediaFile { _, _ in calls += 1 } }
        #expect(calls == 0)

        let legacy = try MalformedInputTests.package(dir, name: "legacy.apkg", [
            ("collection.anki2", try MalformedInputTests.legacyCollection(dir)),
            ("media", Data("{\"0\": \"big.bin\"}".utf8)), ("0", Data(count: 2000)),
        ])
        let limited = try AnkiPackageReader(url: legacy, limits: AnkiReadLimits(maxMediaFileSize: 1000))
        defer { limited.close() }
        let error = try #require(throws: AnkiError.self) { try limited.forEachMediaFile { _, _ in calls += 1 } }
        #expect(error.kind == .limitExceeded)
        #expect(calls == 0)
    }

    @Test func errorsOfTheCallerStopThePass() throws {
        struct Stop: Error {}
        let reader = try AnkiPackageReader(url: Fixtures.url("anki-current.apkg"))
        defer { reader.close() }
        var calls = 0
        #expect(throws: Stop.self) {
            try reader.forEachMediaFile { _, _ in
                calls += 1
                throw Stop()
            }
        }
        #expect(calls == 1)
    }
}
