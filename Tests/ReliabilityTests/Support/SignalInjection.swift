import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Sends SIGINT, SIGTERM and SIGHUP at random moments to every writing `deck` command, and
/// SIGPIPE (a reader that goes away) to `export -o -`, and checks what each leaves: the
/// process ended by that signal or finished (exit 0), nothing left in the output folder, in
/// its private `TMPDIR` or in the package, the input unchanged, the output absent or whole.
///
/// Each child runs with a `TMPDIR` of its own, so anything it leaves there is its own.
/// Delays are drawn uniformly over 0–110 % of the command's measured duration, so signals
/// land anywhere from start-up to the final rename, and some commands finish.
struct SignalInjection {
    enum Operation: String, CaseIterable {
        case exportJSON, exportApkg, exportStdout, archive, convert, `import`, importStdin, migrate, unarchive, unarchiveStdin, create
    }

    struct Report: CustomStringConvertible {
        var signalled: [String: Int] = [:]
        var finished = 0
        var failures: [String] = []
        var seconds = 0.0

        var total: Int { signalled.values.reduce(0, +) }

        var description: String {
            let counts = signalled.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return "\(total) commands ended by a signal (\(counts)), \(finished) finished first, \(failures.count) failures, "
                + String(format: "%.1f s", seconds)
        }
    }

    static let cards = 2000
    static let importRows = 100
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    let directory: URL
    var rng: SplitMix64
    var report = Report()
    private var durations: [Operation: Double] = [:]
    private var counter = 0
    private var importDeckCount = 0
    private var sourceTree: [String: Data] = [:]

    init(directory: URL, seed: UInt64) {
        self.directory = directory
        rng = SplitMix64(seed: seed)
    }

    static let deck = "Source.sampledeck"
    static let importDeck = "Import.sampledeck"

    /// Builds the source deck, its archive and the import deck, then measures each command once.
    mutating func prepare() throws {
        var text = "front,back,tags\n"
        for row in 0..<Self.cards { text += "front \(row) \(String(repeating: "x", count: 40)),back \(row),t\(row % 9)\n" }
        try Data(text.utf8).write(to: directory.appendingPathComponent("cards.csv"))
        for arguments in [["import", Self.deck, "cards.csv", "--create", "--quiet"],
                          ["archive", Self.deck, "-o", "Source.zip", "--quiet"],
                          ["export", Self.deck, "-o", "Source.json", "--quiet"],
                          ["create", Self.importDeck, "--quiet"]] {
            let run = try DeckBinary.run(arguments, in: directory)
            guard run.status == 0, !run.signaled else { throw StateError("\(arguments.joined(separator: " ")): \(run)") }
        }
        var rows = "front,back\n"
        for row in 0..<Self.importRows { rows += "imported \(row),back \(row)\n" }
        try Data(rows.utf8).write(to: directory.appendingPathComponent("rows.csv"))
        sourceTree = try Self.tree(directory.appendingPathComponent(Self.deck))
        for operation in Operation.allCases { try step(operation, signal: nil) }
    }

    /// Runs `count` commands, each sent a random signal after a random delay.
    mutating func run(signals count: Int) throws -> Report {
        let start = Date()
        try prepare()
        let operations = Operation.allCases
        for _ in 0..<count {
            let operation = operations[Int.random(in: 0..<operations.count, using: &rng)]
            let signal = operation == .exportStdout && Bool.random(using: &rng)
                ? SIGPIPE : Self.signals[Int.random(in: 0..<Self.signals.count, using: &rng)]
            try step(operation, signal: signal)
            if report.failures.count > 20 { break }
        }
        report.seconds = Date().timeIntervalSince(start)
        return report
    }

    /// The folders of one run: `out-<n>` (outputs), `tmp-<n>` (its TMPDIR).
    private mutating func folders() throws -> (out: URL, tmp: URL, n: Int) {
        counter += 1
        let out = directory.appendingPathComponent("out-\(counter)")
        let tmp = directory.appendingPathComponent("tmp-\(counter)")
        for folder in [out, tmp] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        return (out, tmp, counter)
    }

    private mutating func step(_ operation: Operation, signal: Int32?) throws {
        let (out, tmp, n) = try folders()
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: tmp)
        }
        let label = "\(operation)-\(n)" + (signal.map { " (signal \($0))" } ?? "")
        var arguments: [String]
        var stdin: Data?
        var expected: [String] = []
        var migrated: URL?
        switch operation {
        case .exportJSON:
            arguments = ["export", Self.deck, "-o", "out-\(n)/cards.json"]
            expected = ["cards.json"]
        case .exportApkg:
            arguments = ["export", Self.deck, "-o", "out-\(n)/cards.apkg"]
            expected = ["cards.apkg"]
        case .exportStdout:
            try stdoutExport(label: label, tmp: tmp, signal: signal)
            return
        case .archive:
            arguments = ["archive", Self.deck, "-o", "out-\(n)/deck.zip"]
            expected = ["deck.zip"]
        case .convert:
            arguments = ["convert", "Source.json", "--to", "zip", "--out-dir", "out-\(n)", "--jobs", "1"]
            expected = ["Source.sampledeck.zip"]
        case .import:
            arguments = ["import", Self.importDeck, "rows.csv"]
        case .importStdin:
            arguments = ["import", Self.importDeck, "-", "--format", "csv"]
            stdin = try Data(contentsOf: directory.appendingPathComponent("rows.csv"))
        case .migrate:
            let fixture = DeckBinary.packageRoot.appendingPathComponent("Fixtures/decks/v0/Vocabulary.sampledeck")
            let deck = out.appendingPathComponent("Vocabulary.sampledeck")
            try FileManager.default.copyItem(at: fixture, to: deck)
            migrated = deck
            arguments = ["migrate", "out-\(n)/Vocabulary.sampledeck"]
            expected = ["Vocabulary.sampledeck", "Vocabulary.sampledeck.backup-v0"]
        case .unarchive:
            arguments = ["unarchive", "Source.zip", "-C", "out-\(n)"]
            expected = [Self.deck]
        case .unarchiveStdin:
            arguments = ["unarchive", "-", "-C", "out-\(n)"]
            stdin = try Data(contentsOf: directory.appendingPathComponent("Source.zip"))
            expected = [Self.deck]
        case .create:
            arguments = ["create", "out-\(n)/New.sampledeck"]
            expected = ["New.sampledeck"]
        }
        let importBefore = operation == .import || operation == .importStdin ? try count(Self.importDeck) : 0
        let result = try runSignalled(arguments, operation: operation, tmp: tmp, stdin: stdin, signal: signal, label: label)
        let finished = !result.signaled && result.status == 0

        // The output folder holds the whole output or nothing, and nothing else.
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path)
        for name in names where !expected.contains(name) {
            report.failures.append("\(label): left \(name) in the output folder")
        }
        if finished, let first = expected.first, !names.contains(first) {
            report.failures.append("\(label): exit 0 but \(first) is missing")
        }
        for name in names where expected.contains(name) {
            if let problem = try whole(out.appendingPathComponent(name), operation: operation, migrated: migrated) {
                report.failures.append("\(label): \(name) is not whole: \(problem)")
            }
        }
        try checkTemporaryDirectory(tmp, label: label)
        // The input: the source deck byte for byte (the import deck: all rows or none).
        if try Self.tree(directory.appendingPathComponent(Self.deck)) != sourceTree {
            report.failures.append("\(label): the source deck changed")
        }
        if operation == .import || operation == .importStdin {
            let after = try count(Self.importDeck)
            if after != importBefore && after != importBefore + Self.importRows {
                report.failures.append("\(label): \(after - importBefore) of \(Self.importRows) rows imported (not all or nothing)")
            }
            if finished && after != importBefore + Self.importRows {
                report.failures.append("\(label): exit 0 but the rows are not there")
            }
            report.failures += try DeckState.problems(of: Self.importDeck, in: directory).map { "\(label): \($0)" }
            let package = directory.appendingPathComponent(Self.importDeck)
            let allowed: Set<String> = [".lock", "Deck.sqlite-journal", "Deck.sqlite-wal", "Deck.sqlite-shm"]
            for name in try FileManager.default.contentsOfDirectory(atPath: package.path) where name.hasPrefix(".") || name.hasPrefix("Deck.sqlite-") {
                if !allowed.contains(name) { report.failures.append("\(label): left \(name) in the package") }
            }
        }
        if let migrated {
            // A stopped migration is finished by running it again.
            let again = try DeckBinary.run(["migrate", "out-\(n)/Vocabulary.sampledeck"], in: directory)
            if again.status != 0 || again.signaled { report.failures.append("\(label): migrate again: \(again)") }
            let listed = try DeckBinary.run(["list", "out-\(n)/Vocabulary.sampledeck", "--format", "json"], in: directory)
            if listed.status != 0 || listed.signaled { report.failures.append("\(label): after migrating again: \(listed)") }
            _ = migrated
        }
    }

    /// Starts the command, sends `signal` after a random delay over its measured duration, and
    /// checks how it ended: by that signal, or finished with 0 (or 128 + the signal).
    private mutating func runSignalled(_ arguments: [String], operation: Operation, tmp: URL, stdin: Data?, signal: Int32?,
                                       label: String) throws -> DeckRun {
        let begin = Date()
        let running = try DeckBinary.start(arguments, in: directory, stdin: stdin, environment: ["TMPDIR": tmp.path])
        if let signal {
            let limit = max(0.002, (durations[operation] ?? 0.1) * 1.1)
            usleep(UInt32(Double.random(in: 0...limit, using: &rng) * 1_000_000))
            _ = Glibc.kill(running.pid, signal)
        }
        let result = running.wait(timeout: 120)
        if signal == nil {
            durations[operation] = Date().timeIntervalSince(begin)
            if result.signaled || result.status != 0 { throw StateError("\(label) without a signal: \(result)") }
            return result
        }
        if result.timedOut {
            report.failures.append("\(label): hung")
        } else if result.signaled {
            if let signal, result.status == signal {
                report.signalled[Self.name(of: signal), default: 0] += 1
            } else {
                report.failures.append("\(label): ended by signal \(result.status)")
            }
        } else if result.status == 0 {
            report.finished += 1
        } else if let signal, result.status == 128 + signal {
            report.signalled[Self.name(of: signal), default: 0] += 1
        } else {
            report.failures.append("\(label): \(result)")
        }
        return result
    }

    /// `export -o - --format json` whose reader goes away (its end of the pipe closed after a
    /// random delay, `signal` SIGPIPE) or that is sent `signal`: nothing may stay in TMPDIR.
    private mutating func stdoutExport(label: String, tmp: URL, signal: Int32?) throws {
        let process = Process()
        process.executableURL = DeckBinary.executable
        process.arguments = ["export", Self.deck, "-o", "-", "--format", "json"]
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = tmp.path
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let begin = Date()
        try process.run()
        let errors = DataBox()
        let drained = DispatchSemaphore(value: 0)
        Thread {
            errors.data = err.fileHandleForReading.readDataToEndOfFile()
            drained.signal()
        }.start()
        let bytes: Int
        if let signal {
            let limit = max(0.002, (durations[.exportStdout] ?? 0.1) * 1.1)
            usleep(UInt32(Double.random(in: 0...limit, using: &rng) * 1_000_000))
            if signal == SIGPIPE {
                // The reader reads a little (or nothing) and goes away.
                bytes = Bool.random(using: &rng) ? (try out.fileHandleForReading.read(upToCount: 4096)?.count ?? 0) : 0
                try out.fileHandleForReading.close()
            } else {
                _ = Glibc.kill(process.processIdentifier, signal)
                bytes = out.fileHandleForReading.readDataToEndOfFile().count
            }
        } else {
            bytes = out.fileHandleForReading.readDataToEndOfFile().count
        }
        let watchdog = DispatchWorkItem { _ = Glibc.kill(process.processIdentifier, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        process.waitUntilExit()
        watchdog.cancel()
        drained.wait()
        let stderr = String(decoding: errors.data, as: UTF8.self)
        if signal == nil {
            durations[.exportStdout] = Date().timeIntervalSince(begin)
            if process.terminationStatus != 0 || bytes == 0 { throw StateError("\(label) without a signal: exit \(process.terminationStatus) \(stderr)") }
        } else if process.terminationReason == .uncaughtSignal {
            if process.terminationStatus == signal || (signal == SIGPIPE && process.terminationStatus == SIGPIPE) {
                report.signalled[Self.name(of: process.terminationStatus), default: 0] += 1
            } else {
                report.failures.append("\(label): ended by signal \(process.terminationStatus)")
            }
        } else if signal == SIGPIPE {
            // A reader that went away is a write error (74, one line) or came after the end (0).
            if process.terminationStatus == 0 || process.terminationStatus == 74 {
                report.signalled["SIGPIPE (closed pipe)", default: 0] += 1
            } else {
                report.failures.append("\(label): exit \(process.terminationStatus) \(stderr)")
            }
            if stderr.split(separator: "\n").count > 1 { report.failures.append("\(label): more than one error line: \(stderr)") }
        } else if process.terminationStatus == 0 {
            report.finished += 1
        } else {
            report.failures.append("\(label): exit \(process.terminationStatus) \(stderr)")
        }
        try checkTemporaryDirectory(tmp, label: label)
    }

    private mutating func checkTemporaryDirectory(_ tmp: URL, label: String) throws {
        let left = try FileManager.default.contentsOfDirectory(atPath: tmp.path)
        if !left.isEmpty { report.failures.append("\(label): left \(left.sorted()) in TMPDIR") }
    }

    /// Nil when the output at `url` is complete, else what is wrong with it.
    private func whole(_ url: URL, operation: Operation, migrated: URL?) throws -> String? {
        switch operation {
        case .exportJSON:
            let object = try? JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
            let cards = (object?["notes"] as? [Any])?.count  // one Basic note, one card each
            return cards == Self.cards ? nil : "\(cards.map(String.init) ?? "no") cards"
        case .exportApkg:
            // A complete zip ends with its end-of-central-directory record.
            let data = try Data(contentsOf: url)
            let tail = data.suffix(22)
            return tail.count == 22 && tail.prefix(4) == Data([0x50, 0x4B, 0x05, 0x06]) ? nil : "no end of central directory"
        case .archive, .convert:
            return try cardsInDeck(url.lastPathComponent, in: url.deletingLastPathComponent())
        case .unarchive, .unarchiveStdin:
            let check = try DeckBinary.run(["check", url.lastPathComponent], in: url.deletingLastPathComponent())
            if check.status != 0 { return "deck check: \(check)" }
            return try cardsInDeck(url.lastPathComponent, in: url.deletingLastPathComponent())
        case .create:
            let check = try DeckBinary.run(["check", url.lastPathComponent], in: url.deletingLastPathComponent())
            return check.status == 0 ? nil : "deck check: \(check)"
        case .migrate:
            // The backup is the whole version 0 package (without its lock); the deck old or new.
            if url.lastPathComponent.hasSuffix(".backup-v0") {
                let fixture = DeckBinary.packageRoot.appendingPathComponent("Fixtures/decks/v0/Vocabulary.sampledeck")
                var original = try Self.tree(fixture)
                original[".lock"] = nil
                return try Self.tree(url) == original ? nil : "differs from the original deck"
            }
            return nil
        case .exportStdout, .import, .importStdin:
            return nil
        }
    }

    private func cardsInDeck(_ name: String, in folder: URL) throws -> String? {
        let info = try DeckBinary.run(["info", name, "--json"], in: folder)
        guard info.status == 0, let object = try? JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any] else {
            return "deck info: \(info)"
        }
        let cards = (object["cards"] as? NSNumber)?.intValue
        return cards == Self.cards ? nil : "\(cards.map(String.init) ?? "no") cards"
    }

    private func count(_ deck: String) throws -> Int {
        try DeckState.cards(of: deck, in: directory).count
    }

    /// Every file below `root` (relative path → bytes), links as their targets' names.
    static func tree(_ root: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in FileManager.default.subpaths(atPath: root.path) ?? [] {
            let url = root.appendingPathComponent(name)
            var status = stat()
            guard lstat(url.path, &status) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFREG: files[name] = try Data(contentsOf: url)
            case S_IFLNK: files[name] = Data(((try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) ?? "").utf8)
            case S_IFDIR: files[name + "/"] = Data()
            default: files[name] = Data("special".utf8)
            }
        }
        return files
    }

    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        case SIGPIPE: "SIGPIPE"
        default: "signal \(signal)"
        }
    }
}
