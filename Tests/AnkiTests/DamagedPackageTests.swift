import Archive
import Foundation
import Testing
@testable import Anki

/// A package whose bytes were damaged after writing (one byte flipped) is refused with an error
/// naming the damaged entry, both for a stored collection read in place (checked against the
/// zip's CRC-32 by us) and for entries read through libarchive (a media file).
@Suite struct DamagedPackageTests {
    /// Inverts the lowest bit of the byte at `position`.
    static func flip(_ url: URL, at position: Int) throws {
        var bytes = try Data(contentsOf: url)
        bytes[position] ^= 0x01
        try bytes.write(to: url)
    }

    /// Where `needle` first occurs in the file at `url`.
    static func position(of needle: Data, in url: URL) throws -> Int {
        let bytes = try Data(contentsOf: url)
        return try #require(bytes.firstRange(of: needle)?.lowerBound, "the test data is in the package")
    }

    static func expectChecksumFailure(_ url: URL, entry: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let reader = try AnkiPackageReader(url: url)
            reader.close()
            Issue.record("a damaged package was opened", sourceLocation: sourceLocation)
        } catch let error as AnkiError {
            #expect(error.kind == .corruptCollection, "\(error)", sourceLocation: sourceLocation)
            #expect(error.path == "\(url.path):\(entry)", "\(error)", sourceLocation: sourceLocation)
            #expect(error.reason.contains("\(entry) fails its checksum"), "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not an AnkiError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: ["collection.anki2", "collection.anki21"])
    func aStoredCollectionWithAFlippedByteIsRefused(_ name: String) throws {
        let dir = try TemporaryDirectory()
        let collection = try MalformedInputTests.legacyCollection(dir)
        let url = try StoredZipEntryTests.storedPackage(dir, name: "damaged.apkg", [(name, collection)])
        // Read in place (so libarchive never sees its bytes), and sound before the flip.
        #expect(StoredZipEntry.locate([name], in: url)[name] != nil)
        let whole = try AnkiPackageReader(url: url)
        #expect(try whole.noteCount() == 200)
        whole.close()
        // "front 150" becomes "front 050": still a valid database, only the CRC-32 tells.
        try Self.flip(url, at: try Self.position(of: Data("front 150\u{1F}".utf8), in: url) + 6)
        Self.expectChecksumFailure(url, entry: name)
    }

    @Test func aStoredAnki21bWithAFlippedByteIsRefused() throws {
        let dir = try TemporaryDirectory()
        let compressed = try Zstd.compress(try MalformedInputTests.legacyCollection(dir))
        let url = try StoredZipEntryTests.storedPackage(dir, name: "damaged.apkg", [
            ("meta", Data([0x08, 0x03])), ("collection.anki21b", compressed),
        ])
        let slice = try #require(StoredZipEntry.locate(["collection.anki21b"], in: url)["collection.anki21b"])
        try Self.flip(url, at: Int(slice.offset + slice.length / 2))
        Self.expectChecksumFailure(url, entry: "collection.anki21b")
    }

    /// A legacy package with a deflated media file "photo.bin" (random bytes, so deflate keeps
    /// them verbatim and a flipped byte inflates without complaint: only the CRC-32 tells).
    static func packageWithDamagedMedia(_ dir: TemporaryDirectory) throws -> (url: URL, media: Data) {
        var generator = SystemRandomNumberGenerator()
        let media = Data((0..<30_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let url = dir.file("media.apkg")
        let writer = try ArchiveWriter(url: url, format: .zip)
        try writer.addFile("collection.anki2", contents: try MalformedInputTests.legacyCollection(dir), compression: .stored)
        try writer.addFile("media", contents: Data(#"{"0": "photo.bin"}"#.utf8))
        try writer.addFile("0", contents: media, compression: .automatic)
        try writer.finish()
        try flip(url, at: try position(of: media.prefix(64), in: url) + 15_000)
        return (url, media)
    }

    @Test func aDeflatedMediaFileWithAFlippedByteIsRefused() throws {
        let dir = try TemporaryDirectory()
        let (url, _) = try Self.packageWithDamagedMedia(dir)
        let reader = try AnkiPackageReader(url: url)
        defer { reader.close() }
        #expect(try reader.noteCount() == 200, "the collection itself is sound")
        for read in [{ try reader.forEachMediaFile { _, _ in } }, { try reader.extractMedia(to: dir.file("out")) }] as [() throws -> Any] {
            let error = try #require(throws: AnkiError.self) { _ = try read() }
            #expect(error.kind == .notAPackage && error.path == url.path, "\(error)")
            #expect(error.reason.contains("media file \"photo.bin\" (entry 0)") && error.reason.contains("fails its checksum"), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/photo.bin").path), "nothing is left of the damaged file")
    }
}
