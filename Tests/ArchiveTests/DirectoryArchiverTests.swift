import Foundation
import Testing
@testable import Archive

@Suite struct DirectoryArchiverTests {
    /// A small deck-shaped tree, with files created in an order different from the sorted one.
    private func makeDeck(_ dir: borrowing TemporaryDirectory) throws -> URL {
        try dir.write("Deck.sampledeck/store.sqlite", pseudoRandomBytes(1_100_000, seed: 21))
        try dir.write("Deck.sampledeck/manifest.json", Data(#"{"format":1}"#.utf8))
        try dir.write("Deck.sampledeck/Media/b.jpg", pseudoRandomBytes(3000, seed: 22))
        try dir.write("Deck.sampledeck/Media/A.jpg", pseudoRandomBytes(2000, seed: 23))
        try dir.write("Deck.sampledeck/Media/ça.mp3", Data("audio".utf8))
        try dir.makeDirectory("Deck.sampledeck/Empty")
        return dir.path("Deck.sampledeck")
    }

    @Test(arguments: ArchiveFormat.allCases)
    func archivingTwiceGivesIdenticalBytes(format: ArchiveFormat) throws {
        let dir = try TemporaryDirectory()
        let deck = try makeDeck(dir)
        let first = dir.path("one.\(format.fileExtension)"), second = dir.path("two.\(format.fileExtension)")
        try DirectoryArchiver.archive(directory: deck, as: "Deck.sampledeck", to: first, format: format)
        // Touch times and permissions: none of it may reach the archive.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 99), .posixPermissions: 0o600],
                                              ofItemAtPath: deck.appendingPathComponent("manifest.json").path)
        try DirectoryArchiver.archive(directory: deck, as: "Deck.sampledeck", to: second, format: format)
        let a = try Data(contentsOf: first), b = try Data(contentsOf: second)
        #expect(a.count > 1000)
        #expect(a == b)
    }

    @Test(arguments: ArchiveFormat.allCases)
    func entriesAreSortedUnderTheTopLevelName(format: ArchiveFormat) throws {
        let dir = try TemporaryDirectory()
        let deck = try makeDeck(dir)
        let url = dir.path("deck.\(format.fileExtension)")
        try DirectoryArchiver.archive(directory: deck, as: "French.sampledeck", to: url, format: format)
        let names = try ArchiveReader(url: url).entries().map { $0.path.hasSuffix("/") ? String($0.path.dropLast()) : $0.path }
        #expect(names == [
            "French.sampledeck", "French.sampledeck/Empty", "French.sampledeck/Media", "French.sampledeck/Media/A.jpg",
            "French.sampledeck/Media/b.jpg", "French.sampledeck/Media/ça.mp3", "French.sampledeck/manifest.json",
            "French.sampledeck/store.sqlite",
        ])
    }

    /// What we write, bsdtar extracts to an identical tree, and our extractor does too.
    @Test(arguments: ArchiveFormat.allCases)
    func roundTripsThroughBsdtarAndTheExtractor(format: ArchiveFormat) throws {
        let dir = try TemporaryDirectory()
        let deck = try makeDeck(dir)
        let url = dir.path("deck.\(format.fileExtension)")
        try DirectoryArchiver.archive(directory: deck, as: "Deck.sampledeck", to: url, format: format)
        let byBsdtar = try dir.makeDirectory("bsdtar"), byUs = try dir.makeDirectory("us")
        #expect(try run("bsdtar", ["-xf", url.path, "-C", byBsdtar.path]).status == 0)
        try ArchiveExtractor.extract(url, into: byUs, topLevel: .single { $0.hasSuffix(".sampledeck") })
        for root in [byBsdtar, byUs] {
            let diff = try run("diff", ["-r", deck.path, root.appendingPathComponent("Deck.sampledeck").path])
            #expect(diff.status == 0, "\(diff.output)")
        }
        if format == .zip {
            let test = try run("unzip", ["-t", url.path])
            #expect(test.status == 0, "\(test.output)")
        }
    }

    @Test func reportsProgressUpToTheTotal() throws {
        let dir = try TemporaryDirectory()
        let deck = try makeDeck(dir)
        final class Log { var calls: [(Int64, Int64)] = [] }
        let log = Log()
        try DirectoryArchiver.archive(directory: deck, as: "Deck.sampledeck", to: dir.path("p.zip"), format: .zip) { done, total in
            log.calls.append((done, total))
        }
        let total: Int64 = 1_100_000 + 3000 + 2000 + 5 + 12
        #expect(log.calls.first.map { $0 == (0, total) } == true)
        #expect(log.calls.last.map { $0 == (total, total) } == true)
        #expect(zip(log.calls, log.calls.dropFirst()).allSatisfy { $0.0 <= $1.0 })
        #expect(log.calls.count >= 4)
    }

    @Test func writesToAFileDescriptor() throws {
        let dir = try TemporaryDirectory()
        let deck = try makeDeck(dir)
        let path = dir.path("fd.tar.zst").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try DirectoryArchiver.archive(directory: deck, as: "Deck.sampledeck", toFileDescriptor: descriptor, format: .tarZstd)
        close(descriptor)
        try DirectoryArchiver.archive(directory: deck, as: "Deck.sampledeck", to: dir.path("file.tar.zst"), format: .tarZstd)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(contentsOf: dir.path("file.tar.zst")))
    }

    @Test func refusesSymbolicLinksInTheTree() throws {
        let dir = try TemporaryDirectory()
        let deck = try makeDeck(dir)
        #expect(symlink("/etc/passwd", deck.appendingPathComponent("Media/link").path) == 0)
        #expect { try DirectoryArchiver.archive(directory: deck, as: "Deck.sampledeck", to: dir.path("x.zip"), format: .zip) } throws: {
            ($0 as? ArchiveError)?.kind == .unsafeEntry(name: "Deck.sampledeck/Media/link")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path("x.zip").path))
    }

    @Test(arguments: ["", "a/b", "..", ".", "/abs"])
    func refusesBadTopLevelNames(name: String) throws {
        let dir = try TemporaryDirectory()
        let deck = try makeDeck(dir)
        #expect { try DirectoryArchiver.archive(directory: deck, as: name, to: dir.path("x.zip"), format: .zip) } throws: {
            ($0 as? ArchiveError)?.kind == .invalidArgument
        }
    }

    @Test func missingDirectoryIsAnIOError() throws {
        let dir = try TemporaryDirectory()
        #expect { try DirectoryArchiver.archive(directory: dir.path("absent"), as: "A", to: dir.path("x.zip"), format: .zip) } throws: {
            ($0 as? ArchiveError)?.kind == .io
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == [])
    }
}
