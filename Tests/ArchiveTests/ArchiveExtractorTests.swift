import Foundation
import Testing
@testable import Archive

@Suite struct ArchiveExtractorTests {
    static let backends: [ArchiveExtractor.Backend] = [.automatic, .descriptor]
    private let store = pseudoRandomBytes(1_300_000, seed: 11)

    private func writeDeck(_ dir: borrowing TemporaryDirectory, format: ArchiveFormat, name: String = "Deck.sampledeck") throws -> URL {
        let url = dir.path("\(name).\(format.fileExtension)")
        let writer = try ArchiveWriter(url: url, format: format)
        try writer.addDirectory(name)
        try writer.addFile("\(name)/manifest.json", contents: Data(#"{"format":1}"#.utf8))
        try writer.addFile("\(name)/store.sqlite", contents: store)
        try writer.addFile("\(name)/Media/été.mp3", contents: Data("audio".utf8))
        try writer.finish()
        return url
    }

    @Test(arguments: ArchiveFormat.allCases, backends)
    func extractsADeck(format: ArchiveFormat, backend: ArchiveExtractor.Backend) throws {
        let dir = try TemporaryDirectory()
        let archive = try writeDeck(dir, format: format)
        let target = try dir.makeDirectory("out")
        let names = try ArchiveExtractor.extract(archive, into: target, limits: .default,
                                                 topLevel: .single { $0.hasSuffix(".sampledeck") }, allow: nil, backend: backend)
        #expect(names == ["Deck.sampledeck", "Deck.sampledeck/manifest.json", "Deck.sampledeck/store.sqlite", "Deck.sampledeck/Media/été.mp3"])
        let deck = target.appendingPathComponent("Deck.sampledeck")
        #expect(try Data(contentsOf: deck.appendingPathComponent("store.sqlite")) == store)
        #expect(try Data(contentsOf: deck.appendingPathComponent("Media/été.mp3")) == Data("audio".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == ["Deck.sampledeck"])
        let mode = try FileManager.default.attributesOfItem(atPath: deck.appendingPathComponent("manifest.json").path)[.posixPermissions] as? Int
        #expect(mode.map { $0 & 0o7022 } == 0)
    }

    @Test(arguments: backends)
    func keepsWhatIsAlreadyThereAndNeverReplacesIt(backend: ArchiveExtractor.Backend) throws {
        let dir = try TemporaryDirectory()
        let archive = try writeDeck(dir, format: .zip)
        let target = try dir.makeDirectory("out")
        try dir.write("out/other.txt", Data("mine".utf8))
        try ArchiveExtractor.extract(archive, into: target, limits: .default, topLevel: "Deck.sampledeck", allow: nil, backend: backend)
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).sorted() == ["Deck.sampledeck", "other.txt"])
        // A second extraction would replace the deck: refused, and the first copy is untouched.
        try dir.write("out/Deck.sampledeck/manifest.json", Data("edited".utf8))
        #expect { try ArchiveExtractor.extract(archive, into: target, limits: .default, topLevel: .any, allow: nil, backend: backend) } throws: {
            ($0 as? ArchiveError)?.kind == .alreadyExists && ($0 as? ArchiveError)?.entry == "Deck.sampledeck"
        }
        #expect(try Data(contentsOf: target.appendingPathComponent("Deck.sampledeck/manifest.json")) == Data("edited".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).sorted() == ["Deck.sampledeck", "other.txt"])
    }

    @Test func allowListRefusesAnEntryByName() throws {
        let dir = try TemporaryDirectory()
        let archive = try writeDeck(dir, format: .tarGzip)
        let target = try dir.makeDirectory("out")
        #expect {
            try ArchiveExtractor.extract(archive, into: target, allow: { !$0.hasSuffix(".mp3") })
        } throws: { ($0 as? ArchiveError)?.kind == .unsafeEntry(name: "Deck.sampledeck/Media/été.mp3") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == [])
    }

    @Test func namedTopLevelRefusesAnotherName() throws {
        let dir = try TemporaryDirectory()
        let archive = try writeDeck(dir, format: .zip, name: "Other.sampledeck")
        let target = try dir.makeDirectory("out")
        #expect { try ArchiveExtractor.extract(archive, into: target, topLevel: "Deck.sampledeck") } throws: {
            ($0 as? ArchiveError)?.kind == .unsafeEntry(name: "Other.sampledeck/")
                || ($0 as? ArchiveError)?.kind == .unsafeEntry(name: "Other.sampledeck")
        }
    }

    /// `bsdtar -C deck .` writes `./` and `./name` entries: accepted, the `./` dropped.
    @Test(arguments: backends)
    func acceptsDotSlashNames(backend: ArchiveExtractor.Backend) throws {
        let dir = try TemporaryDirectory()
        try dir.write("src/manifest.json", Data("{}".utf8))
        try dir.write("src/Media/a.txt", Data("a".utf8))
        #expect(try run("bsdtar", ["-czf", dir.path("dot.tar.gz").path, "-C", dir.path("src").path, "."]).status == 0)
        let target = try dir.makeDirectory("out")
        let names = try ArchiveExtractor.extract(dir.path("dot.tar.gz"), into: target, limits: .default, topLevel: .any, allow: nil, backend: backend)
        #expect(Set(names) == ["manifest.json", "Media", "Media/a.txt"])
        #expect(try Data(contentsOf: target.appendingPathComponent("Media/a.txt")) == Data("a".utf8))
    }

    /// Tar writers may put a directory's entry after its contents.
    @Test(arguments: backends)
    func acceptsADirectoryEntryAfterItsContents(backend: ArchiveExtractor.Backend) throws {
        let dir = try TemporaryDirectory()
        let script = """
        import io, sys, tarfile
        with tarfile.open(sys.argv[1], "w:gz") as t:
            data = b"front,back\\n"
            info = tarfile.TarInfo("D.sampledeck/Media/cards.csv"); info.size = len(data)
            t.addfile(info, io.BytesIO(data))
            for name in ("D.sampledeck/Media", "D.sampledeck"):
                info = tarfile.TarInfo(name); info.type = tarfile.DIRTYPE; info.mode = 0o755
                t.addfile(info)
        """
        let made = try run("python3", ["-c", script, dir.path("late.tar.gz").path])
        #expect(made.status == 0, "\(made.output)")
        let target = try dir.makeDirectory("out")
        let names = try ArchiveExtractor.extract(dir.path("late.tar.gz"), into: target, limits: .default,
                                                 topLevel: .single { _ in true }, allow: nil, backend: backend)
        #expect(names == ["D.sampledeck/Media/cards.csv", "D.sampledeck/Media", "D.sampledeck"])
        #expect(try Data(contentsOf: target.appendingPathComponent("D.sampledeck/Media/cards.csv")) == Data("front,back\n".utf8))
    }

    /// An encrypted zip (there is no passphrase to give): refused, naming the entry, no prompt.
    @Test func refusesEncryptedEntries() throws {
        let dir = try TemporaryDirectory()
        try dir.write("D.sampledeck/secret.txt", Data("secret".utf8))
        let made = try run("zip", ["-q", "-P", "password", "enc.zip", "D.sampledeck/secret.txt"], in: dir.url)
        #expect(made.status == 0, "\(made.output)")
        let target = try dir.makeDirectory("out")
        #expect { try ArchiveExtractor.extract(dir.path("enc.zip"), into: target) } throws: { error in
            (error as? ArchiveError)?.kind == .malformed && (error as? ArchiveError)?.entry == "D.sampledeck/secret.txt"
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == [])
    }

    /// Declared sizes within every limit but the expansion ratio: refused before writing.
    @Test func refusesABombByItsDeclaredRatio() throws {
        let dir = try TemporaryDirectory()
        let target = try dir.makeDirectory("out")
        let limits = ArchiveLimits(maxExpansionRatio: 100, expansionRatioThreshold: 1 << 20)
        #expect { try ArchiveExtractor.extract(HostileArchiveTests.corpus.appendingPathComponent("bomb.zip"), into: target, limits: limits) } throws: {
            ($0 as? ArchiveError)?.kind == .limitExceeded && ($0 as? ArchiveError)?.entry == "Deck.sampledeck/store.sqlite"
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == [])
    }

    /// With default limits, a lying header is caught by counting the bytes as they are
    /// written; what was written before is removed.
    @Test(arguments: backends)
    func removesPartialOutputWhenDataLies(backend: ArchiveExtractor.Backend) throws {
        let dir = try TemporaryDirectory()
        let target = try dir.makeDirectory("out")
        #expect {
            try ArchiveExtractor.extract(HostileArchiveTests.corpus.appendingPathComponent("size-lies.zip"), into: target,
                                         limits: .default, topLevel: .any, allow: nil, backend: backend)
        } throws: { ($0 as? ArchiveError)?.kind == .malformed }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == [])
    }

    @Test func missingDestinationIsAnIOError() throws {
        let dir = try TemporaryDirectory()
        let archive = try writeDeck(dir, format: .zip)
        #expect { try ArchiveExtractor.extract(archive, into: dir.path("absent")) } throws: { ($0 as? ArchiveError)?.kind == .io }
        #expect { try ArchiveExtractor.extract(archive, into: archive) } throws: { ($0 as? ArchiveError)?.kind == .io }
    }

    @Test func privateWorkingDirectoryLeavesTheProcessAlone() throws {
        let dir = try TemporaryDirectory()
        let before = FileManager.default.currentDirectoryPath
        let (changed, inside) = try PrivateWorkingDirectory.run(in: dir.url) { changed in
            (changed, FileManager.default.currentDirectoryPath)
        }
        if changed {
            #expect(URL(fileURLWithPath: inside).resolvingSymlinksInPath() == dir.url.resolvingSymlinksInPath())
        }
        #expect(FileManager.default.currentDirectoryPath == before)
    }

    @Test func errorsThrownOnTheWorkerThreadReachTheCaller() {
        #expect { try PrivateWorkingDirectory.run(in: URL(fileURLWithPath: "/")) { _ in
            throw ArchiveError(.io, path: "x", reason: "boom")
        } } throws: { ($0 as? ArchiveError)?.reason == "boom" }
    }
}
