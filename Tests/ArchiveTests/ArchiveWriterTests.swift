import FileSafety
import Foundation
import Testing
@testable import Archive

@Suite struct ArchiveWriterTests {
    /// Writes a small archive with a directory, an in-memory file, a streamed file and a stored file.
    private func writeSample(to url: URL, format: ArchiveFormat, streamed: URL) throws {
        let writer = try ArchiveWriter(url: url, format: format)
        try writer.addDirectory("Deck.sampledeck")
        try writer.addFile("Deck.sampledeck/manifest.json", contents: Data(#"{"format":1}"#.utf8))
        try writer.addFile("Deck.sampledeck/store.sqlite", contentsOf: streamed)
        try writer.addDirectory("Deck.sampledeck/Media")
        try writer.addFile("Deck.sampledeck/Media/café 日本.txt", contents: Data("accents".utf8), compression: .stored)
        try writer.finish()
    }

    @Test(arguments: ArchiveFormat.allCases)
    func roundTripsThroughTheReader(format: ArchiveFormat) throws {
        let dir = try TemporaryDirectory()
        // Larger than one 1 MiB chunk, so streaming crosses chunk boundaries.
        let big = pseudoRandomBytes(2_500_000, seed: 1)
        let source = try dir.write("store.sqlite", big)
        let archive = dir.path("out.\(format.fileExtension)")
        try writeSample(to: archive, format: format, streamed: source)

        let reader = try ArchiveReader(url: archive)
        var seen: [String] = []
        var contents: [String: Data] = [:]
        while let entry = try reader.nextEntry() {
            seen.append(entry.path)
            #expect(entry.modificationTime == ArchiveWriter.normalizedModificationTime)
            switch entry.type {
            case .directory: #expect(entry.mode == 0o755)
            case .file:
                #expect(entry.mode == 0o644)
                contents[entry.path] = try reader.readData()
            default: Issue.record("unexpected entry \(entry)")
            }
        }
        #expect(seen.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } == [
            "Deck.sampledeck", "Deck.sampledeck/manifest.json", "Deck.sampledeck/store.sqlite",
            "Deck.sampledeck/Media", "Deck.sampledeck/Media/café 日本.txt",
        ])
        #expect(contents["Deck.sampledeck/store.sqlite"] == big)
        #expect(contents["Deck.sampledeck/manifest.json"] == Data(#"{"format":1}"#.utf8))
        #expect(contents["Deck.sampledeck/Media/café 日本.txt"] == Data("accents".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == ["out.\(format.fileExtension)", "store.sqlite"])
    }

    @Test(arguments: ArchiveFormat.allCases)
    func sameEntriesGiveIdenticalBytes(format: ArchiveFormat) throws {
        let dir = try TemporaryDirectory()
        let source = try dir.write("store.sqlite", pseudoRandomBytes(300_000, seed: 2))
        let first = dir.path("a.\(format.fileExtension)")
        let second = dir.path("b.\(format.fileExtension)")
        try writeSample(to: first, format: format, streamed: source)
        // A different file time on the source must not show in the archive.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 12345)], ofItemAtPath: source.path)
        try writeSample(to: second, format: format, streamed: source)
        let a = try Data(contentsOf: first), b = try Data(contentsOf: second)
        #expect(a.count > 0)
        #expect(a == b)
    }

    @Test func zipStoredEntryIsNotCompressed() throws {
        let dir = try TemporaryDirectory()
        let archive = dir.path("stored.zip")
        let writer = try ArchiveWriter(url: archive, format: .zip)
        let zeros = Data(count: 100_000)
        try writer.addFile("stored", contents: zeros, compression: .stored)
        try writer.addFile("deflated", contents: zeros)
        try writer.finish()
        let script = """
        import sys, zipfile
        z = zipfile.ZipFile(sys.argv[1])
        for i in z.infolist(): print(i.filename, i.compress_type, i.compress_size, i.file_size)
        assert z.testzip() is None
        """
        let result = try run("python3", ["-c", script, archive.path])
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.first == ["stored", "0", "100000", "100000"])
        #expect(lines.last?.prefix(2) == ["deflated", "8"])
        #expect(Int(lines.last?[2] ?? "") ?? .max < 1000)
    }

    @Test func writesToAFileDescriptor() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("fd.tar.gz").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let writer = try ArchiveWriter(fileDescriptor: descriptor, format: .tarGzip)
        try writer.addFile("hello.txt", contents: Data("hello".utf8))
        try writer.finish()
        let files = try ArchiveReader(url: URL(fileURLWithPath: path)).readAllFiles()
        #expect(files == ["hello.txt": Data("hello".utf8)])
    }

    @Test(arguments: ["/etc/passwd", "../up", "a/../../b", "", "a\\b", "tab\there"])
    func refusesUnsafeNames(name: String) throws {
        let dir = try TemporaryDirectory()
        let writer = try ArchiveWriter(url: dir.path("x.zip"), format: .zip)
        #expect { try writer.addFile(name, contents: Data()) } throws: { error in
            (error as? ArchiveError)?.kind == .invalidArgument && (error as? ArchiveError)?.entry == name
        }
    }

    @Test func refusesDuplicateNames() throws {
        let dir = try TemporaryDirectory()
        let writer = try ArchiveWriter(url: dir.path("x.tar.xz"), format: .tarXz)
        try writer.addFile("a/b.txt", contents: Data("1".utf8))
        #expect(throws: ArchiveError.self) { try writer.addFile("a//b.txt", contents: Data("2".utf8)) }
    }

    @Test func abandonedWriterLeavesNothingBehind() throws {
        let dir = try TemporaryDirectory()
        let archive = dir.path("never.zip")
        do {
            let writer = try ArchiveWriter(url: archive, format: .zip)
            try writer.addFile("a.txt", contents: Data("a".utf8))
            // dropped without finish()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == [])
    }

    @Test func existingFilesAndDanglingLinksAreNeverReplaced() throws {
        let dir = try TemporaryDirectory()
        let archive = try dir.write("out.zip", Data("old".utf8))
        #expect(throws: ArchiveError(.alreadyExists, path: archive.path, reason: "already exists")) {
            try ArchiveWriter(url: archive, format: .zip)
        }
        let link = dir.path("link.zip")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: dir.path("missing.zip").path)
        #expect(throws: ArchiveError.self) { try ArchiveWriter(url: link, format: .zip) }
        #expect(!FileManager.default.fileExists(atPath: dir.path("missing.zip").path))
        // Two writers to one destination: the first to finish wins, the other is refused.
        let target = dir.path("two.zip")
        let first = try ArchiveWriter(url: target, format: .zip)
        let second = try ArchiveWriter(url: target, format: .zip)
        try first.addFile("first.txt", contents: Data("1".utf8))
        try second.addFile("second.txt", contents: Data("2".utf8))
        try second.finish()
        #expect(throws: ArchiveError.self) { try first.finish() }
        #expect(try ArchiveReader(url: target).readAllFiles() == ["second.txt": Data("2".utf8)])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == ["link.zip", "out.zip", "two.zip"])
    }

    @Test func finishReplacesAnExistingFileOnlyAtTheEndWhenAllowed() throws {
        let dir = try TemporaryDirectory()
        let archive = try dir.write("out.zip", Data("old".utf8))
        let writer = try ArchiveWriter(url: archive, format: .zip, overwrite: .replace)
        try writer.addFile("a.txt", contents: Data("new".utf8))
        #expect(try Data(contentsOf: archive) == Data("old".utf8))
        try writer.finish()
        #expect(try ArchiveReader(url: archive).readAllFiles() == ["a.txt": Data("new".utf8)])
        #expect(throws: ArchiveError.self) { try writer.addFile("b.txt", contents: Data()) }
        #expect(throws: ArchiveError.self) { try writer.finish() }
    }

    /// The default level is the compressor's own default, the one `bsdtar` uses; other levels change the bytes.
    @Test(arguments: [(ArchiveFormat.zip, 6), (.tarGzip, 6), (.tarXz, 6), (.tarZstd, 3)])
    func defaultCompressionLevelIsBsdtars(format: ArchiveFormat, bsdtarDefault: Int) throws {
        let dir = try TemporaryDirectory()
        let words = ["chat", "chien", "être", "avoir", "maison", "voiture", "rouge", "vert", "le", "la"]
        var text = ""
        var state: UInt64 = 7
        for _ in 0..<60_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            text += words[Int(state >> 60) % words.count] + (state & 0x100 == 0 ? " " : "\n")
        }
        let data = Data(text.utf8)
        func archive(_ level: Int?) throws -> Data {
            let url = dir.path("l\(level ?? -1).\(format.fileExtension)")
            let writer = try ArchiveWriter(url: url, format: format, compressionLevel: level)
            try writer.addFile("cards.txt", contents: data)
            try writer.finish()
            #expect(try ArchiveReader(url: url).readAllFiles()["cards.txt"] == data)
            return try Data(contentsOf: url)
        }
        let implicit = try archive(nil)
        #expect(implicit == (try archive(bsdtarDefault)))
        let fastest = try archive(1)
        #expect(fastest != implicit)
        #expect(fastest.count > implicit.count, "level 1: \(fastest.count) bytes, default: \(implicit.count) bytes")
    }

    @Test func refusesAnImpossibleCompressionLevel() throws {
        let dir = try TemporaryDirectory()
        #expect { try ArchiveWriter(url: dir.path("x.tar.gz"), format: .tarGzip, compressionLevel: 42) } throws: { error in
            (error as? ArchiveError)?.kind == .invalidArgument
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == [])
    }

    @Test func missingDirectoryIsAnIOError() {
        #expect { try ArchiveWriter(url: URL(fileURLWithPath: "/nonexistent-dir/x.zip"), format: .zip) } throws: { error in
            (error as? ArchiveError)?.kind == .io && (error as? ArchiveError)?.path == "/nonexistent-dir/x.zip"
        }
    }

    @Test(arguments: [
        ("deck.zip", ArchiveFormat.zip), ("DECK.ZIP", .zip), ("a/b.apkg", .zip), ("x.tar.gz", .tarGzip),
        ("x.tgz", .tarGzip), ("x.tar.xz", .tarXz), ("x.tar.zst", .tarZstd), ("x.tzst", .tarZstd),
    ])
    func infersFormatFromExtension(path: String, format: ArchiveFormat) {
        #expect(ArchiveFormat.inferred(fromPath: path) == format)
    }

    @Test(arguments: ["deck.sampledeck", "x.tar", "zip", ".zip", "x.gz"])
    func infersNothingFromOtherNames(path: String) {
        #expect(ArchiveFormat.inferred(fromPath: path) == nil)
    }
}
