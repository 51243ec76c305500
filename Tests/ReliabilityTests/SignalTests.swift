import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Signals, temporaries and publishing outputs (issue 17, items 5 and 6): SIGINT, SIGTERM,
/// SIGHUP and a reader going away at random moments leave nothing behind; of two writers to
/// one output exactly one wins; an output name that can't be created is refused; the
/// leftovers of a SIGKILLed run are swept by the next run, and nothing else is.
///
/// `make test` runs the short form (`RELIABILITY_SIGNALS` 36 signals, `RELIABILITY_RACES`
/// 5 races per command); `make reliability` sets 300 and 20.
@Suite(.tags(.reliability), .serialized)
struct SignalTests {
    static var signals: Int { Int(ProcessInfo.processInfo.environment["RELIABILITY_SIGNALS"] ?? "") ?? 36 }
    static var races: Int { Int(ProcessInfo.processInfo.environment["RELIABILITY_RACES"] ?? "") ?? 5 }
    static var seed: UInt64 {
        UInt64(ProcessInfo.processInfo.environment["RELIABILITY_SEED"] ?? "") ?? UInt64(Date().timeIntervalSince1970)
    }

    @Test("SIGINT, SIGTERM, SIGHUP and a closed pipe at random moments of export, archive, convert, import, migrate, unarchive and create leave nothing behind")
    func signalsLeaveNothingBehind() throws {
        let scratch = try Scratch("signals")
        let seed = Self.seed
        var harness = SignalInjection(directory: scratch.url, seed: seed)
        let report = try harness.run(signals: Self.signals)
        print("signal injection (seed \(seed)): \(report)")
        #expect(report.failures.isEmpty, "seed \(seed): \(report.failures.joined(separator: "\n"))")
        #expect(report.total > 0, "no signal landed before the commands finished: \(report)")
    }

    /// Two processes started together write one output: exactly one exits 0, the other 73,
    /// and the output is the winner's, whole.
    @Test(arguments: ["export", "archive", "create", "unarchive", "convert"])
    func twoWritersToOneOutput(_ command: String) throws {
        let scratch = try Scratch("race")
        var text = "front,back\n"
        for row in 0..<300 { text += "front \(row),back \(row)\n" }
        try scratch.write("cards.csv", text)
        #expect(try scratch.run("import", "D.sampledeck", "cards.csv", "--create", "--quiet").status == 0)
        #expect(try scratch.run("archive", "D.sampledeck", "-o", "D.zip", "--quiet").status == 0)
        for round in 0..<Self.races {
            let out = scratch.path("out-\(round)")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let arguments: [String]
            let output: String
            switch command {
            case "export": (arguments, output) = (["export", "D.sampledeck", "-o", "out-\(round)/cards.json"], "cards.json")
            case "archive": (arguments, output) = (["archive", "D.sampledeck", "-o", "out-\(round)/D.zip"], "D.zip")
            case "create": (arguments, output) = (["create", "out-\(round)/New.sampledeck"], "New.sampledeck")
            case "convert": (arguments, output) = (["convert", "D.sampledeck", "--to", "json", "--out-dir", "out-\(round)"], "D.json")
            default: (arguments, output) = (["unarchive", "D.zip", "-C", "out-\(round)"], "D.sampledeck")
            }
            let first = try DeckBinary.start(arguments, in: scratch.url)
            let second = try DeckBinary.start(arguments, in: scratch.url)
            let results = [first.wait(timeout: 120), second.wait(timeout: 120)]
            let statuses = results.map { $0.signaled ? -$0.status : $0.status }.sorted()
            #expect(statuses == [0, 73], "round \(round): \(results)")
            let loser = results.first { $0.status == 73 }
            // convert reports each input on standard output, then the count on standard error.
            #expect((loser.map { $0.stderr + $0.stdout } ?? "").contains("already exists"), "round \(round): \(results)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == [output], "round \(round): one output, nothing else")
            switch command {
            case "export", "convert":
                let object = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent(output))) as? [String: Any]
                #expect((object?["notes"] as? [Any])?.count == 300, "round \(round): the output is whole")
            case "archive":
                #expect(try scratch.run("info", "out-\(round)/D.zip").status == 0, "round \(round): the archive is whole")
            default:
                #expect(try scratch.run("check", "out-\(round)/\(output)").status == 0, "round \(round): the deck is whole")
            }
        }
    }

    /// An output that is a dangling symbolic link is refused (exit 73, the link left as it
    /// was, its target never created); so is a name ending in `/`.
    @Test func outputsThatCannotBeCreatedAreRefused() throws {
        let scratch = try Scratch("outputs")
        #expect(try scratch.run("create", "D.sampledeck", "--quiet").status == 0)
        #expect(try scratch.run("archive", "D.sampledeck", "-o", "D.zip", "--quiet").status == 0)
        try FileManager.default.createDirectory(at: scratch.path("x"), withIntermediateDirectories: true)
        let cases: [(link: String, arguments: [String])] = [
            ("out.json", ["export", "D.sampledeck", "-o", "out.json"]),
            ("out.zip", ["archive", "D.sampledeck", "-o", "out.zip"]),
            ("New.sampledeck", ["create", "New.sampledeck"]),
            ("x/D.sampledeck", ["unarchive", "D.zip", "-C", "x"]),
        ]
        for (link, arguments) in cases {
            try FileManager.default.createSymbolicLink(atPath: scratch.path(link).path, withDestinationPath: "created-through-the-link")
            let run = try DeckBinary.run(arguments, in: scratch.url)
            #expect(run.status == 73 && !run.signaled, "\(arguments): \(run)")
            #expect(run.stderr.contains("already exists"), "\(arguments): \(run)")
            #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.path(link).path) == "created-through-the-link",
                    "\(arguments): the link is left as it was")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("created-through-the-link").path), "\(arguments): no target created")
            try FileManager.default.removeItem(at: scratch.path(link))
        }
        for arguments in [["archive", "D.sampledeck", "-o", "newdir/"], ["export", "D.sampledeck", "-o", "newdir/", "--format", "csv"],
                          ["archive", "D.sampledeck", "-o", "x/"]] {
            let run = try DeckBinary.run(arguments, in: scratch.url)
            #expect(run.status == 73 && !run.signaled, "\(arguments): \(run)")
            #expect(run.stderr.contains("ends in /"), "\(arguments): \(run)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("newdir").path), "\(arguments): no file named newdir")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("x").path).isEmpty, "nothing written into x")
    }

    /// `migrate` never deletes what it did not create at its backup path: a dangling link
    /// (or anything else) there is passed over for the next name.
    @Test func migrateKeepsWhatIsAtItsBackupPath() throws {
        let scratch = try Scratch("migrate-backup")
        let fixture = DeckBinary.packageRoot.appendingPathComponent("Fixtures/decks/v0/Vocabulary.sampledeck")
        try FileManager.default.copyItem(at: fixture, to: scratch.path("Vocabulary.sampledeck"))
        try FileManager.default.createSymbolicLink(atPath: scratch.path("Vocabulary.sampledeck.backup-v0").path, withDestinationPath: "missing")
        try scratch.write("Vocabulary.sampledeck.backup-v0-2", "someone else's file")
        let run = try scratch.run("migrate", "Vocabulary.sampledeck")
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("Vocabulary.sampledeck.backup-v0-3"), "the next free name: \(run.stdout)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.path("Vocabulary.sampledeck.backup-v0").path) == "missing")
        #expect(try String(contentsOf: scratch.path("Vocabulary.sampledeck.backup-v0-2"), encoding: .utf8) == "someone else's file")
        var original = try SignalInjection.tree(fixture)
        original[".lock"] = nil
        #expect(try SignalInjection.tree(scratch.path("Vocabulary.sampledeck.backup-v0-3")) == original, "the backup is the old deck")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("missing").path))
        #expect(try scratch.listing().filter { $0.hasPrefix(".") }.isEmpty, "no temporaries left: \(try scratch.listing())")
    }

    /// What a SIGKILLed run leaves is hidden and swept by the next run of the command: its
    /// temporaries beside the output and in TMPDIR. Nothing else is touched: not names the
    /// tool does not make, not another command's output's, not a live process's.
    @Test func leftoversOfKilledRunsAreSweptAndNothingElse() throws {
        let scratch = try Scratch("leftovers")
        #expect(try scratch.run("create", "D.sampledeck", "--quiet").status == 0)
        let tmp = scratch.path("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        // A process id that is gone: a child that has exited.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let dead = child.processIdentifier
        let live = getpid()
        let swept = [".out.json.partial-\(dead)-a1B2c3", ".out.json.staging-\(dead)-Zz9Yy8",
                     "tmp/.deck-export.staging-\(dead)-q1w2e3", "tmp/.deck-anki-writer.staging-\(dead)-r4t5y6"]
        let kept = [".out.json.partial-\(live)-a1B2c3",       // a running process's
                    ".other.json.partial-\(dead)-a1B2c3",     // another output's
                    ".out.json.partial-\(dead)-a1B2",         // not a name the tool makes
                    "out.json.partial-\(dead)-a1B2c3",        // not hidden
                    ".out.json.staging-\(dead)-k9k9k9",       // a file where the tool makes a folder
                    "tmp/.mine.staging-\(dead)-u7i8o9",       // not the tool's base name
                    "tmp/.deck-export.partial-\(dead)-p0p0p0/"] // a folder where the tool makes a file
        for name in swept + kept {
            let url = scratch.path(name.hasSuffix("/") ? String(name.dropLast()) : name)
            if name.contains(".staging-") && !name.contains("k9k9k9") || name.hasSuffix("/") {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
                try Data("x".utf8).write(to: url.appendingPathComponent("inside"))
            } else {
                try Data("x".utf8).write(to: url)
            }
        }
        let run = try DeckBinary.start(["export", "D.sampledeck", "-o", "out.json"], in: scratch.url,
                                       environment: ["TMPDIR": tmp.path]).wait(timeout: 120)
        #expect(run.status == 0, "\(run)")
        for name in swept {
            #expect(!FileManager.default.fileExists(atPath: scratch.path(name).path), "\(name) is swept")
        }
        for name in kept {
            #expect(FileManager.default.fileExists(atPath: scratch.path(name).path), "\(name) is left alone")
        }

        // A real SIGKILL: whatever the killed archive left beside its output is gone after the next archive.
        var text = "front,back\n"
        for row in 0..<3000 { text += "front \(row) \(String(repeating: "y", count: 60)),back \(row)\n" }
        try scratch.write("cards.csv", text)
        #expect(try scratch.run("import", "D.sampledeck", "cards.csv", "--quiet").status == 0)
        let folder = scratch.path("killed")
        var leftBehind = 0
        for round in 0..<8 {
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let killed = try DeckBinary.start(["archive", "D.sampledeck", "-o", "killed/D.zip"], in: scratch.url,
                                              environment: ["TMPDIR": tmp.path])
            usleep(UInt32(20_000 + round * 25_000))
            killed.kill()
            _ = killed.wait(timeout: 120)
            leftBehind += try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }.count
            try? FileManager.default.removeItem(at: folder.appendingPathComponent("D.zip"))
            let again = try DeckBinary.start(["archive", "D.sampledeck", "-o", "killed/D.zip"], in: scratch.url,
                                             environment: ["TMPDIR": tmp.path]).wait(timeout: 120)
            #expect(again.status == 0, "\(again)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["D.zip"], "round \(round): swept")
        }
        print("SIGKILLed archives left \(leftBehind) hidden temporaries, all swept by the next archive")
    }
}
