import Foundation
import Testing
@testable import Archive

@Suite struct ArchiveReaderTests {
    private func makeArchive(_ dir: borrowing TemporaryDirectory, format: ArchiveFormat, files: [(String, Data)]) throws -> URL {
        let url = dir.path("sample.\(format.fileExtension)")
        let writer = try ArchiveWriter(url: url, format: format)
        for (name, data) in files { try writer.addFile(name, contents: data) }
        try writer.finish()
        return url
    }

    @Test(arguments: ArchiveFormat.allCases)
    func readsFromMemory(format: ArchiveFormat) throws {
        let dir = try TemporaryDirectory()
        let url = try makeArchive(dir, format: format, files: [("a.txt", Data("alpha".utf8)), ("b/c.bin", pseudoRandomBytes(5000, seed: 3))])
        let files = try ArchiveReader(data: Data(contentsOf: url)).readAllFiles()
        #expect(files == ["a.txt": Data("alpha".utf8), "b/c.bin": pseudoRandomBytes(5000, seed: 3)])
    }

    @Test(arguments: ArchiveFormat.allCases)
    func readsFromAPipe(format: ArchiveFormat) throws {
        let dir = try TemporaryDirectory()
        let payload = pseudoRandomBytes(1_500_000, seed: 4)
        let url = try makeArchive(dir, format: format, files: [("x/payload", payload), ("x/small", Data("s".utf8))])
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let bytes = try Data(contentsOf: url)
        let writeEnd = ends[1]
        let writerThread = Thread {
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = write(writeEnd, raw.baseAddress! + offset, raw.count - offset)
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(writeEnd)
        }
        writerThread.start()
        defer { close(ends[0]) }
        let reader = try ArchiveReader(fileDescriptor: ends[0])
        let entry = try #require(try reader.nextEntry())
        #expect(entry.path == "x/payload")
        let copy = dir.path("copied")
        try reader.copyData(to: copy)
        #expect(try Data(contentsOf: copy) == payload)
        #expect(try reader.nextEntry()?.path == "x/small")
        #expect(try reader.readData() == Data("s".utf8))
        #expect(try reader.nextEntry() == nil)
        #expect(try reader.nextEntry() == nil)
    }

    @Test func readsZipsMadeByInfoZip() throws {
        let dir = try TemporaryDirectory()
        try dir.write("Deck.sampledeck/manifest.json", Data("{}".utf8))
        try dir.write("Deck.sampledeck/Media/été.txt", Data("summer".utf8))
        let result = try run("zip", ["-qr", "deck.zip", "Deck.sampledeck"], in: dir.url)
        #expect(result.status == 0, "\(result.output)")
        let files = try ArchiveReader(url: dir.path("deck.zip")).readAllFiles()
        #expect(files == ["Deck.sampledeck/manifest.json": Data("{}".utf8), "Deck.sampledeck/Media/été.txt": Data("summer".utf8)])
    }

    @Test(arguments: ["tar.gz", "tar.xz", "tar.zst", "tar.bz2", "tar", "zip", "7z", "cpio"])
    func readsArchivesMadeByBsdtar(suffix: String) throws {
        let dir = try TemporaryDirectory()
        let payload = pseudoRandomBytes(200_000, seed: 5)
        try dir.write("Deck.sampledeck/store.sqlite", payload)
        try dir.write("Deck.sampledeck/Media/日本.txt", Data("japan".utf8))
        let result = try run("bsdtar", ["-a", "-cf", "deck.\(suffix)", "Deck.sampledeck"], in: dir.url)
        #expect(result.status == 0, "\(result.output)")
        let reader = try ArchiveReader(url: dir.path("deck.\(suffix)"))
        var files: [String: Data] = [:]
        var directories: [String] = []
        while let entry = try reader.nextEntry() {
            if entry.type == .directory { directories.append(entry.path) } else { files[entry.path] = try reader.readData() }
        }
        #expect(files == ["Deck.sampledeck/store.sqlite": payload, "Deck.sampledeck/Media/日本.txt": Data("japan".utf8)])
        #expect(directories.count == 2)
    }

    @Test func reportsLinksAndTheirTargets() throws {
        let dir = try TemporaryDirectory()
        try dir.write("d/file", Data("f".utf8))
        #expect(symlink("file", dir.path("d/soft").path) == 0)
        #expect(link(dir.path("d/file").path, dir.path("d/hard").path) == 0)
        #expect(try run("bsdtar", ["-cf", "links.tar", "d"], in: dir.url).status == 0)
        let entries = try ArchiveReader(url: dir.path("links.tar")).entries()
        let byName = Dictionary(uniqueKeysWithValues: entries.map { ($0.path, $0) })
        #expect(byName["d/soft"]?.type == .symlink)
        #expect(byName["d/soft"]?.linkTarget == "file")
        let hard = [byName["d/hard"], byName["d/file"]].compactMap { $0 }.filter { $0.type == .hardlink }
        #expect(hard.count == 1)
    }

    @Test func refusesLinksInReadAllFiles() throws {
        let dir = try TemporaryDirectory()
        #expect(symlink("/etc/passwd", dir.path("soft").path) == 0)
        #expect(try run("bsdtar", ["-cf", "l.tar", "soft"], in: dir.url).status == 0)
        #expect { try ArchiveReader(url: dir.path("l.tar")).readAllFiles() } throws: { error in
            (error as? ArchiveError)?.kind == .unsafeEntry(name: "soft")
        }
    }

    @Test func enforcesLimitsOnActualBytes() throws {
        let dir = try TemporaryDirectory()
        let url = try makeArchive(dir, format: .zip, files: [("a", Data(count: 3000)), ("b", Data(count: 3000))])
        let perEntry = ArchiveLimits(maxEntrySize: 2000)
        #expect { try ArchiveReader(url: url, limits: perEntry).readAllFiles() } throws: { error in
            (error as? ArchiveError)?.kind == .limitExceeded && (error as? ArchiveError)?.entry == "a"
        }
        let total = ArchiveLimits(maxTotalSize: 5000)
        #expect { try ArchiveReader(url: url, limits: total).readAllFiles() } throws: { error in
            (error as? ArchiveError)?.kind == .limitExceeded && (error as? ArchiveError)?.entry == "b"
        }
        let count = ArchiveLimits(maxEntries: 1)
        #expect { try ArchiveReader(url: url, limits: count).entries() } throws: { error in
            (error as? ArchiveError)?.kind == .limitExceeded && (error as? ArchiveError)?.entry == "b"
        }
        let ratio = ArchiveLimits(maxExpansionRatio: 5, expansionRatioThreshold: 1000)
        #expect { try ArchiveReader(url: url, limits: ratio).readAllFiles() } throws: { error in
            (error as? ArchiveError)?.kind == .limitExceeded
        }
        #expect(try ArchiveReader(url: url).readAllFiles().count == 2)
    }

    /// A stream has no known size: the ratio is checked against the bytes consumed so far.
    @Test func enforcesTheRatioOnStreams() throws {
        let dir = try TemporaryDirectory()
        let url = try makeArchive(dir, format: .tarZstd, files: [("zeros", Data(count: 4_000_000))])
        let descriptor = open(url.path, O_RDONLY)
        defer { close(descriptor) }
        let reader = try ArchiveReader(fileDescriptor: descriptor, limits: ArchiveLimits(maxExpansionRatio: 100, expansionRatioThreshold: 100_000))
        _ = try reader.nextEntry()
        #expect { try reader.readData() } throws: { error in (error as? ArchiveError)?.kind == .limitExceeded }
    }

    @Test func notAnArchiveIsMalformed() throws {
        let dir = try TemporaryDirectory()
        let url = try dir.write("notes.txt", Data("just some text, not an archive\n".utf8))
        #expect { _ = try ArchiveReader(url: url).nextEntry() } throws: { error in
            (error as? ArchiveError)?.kind == .malformed && (error as? ArchiveError)?.path == url.path
        }
    }

    @Test func missingFileIsAnIOError() {
        #expect { try ArchiveReader(url: URL(fileURLWithPath: "/nonexistent/x.zip")) } throws: { error in
            (error as? ArchiveError)?.kind == .io
        }
    }

    @Test func mtreeIsNotReadSoHostFilesStayUnread() throws {
        let dir = try TemporaryDirectory()
        let url = try dir.write("spec.mtree", Data("#mtree\n./passwd type=file contents=/etc/passwd\n".utf8))
        #expect(throws: ArchiveError.self) {
            let reader = try ArchiveReader(url: url)
            while try reader.nextEntry() != nil { _ = try reader.readData() }
        }
    }

    @Test func readDataWithoutAnEntryIsRefused() throws {
        let dir = try TemporaryDirectory()
        let url = try makeArchive(dir, format: .zip, files: [("a", Data("a".utf8))])
        let reader = try ArchiveReader(url: url)
        #expect { try reader.readData() } throws: { error in (error as? ArchiveError)?.kind == .invalidArgument }
    }
}
