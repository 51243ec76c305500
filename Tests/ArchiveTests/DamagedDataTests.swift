import Foundation
import Testing
@testable import Archive

/// A zip entry whose data was damaged after writing (one byte flipped) fails its CRC-32: libarchive
/// reports that as a warning once the entry's data ends, which the reader must treat as an error.
@Suite struct DamagedDataTests {
    static let payload = pseudoRandomBytes(20_000, seed: 11)

    /// A zip holding `Deck.sampledeck/notes.bin` (the payload, stored or deflated) and a small
    /// second entry, with one byte in the middle of the payload's data inverted.
    static func damagedZip(_ dir: borrowing TemporaryDirectory, compression: ArchiveWriter.EntryCompression) throws -> URL {
        let url = dir.path("damaged.zip")
        let writer = try ArchiveWriter(url: url, format: .zip)
        try writer.addFile("Deck.sampledeck/notes.bin", contents: payload, compression: compression)
        try writer.addFile("Deck.sampledeck/manifest.json", contents: Data("{}".utf8), compression: .stored)
        try writer.finish()
        var bytes = [UInt8](try Data(contentsOf: url))
        // Random bytes don't compress: deflate keeps them verbatim in a stored block, so in both
        // cases the flip changes the data alone and inflating still succeeds; only the CRC-32 tells.
        let marker = [UInt8](payload.prefix(64))
        let start = try #require((0...(bytes.count - 64)).first { bytes[$0] == marker[0] && Array(bytes[$0..<($0 + 64)]) == marker })
        bytes[start + 10_000] ^= 0x01
        try Data(bytes).write(to: url)
        return url
    }

    @Test func aStoredEntryWithAFlippedByteIsMalformed() throws {
        let dir = try TemporaryDirectory()
        let url = try Self.damagedZip(dir, compression: .stored)
        let reader = try ArchiveReader(url: url)
        #expect(try reader.nextEntry()?.path == "Deck.sampledeck/notes.bin")
        let error = try #require(throws: ArchiveError.self) { try reader.readData() }
        #expect(error.kind == .malformed)
        #expect(error.entry == "Deck.sampledeck/notes.bin")
        #expect(error.path == url.path)
        #expect(error.reason.contains("fails its checksum") && error.reason.contains("CRC"), "\(error.reason)")
        #expect(throws: ArchiveError.self) { try reader.nextEntry() }
    }

    @Test func aFailedCopyLeavesNoFile() throws {
        let dir = try TemporaryDirectory()
        let url = try Self.damagedZip(dir, compression: .stored)
        let reader = try ArchiveReader(url: url)
        _ = try reader.nextEntry()
        let copy = dir.path("copy.bin")
        let error = try #require(throws: ArchiveError.self) { try reader.copyData(to: copy) }
        #expect(error.kind == .malformed && error.entry == "Deck.sampledeck/notes.bin")
        #expect(!FileManager.default.fileExists(atPath: copy.path))
    }

    @Test(arguments: [ArchiveWriter.EntryCompression.stored, .automatic])
    func readAllFilesRefusesTheDamagedEntry(_ compression: ArchiveWriter.EntryCompression) throws {
        let dir = try TemporaryDirectory()
        let url = try Self.damagedZip(dir, compression: compression)
        let error = try #require(throws: ArchiveError.self) { try ArchiveReader(url: url).readAllFiles() }
        #expect(error.kind == .malformed && error.entry == "Deck.sampledeck/notes.bin", "\(error)")
    }

    @Test(arguments: [ArchiveExtractor.Backend.automatic, .descriptor])
    func extractionOfADamagedEntryLeavesNothing(_ backend: ArchiveExtractor.Backend) throws {
        let dir = try TemporaryDirectory()
        let url = try Self.damagedZip(dir, compression: .stored)
        let target = try dir.makeDirectory("target")
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveExtractor.extract(url, into: target, limits: .default, topLevel: .any, allow: nil, backend: backend)
        }
        #expect(error.kind == .malformed && error.entry == "Deck.sampledeck/notes.bin", "\(error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == [])
    }

    @Test func theUndamagedArchiveReadsBack() throws {
        // The same construction without the flip: the checks above fail for the flip alone.
        let dir = try TemporaryDirectory()
        let url = dir.path("whole.zip")
        let writer = try ArchiveWriter(url: url, format: .zip)
        try writer.addFile("Deck.sampledeck/notes.bin", contents: Self.payload, compression: .stored)
        try writer.finish()
        #expect(try ArchiveReader(url: url).readAllFiles() == ["Deck.sampledeck/notes.bin": Self.payload])
    }
}
