import Foundation
import Testing

/// Deck archives against real peers (bsdtar, unzip, Python's zipfile), streams, format
/// inference, and hostile archives read in place.
@Suite struct ArchiveInteropTests {
    /// Runs a program from PATH in `directory`.
    @discardableResult
    static func peer(_ arguments: [String], in directory: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The French deck with a media file beside its store.
    private func deckWithMedia(_ play: Playground) throws -> Data {
        try play.frenchDeck()
        let media = play.url.appendingPathComponent("French.sampledeck/Media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let bytes = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try bytes.write(to: media.appendingPathComponent("sound.bin"))
        return bytes
    }

    private func cards(_ play: Playground, _ deck: String) throws -> String {
        let list = try play.run("list", deck, "--format", "tsv")
        #expect(list.status == 0, "\(deck): \(list.stderr)")
        return list.stdout
    }

    @Test(arguments: ["zip", "tar.gz", "tar.xz", "tar.zst"])
    func bsdtarListsAndExtractsOurArchives(_ format: String) throws {
        let play = try Playground()
        let media = try deckWithMedia(play)
        #expect(try play.run("archive", "French.sampledeck", "-o", "French.\(format)").status == 0)
        let listing = try Self.peer(["bsdtar", "-tf", "French.\(format)"], in: play.url)
        #expect(listing.status == 0, "\(listing.output)")
        #expect(listing.output.split(separator: "\n").map(String.init).filter { !$0.hasSuffix("/") }.sorted()
                == ["French.sampledeck/Deck.sqlite", "French.sampledeck/Media/sound.bin", "French.sampledeck/manifest.json"])
        try FileManager.default.createDirectory(at: play.url.appendingPathComponent("peer"), withIntermediateDirectories: false)
        let extract = try Self.peer(["bsdtar", "-xf", "French.\(format)", "-C", "peer"], in: play.url)
        #expect(extract.status == 0, "\(extract.output)")
        #expect(try cards(play, "peer/French.sampledeck") == cards(play, "French.sampledeck"))
        #expect(try Data(contentsOf: play.url.appendingPathComponent("peer/French.sampledeck/Media/sound.bin")) == media)
        #expect(try play.run("check", "peer/French.sampledeck").status == 0)
    }

    @Test func unzipAndPythonZipfileReadOurZip() throws {
        let play = try Playground()
        _ = try deckWithMedia(play)
        #expect(try play.run("archive", "French.sampledeck").status == 0)
        let unzip = try Self.peer(["unzip", "-t", "French.sampledeck.zip"], in: play.url)
        #expect(unzip.status == 0)
        #expect(unzip.output.contains("No errors detected"), "\(unzip.output)")
        let python = try Self.peer(["python3", "-c", """
            import zipfile, sys
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            print("\\n".join(sorted(n for n in z.namelist() if not n.endswith("/"))))
            print(len(z.read("French.sampledeck/Media/sound.bin")))
            """, "French.sampledeck.zip"], in: play.url)
        #expect(python.status == 0, "\(python.output)")
        #expect(python.output == "French.sampledeck/Deck.sqlite\nFrench.sampledeck/Media/sound.bin\nFrench.sampledeck/manifest.json\n50000\n")
    }

    @Test(arguments: [
        ["zip", "-qr", "Peer.zip", "French.sampledeck"],
        ["bsdtar", "-czf", "Peer.tgz", "French.sampledeck"],
        ["bsdtar", "--format", "zip", "-cf", "Peer.zip", "French.sampledeck"],
        ["bsdtar", "--zstd", "-cf", "Peer.tar.zst", "French.sampledeck"],
    ])
    func packagesArchivedByPeersAreAccepted(_ command: [String]) throws {
        let play = try Playground()
        let media = try deckWithMedia(play)
        let made = try Self.peer(command, in: play.url)
        #expect(made.status == 0, "\(made.output)")
        let archive = command[command.count - 2]
        let info = try play.run("info", archive, "--json")
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("\"cards\": 43"))
        try FileManager.default.createDirectory(at: play.url.appendingPathComponent("out"), withIntermediateDirectories: false)
        let extracted = try play.run("unarchive", archive, "-C", "out")
        #expect(extracted.status == 0, "\(extracted.stderr)")
        #expect(extracted.stdout == "extracted out/French.sampledeck\n")
        #expect(try cards(play, "out/French.sampledeck") == cards(play, "French.sampledeck"))
        #expect(try Data(contentsOf: play.url.appendingPathComponent("out/French.sampledeck/Media/sound.bin")) == media)
    }

    @Test func standardOutputAndInputStreams() throws {
        let play = try Playground()
        _ = try deckWithMedia(play)
        #expect(try play.run("archive", "French.sampledeck", "-o", "file.tar.gz").status == 0)
        let streamed = try play.run("archive", "French.sampledeck", "-o", "-", "--format", "tar.gz")
        #expect(streamed.status == 0, "\(streamed.stderr)")
        #expect(streamed.stderr.isEmpty)
        let file = try Data(contentsOf: play.url.appendingPathComponent("file.tar.gz"))
        #expect(Data(streamed.stdout.utf8).count > 0)
        try FileManager.default.createDirectory(at: play.url.appendingPathComponent("out"), withIntermediateDirectories: false)
        let fromStdin = try DeckProcess.run(["unarchive", "-", "-C", "out"], in: play.url, stdinData: file)
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        #expect(try cards(play, "out/French.sampledeck") == cards(play, "French.sampledeck"))
        let garbage = try DeckProcess.run(["unarchive", "-", "-C", "out"], in: play.url, stdin: "not an archive")
        #expect(garbage.status == 65)
        #expect(garbage.stderr.hasPrefix("deck: error: -: "))
    }

    @Test func archivesAreReadInPlaceByEveryReadingCommand() throws {
        let play = try Playground()
        _ = try deckWithMedia(play)
        #expect(try play.run("archive", "French.sampledeck", "-o", "French.tar.xz").status == 0)
        for (deckArguments, archiveArguments) in [
            (["list", "French.sampledeck", "--format", "json"], ["list", "French.tar.xz", "--format", "json"]),
            (["search", "French.sampledeck", "venir", "--format", "tsv"], ["search", "French.tar.xz", "venir", "--format", "tsv"]),
            (["export", "French.sampledeck", "-o", "-", "--format", "tsv"], ["export", "French.tar.xz", "-o", "-", "--format", "tsv"]),
        ] {
            let fromDeck = try play.run(deckArguments), fromArchive = try play.run(archiveArguments)
            #expect(fromArchive.status == 0, "\(archiveArguments): \(fromArchive.stderr)")
            #expect(fromArchive.stdout == fromDeck.stdout, "\(archiveArguments)")
            #expect(!fromArchive.stdout.isEmpty)
        }
        let check = try play.run("check", "French.tar.xz")
        #expect(check.status == 0)
        #expect(check.stdout.hasPrefix("French.tar.xz: "))
        let write = try play.run("add", "French.tar.xz", "--front", "x", "--back", "y")
        #expect(write.status == 65, "an archive is read-only: \(write.stderr)")
        #expect(write.stderr.hasPrefix("deck: error: French.tar.xz: "))
        #expect(try FileManager.default.contentsOfDirectory(atPath: play.url.path).sorted() == ["French.sampledeck", "French.tar.xz"])
    }

    @Test func archivingTheSameDeckTwiceGivesTheSameBytes() throws {
        let play = try Playground()
        _ = try deckWithMedia(play)
        for format in ["zip", "tar.zst"] {
            #expect(try play.run("archive", "French.sampledeck", "-o", "a.\(format)").status == 0)
            #expect(try play.run("archive", "French.sampledeck", "-o", "b.\(format)").status == 0)
            let a = try Data(contentsOf: play.url.appendingPathComponent("a.\(format)"))
            #expect(a == (try Data(contentsOf: play.url.appendingPathComponent("b.\(format)"))), "\(format)")
        }
    }

    @Test(arguments: [("x.zip", [0x50, 0x4B]), ("x.tar.gz", [0x1F, 0x8B]), ("x.tgz", [0x1F, 0x8B]),
                      ("x.tar.xz", [0xFD, 0x37, 0x7A, 0x58]), ("x.tar.zst", [0x28, 0xB5, 0x2F, 0xFD]), ("x.deckarchive", [0x50, 0x4B])])
    func theFormatFollowsTheOutputName(_ name: String, _ magic: [UInt8]) throws {
        let play = try Playground()
        #expect(try play.run("create", "D.sampledeck").status == 0)
        let result = try play.run("archive", "D.sampledeck", "-o", name, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = try Data(contentsOf: play.url.appendingPathComponent(name))
        #expect(Array(bytes.prefix(magic.count)) == magic)
        let expected = name.hasSuffix(".tgz") ? "tar.gz" : name.hasSuffix(".deckarchive") ? "zip" : String(name.dropFirst(2))
        #expect(result.stdout == "{\"deck\": \"D.sampledeck\", \"output\": \"\(name)\", \"format\": \"\(expected)\"}\n")
    }

    @Test func archiveOutputErrors() throws {
        let play = try Playground()
        #expect(try play.run("create", "D.sampledeck").status == 0)
        let missingDirectory = try play.run("archive", "D.sampledeck", "-o", "nowhere/D.zip")
        #expect(missingDirectory.status == 73, "\(missingDirectory.stderr)")
        #expect(missingDirectory.stderr.hasPrefix("deck: error: nowhere"))
        let missingDeck = try play.run("archive", "None.sampledeck")
        #expect(missingDeck.status == 66)
        let badFormat = try play.run("archive", "D.sampledeck", "--format", "rar")
        #expect(badFormat.status == 64)
        #expect(try FileManager.default.contentsOfDirectory(atPath: play.url.path) == ["D.sampledeck"])
    }

    @Test func archiveRefusesToWriteToATerminal() throws {
        let play = try Playground()
        #expect(try play.run("create", "D.sampledeck").status == 0)
        let result = try PseudoTerminal.run(["archive", "D.sampledeck", "-o", "-"], in: play.url, steps: [
            PseudoTerminal.Step(expect: "refusing to write an archive to a terminal"),
        ])
        #expect(result.status == 64, "\(result.transcript)")
    }

    @Test func exportOfABinaryFormatRefusesATerminalButTextIsShown() throws {
        let play = try Playground()
        #expect(try play.run("create", "D.sampledeck").status == 0)
        #expect(try play.run("add", "D.sampledeck", "--front", "chat", "--back", "cat").status == 0)
        let binary = try PseudoTerminal.run(["export", "D.sampledeck", "-o", "-", "--format", "apkg"], in: play.url, steps: [
            PseudoTerminal.Step(expect: "refusing to write a binary apkg package to a terminal"),
        ])
        #expect(binary.status == 64, "\(binary.transcript)")
        #expect(!binary.transcript.contains("PK"), "no zip bytes reached the terminal")
        let text = try PseudoTerminal.run(["export", "D.sampledeck", "-o", "-", "--format", "tsv"], in: play.url, steps: [
            PseudoTerminal.Step(expect: "chat"),
        ])
        #expect(text.status == 0, "\(text.transcript)")
        let piped = try play.run("export", "D.sampledeck", "-o", "-", "--format", "apkg")
        #expect(piped.status == 0, "a pipe takes the package: \(piped.stderr)")
    }

    @Test func aProgressBarOnATerminalForLargeDecks() throws {
        let play = try Playground()
        #expect(try play.run("create", "Big.sampledeck").status == 0)
        let media = play.url.appendingPathComponent("Big.sampledeck/Media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        try random.readData(ofLength: 9 << 20).write(to: media.appendingPathComponent("film.bin"))
        try random.close()
        let shown = try PseudoTerminal.run(["archive", "Big.sampledeck", "-o", "a.tar.gz"], in: play.url, steps: [
            PseudoTerminal.Step(expect: "archived Big.sampledeck to a.tar.gz", timeout: 30),
        ])
        #expect(shown.status == 0, "\(shown.transcript)")
        #expect(shown.transcript.contains("Archiving ["), "\(shown.transcript)")
        #expect(shown.transcript.contains(" MiB"), "the bar counts bytes in binary units: \(shown.transcript)")
        let quiet = try PseudoTerminal.run(["archive", "Big.sampledeck", "-o", "b.tar.gz", "--no-progress"], in: play.url, steps: [
            PseudoTerminal.Step(expect: "archived Big.sampledeck to b.tar.gz", timeout: 30),
        ])
        #expect(quiet.status == 0)
        #expect(!quiet.transcript.contains("Archiving"))
        let piped = try play.run("archive", "Big.sampledeck", "-o", "c.tar.gz")
        #expect(piped.stderr.isEmpty, "no progress bar when stderr is not a terminal")
        // Extracting shows one too.
        try FileManager.default.createDirectory(at: play.url.appendingPathComponent("out"), withIntermediateDirectories: true)
        let extracted = try PseudoTerminal.run(["unarchive", "a.tar.gz", "-C", "out"], in: play.url, steps: [
            PseudoTerminal.Step(expect: "extracted out/Big.sampledeck", timeout: 30),
        ])
        #expect(extracted.status == 0, "\(extracted.transcript)")
        #expect(extracted.transcript.contains("Extracting ["), "\(extracted.transcript)")
        #expect(try play.run("unarchive", "b.tar.gz", "-C", "out").status == 73, "the deck is there already")
    }

    static let hostile = HostileInputTests.hostile

    @Test(arguments: hostile)
    func readingAHostileArchiveInPlaceIsRefused(_ name: String) throws {
        let play = try Playground()
        let temporary = play.url.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
        let archive = DeckProcess.packageRoot.appendingPathComponent("Fixtures/archives/hostile/\(name)").path
        for command in ["info", "list", "check"] {
            let result = try DeckProcess.run([command, archive], in: play.url,
                                             environment: ["TMPDIR": temporary.path, "DECK_ARCHIVE_MAX_ENTRIES": "100"])
            #expect(result.status == 65, "\(command) \(name): \(result.stderr)")
            #expect(result.stderr.hasPrefix("deck: error: \(archive): "))
            #expect(result.stdout.isEmpty)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty, "\(name) left files behind")
        #expect(try FileManager.default.contentsOfDirectory(atPath: play.url.path) == ["tmp"])
    }

    @Test func hostileRefusalsNameTheEntry() throws {
        let play = try Playground()
        try FileManager.default.createDirectory(at: play.url.appendingPathComponent("out"), withIntermediateDirectories: false)
        let expected: [(String, String)] = [
            ("dotdot.zip", "Deck.sampledeck/../../sampledeck-hostile-escape.txt: has a '..' component"),
            ("absolute.tar.gz", "/tmp/sampledeck-hostile-absolute.txt: is an absolute path"),
            ("symlink.zip", "Deck.sampledeck/Media: is a symbolic link"),
            ("hardlink.tar.gz", "Deck.sampledeck/passwd: is a hard link"),
            ("chardev.tar.gz", "Deck.sampledeck/null: is a character device"),
            ("fifo.tar.gz", "Deck.sampledeck/pipe: is a fifo"),
            ("duplicate.zip", "Deck.sampledeck/manifest.json: appears twice"),
            ("two-top-level.zip", "B.sampledeck/manifest.json: is a second top-level entry"),
            ("outside-top-level.tar.gz", "README.txt: is a second top-level entry"),
            ("bomb.zip", "Deck.sampledeck/store.sqlite: the entries declare"),
            ("size-lies.zip", "Deck.sampledeck/store.sqlite: holds more data than"),
            ("too-many-entries.zip", "more than 100 entries"),
        ]
        for (name, message) in expected {
            let archive = DeckProcess.packageRoot.appendingPathComponent("Fixtures/archives/hostile/\(name)").path
            let result = try DeckProcess.run(["unarchive", archive, "-C", "out"], in: play.url,
                                             environment: ["DECK_ARCHIVE_MAX_ENTRIES": "100"])
            #expect(result.status == 65)
            #expect(result.stderr.contains(message), "\(name): \(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: play.url.appendingPathComponent("out").path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/sampledeck-hostile-escape.txt"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/sampledeck-hostile-absolute.txt"))
    }
}
