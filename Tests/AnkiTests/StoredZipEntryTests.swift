import Archive
import Foundation
import Testing
@testable import Anki

/// Stored (uncompressed) collections are found through the zip's central directory and read in
/// place; compressed ones, and anything unusual, go the ordinary way (extracted).
@Suite struct StoredZipEntryTests {
    static let names: Set<String> = ["collection.anki2", "collection.anki21"]

    @Test func findsStoredEntriesAndSkipsCompressedOnes() throws {
        let dir = try TemporaryDirectory()
        let stored = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let url = dir.file("mixed.zip")
        let writer = try ArchiveWriter(url: url, format: .zip)
        try writer.addFile("meta", contents: Data([8, 2]), compression: .stored)
        try writer.addFile("collection.anki21", contents: Data(repeating: 1, count: 50_000))
        try writer.addFile("collection.anki2", contents: stored, compression: .stored)
        try writer.finish()

        let found = StoredZipEntry.locate(Self.names, in: url)
        #expect(Set(found.keys) == ["collection.anki2"], "the deflated entry is not read in place")
        let entry = try #require(found["collection.anki2"])
        #expect(entry.length == Int64(stored.count))
        let bytes = try Data(contentsOf: url)
        #expect(bytes[Int(entry.offset)..<Int(entry.offset + entry.length)] == stored)
    }

    @Test func findsGenankisCollection() throws {
        let url = Fixtures.url("genanki-legacy.apkg")
        let entry = try #require(StoredZipEntry.locate(Self.names, in: url)["collection.anki2"])
        let bytes = try Data(contentsOf: url)
        #expect(bytes[Int(entry.offset)..<Int(entry.offset + 16)] == Data("SQLite format 3\0".utf8))
        #expect(entry.length == 61_440)
    }

    @Test(arguments: [0, 10, 21, 100])
    func truncatedOrForeignFilesGiveNothing(_ keep: Int) throws {
        let dir = try TemporaryDirectory()
        let zip = try Data(contentsOf: Fixtures.url("genanki-legacy.apkg"))
        // The start of a real zip (its directory is at the end), or bytes that are no zip at all.
        let cut = try dir.write("cut.apkg", zip.prefix(keep == 100 ? zip.count - 30 : keep))
        #expect(StoredZipEntry.locate(Self.names, in: cut).isEmpty)
        let foreign = try dir.write("foreign.bin", Data(repeating: 0x50, count: keep * 100))
        #expect(StoredZipEntry.locate(Self.names, in: foreign).isEmpty)
        #expect(StoredZipEntry.locate(Self.names, in: dir.file("absent.apkg")).isEmpty)
    }

    @Test func aDirectoryPointingOutsideTheFileGivesNothing() throws {
        var zip = try Data(contentsOf: Fixtures.url("genanki-legacy.apkg"))
        // The end record's directory offset (4 bytes at end + 16) moved past the end of the file.
        let signature: [UInt8] = [0x50, 0x4B, 5, 6]
        let bytes = [UInt8](zip)
        let end = try #require((0...(bytes.count - 22)).reversed().first { Array(bytes[$0..<($0 + 4)]) == signature })
        zip.replaceSubrange((end + 16)..<(end + 20), with: [0xF0, 0xFF, 0xFF, 0x0F])
        let dir = try TemporaryDirectory()
        #expect(StoredZipEntry.locate(Self.names, in: try dir.write("bad.apkg", zip)).isEmpty)
    }

    /// A zip of `entries`, each stored (as Anki stores `collection.anki21b`).
    static func storedPackage(_ dir: TemporaryDirectory, name: String, _ entries: [(String, Data)]) throws -> URL {
        let url = dir.file(name)
        let writer = try ArchiveWriter(url: url, format: .zip)
        for (path, data) in entries { try writer.addFile(path, contents: data, compression: .stored) }
        try writer.finish()
        return url
    }

    @Test func aStoredAnki21bIsDecompressedFromThePackage() throws {
        let dir = try TemporaryDirectory()
        let collection = try MalformedInputTests.legacyCollection(dir)
        let good = try Self.storedPackage(dir, name: "good.apkg", [
            ("meta", Data([0x08, 0x03])), ("collection.anki21b", try Zstd.compress(collection)),
        ])
        #expect(StoredZipEntry.locate(["collection.anki21b"], in: good).count == 1)
        let reader = try AnkiPackageReader(url: good)
        defer { reader.close() }
        #expect(try reader.noteCount() == 200)
        var fronts: [String] = []
        try reader.forEachNoteWithCards(includingReviews: false) { note, _, _ in fronts.append(note.fields[0]) }
        #expect(fronts.prefix(2) == ["front 1", "front 2"] && fronts.count == 200)
    }

    @Test func aStoredAnki21bThatIsDamagedOrABombIsRefused() throws {
        let dir = try TemporaryDirectory()
        let compressed = try Zstd.compress(try MalformedInputTests.legacyCollection(dir))
        MalformedInputTests.expect(.malformedCompression, opening: try Self.storedPackage(dir, name: "raw.apkg", [
            ("meta", Data([0x08, 0x03])), ("collection.anki21b", try MalformedInputTests.legacyCollection(dir)),
        ]))
        MalformedInputTests.expect(.malformedCompression, opening: try Self.storedPackage(dir, name: "cut.apkg", [
            ("meta", Data([0x08, 0x03])), ("collection.anki21b", compressed.prefix(compressed.count - 10)),
        ]))
        let bomb = try Zstd.compress(Data(count: 64 << 20), level: 19)
        MalformedInputTests.expect(.limitExceeded, opening: try Self.storedPackage(dir, name: "bomb.apkg", [
            ("meta", Data([0x08, 0x03])), ("collection.anki21b", bomb),
        ]), limits: AnkiReadLimits(maxCollectionSize: 1 << 20))
    }

    @Test(arguments: [("genanki-legacy.apkg", true), ("anki-legacy.apkg", false)])
    func aStoredCollectionIsReadWithoutExtractingIt(_ fixture: String, inPlace: Bool) throws {
        let base = try TemporaryDirectory()
        let reader = try AnkiPackageReader(url: Fixtures.url(fixture), temporaryDirectory: base.url)
        defer { reader.close() }
        let work = try #require(try FileManager.default.contentsOfDirectory(atPath: base.url.path).first)
        let files = try FileManager.default.contentsOfDirectory(atPath: base.file(work).path)
        #expect(files.contains { $0.hasPrefix("collection.") } == !inPlace, "\(files)")
        var notes = 0
        try reader.forEachNoteWithCards { _, card, _ in
            notes += 1
            #expect(card != nil)
        }
        #expect(notes == 5)
    }
}
