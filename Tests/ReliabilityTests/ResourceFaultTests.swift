import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A disk that fills during a save or an archive, and a read-only directory: a clear error,
/// the deck unchanged and still valid, and nothing half-written at the destination.
///
/// As root the faults are real: a 4 MiB tmpfs fills up (a new version 2 store takes about 700 KiB: 16 KiB pages), and a tmpfs remounted read-only
/// refuses writes (EROFS). Otherwise a file-size limit (RLIMIT_FSIZE, with SIGXFSZ ignored)
/// stands in for the full disk and `chmod 555` for the read-only directory.
@Suite(.tags(.reliability))
struct ResourceFaultTests {
    /// A small file system of its own when possible.
    final class SmallVolume {
        let url: URL
        let isMounted: Bool

        init(in scratch: Scratch, kilobytes: Int) throws {
            url = scratch.path("volume")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            isMounted = getuid() == 0 && Self.mount(["-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0777", "tmpfs", url.path])
        }

        /// Remounts the volume read-only (true EROFS); false when that is not possible.
        func makeReadOnly() -> Bool {
            isMounted && Self.mount(["-o", "remount,ro", url.path])
        }

        deinit {
            if isMounted { _ = Self.run("/usr/bin/umount", ["-l", url.path]) }
        }

        private static func mount(_ arguments: [String]) -> Bool { run("/usr/bin/mount", arguments) }

        private static func run(_ tool: String, _ arguments: [String]) -> Bool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
    }

    /// The observable state of a deck: its cards and manifest.
    struct DeckSnapshot: Equatable {
        var cards: [Int64: ListedCard]
        var manifest: Data
    }

    static func snapshot(_ deck: String, in directory: URL) throws -> DeckSnapshot {
        DeckSnapshot(cards: try DeckState.cards(of: deck, in: directory),
                     manifest: try Data(contentsOf: directory.appendingPathComponent(deck).appendingPathComponent("manifest.json")))
    }

    /// A CSV of `rows` rows of about 1 KiB each (outside the small volume).
    static func bigCSV(at url: URL, rows: Int) throws {
        var text = "front,back\n"
        let filler = String(repeating: "x", count: 1000)
        for row in 0..<rows { text += "front \(row) \(filler),back \(row)\n" }
        try Data(text.utf8).write(to: url)
    }

    /// Runs deck with a file-size limit when there is no small volume (`ulimit -f` counts 1 KiB blocks).
    static func limited(_ volume: SmallVolume, kilobytes: Int) -> String? {
        volume.isMounted ? nil : "trap '' XFSZ; ulimit -f \(kilobytes)"
    }

    @Test("disk full during an import: a clear error, and the deck keeps its cards and stays valid")
    func diskFullDuringSave() throws {
        let scratch = try Scratch("diskfull")
        let volume = try SmallVolume(in: scratch, kilobytes: 4096)
        let deck = "volume/D.sampledeck"
        #expect(try scratch.run("create", deck).status == 0)
        #expect(try scratch.run("add", deck, "--front", "kept", "--back", "safe").status == 0)
        let before = try Self.snapshot(deck, in: scratch.url)
        try Self.bigCSV(at: scratch.path("big.csv"), rows: 9000)
        let size = (try? FileManager.default.attributesOfItem(atPath: scratch.path(deck + "/Deck.sqlite").path)[.size] as? Int) ?? 0
        let run = try DeckBinary.run(["import", deck, "big.csv"], in: scratch.url,
                                     shellPrefix: Self.limited(volume, kilobytes: size / 1024 + 256))
        #expect(!run.signaled && run.status != 0, "import into a full disk: \(run)")
        #expect(run.status == 74 || run.status == 73, "\(run)")
        #expect(run.stderr.hasPrefix("deck: error: ") && run.stderr.contains("D.sampledeck"), "\(run.stderr)")
        #expect(try Self.snapshot(deck, in: scratch.url) == before)
        #expect(try DeckState.problems(of: deck, in: scratch.url).isEmpty)
        // Once there is room again, the same import succeeds.
        if volume.isMounted {
            let retry = try DeckBinary.run(["import", deck, "big.csv"], in: scratch.url, shellPrefix: nil)
            let count = try DeckState.cards(of: deck, in: scratch.url).count
            #expect(retry.status != 0 || count == 3001)
        }
        print("disk full during save (\(volume.isMounted ? "4 MiB tmpfs" : "RLIMIT_FSIZE")): \(run)")
    }

    @Test("disk full when a writer opens the deck: exit 74 (not 65, the deck is not damaged), one line, the deck unchanged")
    func diskFullAtOpen() throws {
        let scratch = try Scratch("diskfull")
        let volume = try SmallVolume(in: scratch, kilobytes: 2048)
        let deck = "volume/D.sampledeck"
        #expect(try scratch.run("create", deck).status == 0)
        #expect(try scratch.run("add", deck, "--front", "kept", "--back", "safe").status == 0)
        let before = try Self.snapshot(deck, in: scratch.url)
        let filler = scratch.path("volume/filler")
        if volume.isMounted {
            // Fill the volume: writes of 64 KiB until the file system refuses.
            let handle = try FileHandle(forWritingTo: { FileManager.default.createFile(atPath: filler.path, contents: nil); return filler }())
            let block = Data(count: 65_536)
            while (try? handle.write(contentsOf: block)) != nil {}
            try? handle.close()
        }
        let run = try DeckBinary.run(["add", deck, "--front", "new", "--back", "card"], in: scratch.url,
                                     shellPrefix: Self.limited(volume, kilobytes: 0))
        #expect(!run.signaled && run.status == 74, "open for writing on a full disk: \(run)")
        #expect(run.stderr.hasPrefix("deck: error: ") && run.stderr.contains("D.sampledeck"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        try? FileManager.default.removeItem(at: filler)
        #expect(try Self.snapshot(deck, in: scratch.url) == before)
        #expect(try DeckState.problems(of: deck, in: scratch.url).isEmpty)
    }

    @Test("disk full during an archive: a clear error and nothing at the destination")
    func diskFullDuringArchive() throws {
        let scratch = try Scratch("diskfull")
        let volume = try SmallVolume(in: scratch, kilobytes: 1024)
        #expect(try scratch.run("create", "D.sampledeck").status == 0)
        try Self.bigCSV(at: scratch.path("big.csv"), rows: 2000)
        #expect(try scratch.run("import", "D.sampledeck", "big.csv").status == 0)
        // Random bytes do not compress: the archive needs about as much room as the store.
        var noise = Data(count: 0)
        for _ in 0..<2000 { noise.append(contentsOf: (0..<1000).map { _ in UInt8.random(in: 0...255) }) }
        let csv = "front,back\n" + noise.base64EncodedString().split(by: 1300).enumerated().map { "n\($0.offset),\($0.element)" }.joined(separator: "\n")
        try Data(csv.utf8).write(to: scratch.path("noise.csv"))
        #expect(try scratch.run("import", "D.sampledeck", "noise.csv").status == 0)
        let before = try Self.snapshot("D.sampledeck", in: scratch.url)
        let run = try DeckBinary.run(["archive", "D.sampledeck", "-o", "volume/D.zip"], in: scratch.url,
                                     shellPrefix: Self.limited(volume, kilobytes: 512))
        #expect(!run.signaled && (run.status == 74 || run.status == 73), "archive onto a full disk: \(run)")
        #expect(run.stderr.hasPrefix("deck: error: "), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("volume/D.zip").path), "a partial archive is at the destination")
        let leftovers = (try FileManager.default.contentsOfDirectory(atPath: scratch.path("volume").path))
        #expect(leftovers.isEmpty, "temporary files left on the full volume: \(leftovers)")
        #expect(try Self.snapshot("D.sampledeck", in: scratch.url) == before)
        #expect(try DeckState.problems(of: "D.sampledeck", in: scratch.url).isEmpty)
        print("disk full during archive (\(volume.isMounted ? "4 MiB tmpfs" : "RLIMIT_FSIZE")): \(run)")
    }

    @Test("a deck in a read-only directory: writes fail clearly, reads work, the deck is unchanged")
    func readOnlyDirectory() throws {
        let scratch = try Scratch("readonly")
        let volume = try SmallVolume(in: scratch, kilobytes: 4096)
        let deck = "volume/D.sampledeck"
        #expect(try scratch.run("create", deck).status == 0)
        #expect(try scratch.run("add", deck, "--front", "kept", "--back", "safe").status == 0)
        let before = try Self.snapshot(deck, in: scratch.url)
        let files = DeckState.fingerprint(of: scratch.path(deck))
        var launcher: [String] = []
        if !volume.makeReadOnly() {
            _ = chmod(scratch.path(deck).path, 0o555)
            _ = chmod(scratch.path("volume").path, 0o555)
            if getuid() == 0 { launcher = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] }
        }
        let writes: [[String]] = [
            ["add", deck, "--front", "new", "--back", "card"],
            ["edit", deck, "1", "--front", "changed"],
            ["rm", deck, "1"],
            ["import", deck, "small.csv"],
            ["archive", deck, "-o", "volume/D.zip"],
            ["create", "volume/E.sampledeck"],
        ]
        try scratch.write("small.csv", "front,back\na,b\n")
        _ = chmod(scratch.url.path, 0o755)
        for arguments in writes {
            let run = try DeckBinary.run(arguments, in: scratch.url, launcher: launcher)
            #expect(!run.signaled && (run.status == 73 || run.status == 74), "\(arguments): \(run)")
            #expect(run.stderr.hasPrefix("deck: error: ") && run.stderr.contains("volume/"), "\(arguments): \(run.stderr)")
        }
        for arguments in [["list", deck], ["check", deck], ["info", deck], ["search", deck, "kept"]] {
            let run = try DeckBinary.run(arguments, in: scratch.url, launcher: launcher)
            #expect(run.status == 0, "\(arguments) on a read-only deck: \(run)")
        }
        #expect(DeckState.fingerprint(of: scratch.path(deck)) == files)
        #expect(try Self.snapshot(deck, in: scratch.url) == before)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("volume/D.zip").path))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("volume/E.sampledeck").path))
    }
}

extension String {
    /// The string cut into pieces of at most `length` characters.
    func split(by length: Int) -> [Substring] {
        var pieces: [Substring] = []
        var start = startIndex
        while start < endIndex {
            let end = index(start, offsetBy: length, limitedBy: endIndex) ?? endIndex
            pieces.append(self[start..<end])
            start = end
        }
        return pieces
    }
}
