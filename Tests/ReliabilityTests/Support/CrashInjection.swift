import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs writing `deck` commands and SIGKILLs them at random moments, checking the deck
/// after every kill: `deck check` passes, `sqlite3`'s `integrity_check` is ok, every write
/// whose command returned is present, a killed write is all there or not there at all, and
/// no partial output sits at a destination.
///
/// The operations are add, edit, rm, import (50 CSV rows), import of a JSON export (50 cards),
/// archive (to a zip), convert (50 CSV rows to JSON: the output is complete or absent) and
/// migrate (of a copy of the version 0 fixture). Kill delays are drawn uniformly over
/// each operation's measured duration (22–110 %), so kills land everywhere from opening the deck to
/// the final rename.
struct CrashInjection {
    enum Operation: String, CaseIterable {
        case add, edit, rm, `import`, importJSON, archive, convert, migrate
    }

    struct Report: CustomStringConvertible {
        var kills = 0
        var completed = 0
        var killsByOperation: [String: Int] = [:]
        var failures: [String] = []
        /// Hidden temporary files a kill left beside a destination (not at it).
        var strayTemporaries = 0
        var strayNames: Set<String> = []
        var seconds = 0.0

        var description: String {
            let byOperation = killsByOperation.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return "\(kills) kills (\(byOperation)), \(completed) writes completed, \(failures.count) failures, "
                + "\(strayTemporaries) stray temporaries \(strayNames.sorted()), \(String(format: "%.1f", seconds)) s"
        }
    }

    let directory: URL
    var rng: SplitMix64
    var report = Report()
    /// The deck's expected cards: id → front.
    private var model: [Int64: String] = [:]
    private var durations: [Operation: Double] = [:]
    private var counter = 0
    private var migratedCount: Int?

    static let deck = "Crash.sampledeck"
    static let importRows = 50

    init(directory: URL, seed: UInt64) {
        self.directory = directory
        self.rng = SplitMix64(seed: seed)
    }

    /// Runs until `kills` processes have been killed (or `maxIterations` steps have run).
    mutating func run(kills target: Int) throws -> Report {
        let start = Date()
        let created = try DeckBinary.run(["create", Self.deck, "--title", "Crash"], in: directory)
        guard created.status == 0 else { throw StateError("create: \(created)") }
        try calibrate()
        var iterations = 0
        while report.kills < target && iterations < target * 6 {
            iterations += 1
            let weights: [(Operation, Int)] = [(.add, 25), (.edit, 12), (.rm, 8), (.import, 12), (.importJSON, 10), (.archive, 12),
                                               (.convert, 9), (.migrate, 12)]
            var pick = Int.random(in: 0..<100, using: &rng)
            var operation = Operation.add
            for (candidate, weight) in weights {
                if pick < weight { operation = candidate; break }
                pick -= weight
            }
            if (operation == .edit || operation == .rm) && model.isEmpty { operation = .add }
            try step(operation, kill: true)
            if report.failures.count > 20 { break }
        }
        // One clean write at the end: the next writer removes what the kills left in the package.
        try step(.add, kill: false)
        let package = directory.appendingPathComponent(Self.deck)
        let hidden = try FileManager.default.contentsOfDirectory(atPath: package.path).filter { $0.hasPrefix(".") && $0 != ".lock" }
        if !hidden.isEmpty { report.failures.append("temporaries remain in the package after a clean write: \(hidden)") }
        report.seconds = Date().timeIntervalSince(start)
        return report
    }

    /// Runs each operation once unkilled to learn how long it takes.
    private mutating func calibrate() throws {
        for operation in Operation.allCases {
            if (operation == .edit || operation == .rm) && model.isEmpty { try step(.add, kill: false) }
            try step(operation, kill: false)
        }
    }

    private mutating func nextName() -> Int {
        counter += 1
        return counter
    }

    private mutating func step(_ operation: Operation, kill: Bool) throws {
        switch operation {
        case .add, .edit, .rm, .import, .importJSON: try deckWrite(operation, kill: kill)
        case .archive: try archive(kill: kill)
        case .convert: try convert(kill: kill)
        case .migrate: try migrate(kill: kill)
        }
    }

    /// Starts `arguments`, kills it after a random delay (when `kill`), and reports whether it was killed.
    private mutating func runMaybeKilled(_ arguments: [String], operation: Operation, kill: Bool) throws -> DeckRun {
        let begin = Date()
        let running = try DeckBinary.start(arguments, in: directory)
        if kill {
            let limit = max(0.002, (durations[operation] ?? 0.05) * 1.1)
            let delay = Double.random(in: (limit * 0.2)...limit, using: &rng)
            usleep(UInt32(delay * 1_000_000))
            running.kill()
        }
        let result = running.wait()
        if !kill { durations[operation] = Date().timeIntervalSince(begin) }
        if result.signaled {
            if result.status == SIGKILL {
                report.kills += 1
                report.killsByOperation[operation.rawValue, default: 0] += 1
            } else {
                report.failures.append("\(operation) crashed: \(result)")
            }
        } else {
            report.completed += 1
        }
        return result
    }

    private mutating func deckWrite(_ operation: Operation, kill: Bool) throws {
        let n = nextName()
        let arguments: [String]
        var target: Int64?
        var oldFront: String?
        let newFront = "\(operation)-\(n)"
        switch operation {
        case .add:
            arguments = ["add", Self.deck, "--front", newFront, "--back", "back \(n)", "--tag", "t\(n % 7)"]
        case .edit:
            let id = model.keys.sorted()[Int.random(in: 0..<model.count, using: &rng)]
            target = id
            oldFront = model[id]
            arguments = ["edit", Self.deck, String(id), "--front", newFront, "--tag", "+edited"]
        case .rm:
            let id = model.keys.sorted()[Int.random(in: 0..<model.count, using: &rng)]
            target = id
            arguments = ["rm", Self.deck, String(id)]
        case .import:
            let file = directory.appendingPathComponent("import-\(n).csv")
            var text = "front,back,tags\n"
            for row in 0..<Self.importRows { text += "import-\(n)-\(row),\"back, \(row)\",imported\n" }
            try Data(text.utf8).write(to: file)
            arguments = ["import", Self.deck, file.lastPathComponent]
        case .importJSON:
            arguments = ["import", Self.deck, try jsonExport(n).lastPathComponent]
        default:
            return
        }
        let result = try runMaybeKilled(arguments, operation: operation, kill: kill)
        defer {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent("import-\(n).csv"))
            try? FileManager.default.removeItem(at: directory.appendingPathComponent("import-\(n).json"))
        }
        if !result.signaled && result.status != 0 {
            report.failures.append("\(arguments.joined(separator: " ")): \(result)")
        }
        let returned = !result.signaled && result.status == 0
        let actual = try DeckState.cards(of: Self.deck, in: directory)
        let frontsPresent = Dictionary(actual.values.map { ($0.front, $0.id) }, uniquingKeysWith: { a, _ in a })
        switch operation {
        case .add:
            if returned {
                guard let id = Int64(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                    report.failures.append("add printed no id: \(result.stdout)")
                    break
                }
                model[id] = newFront
            } else if let id = frontsPresent[newFront] {
                model[id] = newFront
            }
        case .edit:
            if let target, let oldFront {
                if returned {
                    model[target] = newFront
                } else if let now = actual[target]?.front, now == newFront || now == oldFront {
                    model[target] = now
                }
            }
        case .rm:
            if let target {
                if returned || actual[target] == nil { model[target] = nil }
            }
        case .import, .importJSON:
            let imported = actual.values.filter { $0.front.hasPrefix("import-\(n)-") }
            if imported.count != 0 && imported.count != Self.importRows {
                report.failures.append("import-\(n) killed=\(result.signaled): \(imported.count) of \(Self.importRows) rows present (not atomic)")
            }
            if returned && imported.count != Self.importRows {
                report.failures.append("import-\(n) returned but \(imported.count) of \(Self.importRows) rows present")
            }
            for card in imported { model[card.id] = card.front }
        default:
            break
        }
        let expected = model
        let got = actual.mapValues(\.front)
        if expected != got {
            let missing = expected.filter { got[$0.key] != $0.value }.map { "\($0.key)=\($0.value)" }.sorted().prefix(5)
            let extra = got.filter { expected[$0.key] != $0.value }.map { "\($0.key)=\($0.value)" }.sorted().prefix(5)
            report.failures.append("after \(operation)-\(n) (killed=\(result.signaled)): expected but absent/different \(Array(missing)), unexpected \(Array(extra))")
            model = got
        }
        report.failures += try DeckState.problems(of: Self.deck, in: directory).map { "after \(operation)-\(n): \($0)" }
        try checkPackageLeftovers(after: "\(operation)-\(n)")
    }

    /// Files a kill may leave inside the package: the store's journal files and the lock are
    /// expected; anything else must be a hidden temporary (counted), never a visible partial file.
    private mutating func checkPackageLeftovers(after label: String) throws {
        let package = directory.appendingPathComponent(Self.deck)
        let allowed: Set<String> = ["manifest.json", "Deck.sqlite", "Deck.sqlite-wal", "Deck.sqlite-shm", "Deck.sqlite-journal", ".lock", "Media"]
        for name in try FileManager.default.contentsOfDirectory(atPath: package.path) where !allowed.contains(name) {
            if name.hasPrefix(".") {
                report.strayTemporaries += 1
                report.strayNames.insert(name.count > 20 ? String(name.prefix(20)) + "…" : name)
            } else {
                report.failures.append("after \(label): unexpected file in the package: \(name)")
            }
        }
    }

    private mutating func archive(kill: Bool) throws {
        let n = nextName()
        let name = "archive-\(n).zip"
        let destination = directory.appendingPathComponent(name)
        let result = try runMaybeKilled(["archive", Self.deck, "-o", name], operation: .archive, kill: kill)
        let returned = !result.signaled && result.status == 0
        if !result.signaled && result.status != 0 { report.failures.append("archive: \(result)") }
        if FileManager.default.fileExists(atPath: destination.path) {
            // Whatever is at the destination must be a complete archive of the whole deck.
            let info = try DeckBinary.run(["info", name, "--json"], in: directory)
            if info.status != 0 {
                report.failures.append("archive-\(n) (killed=\(result.signaled)): partial archive at the destination: \(info)")
            } else if let object = try? JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any],
                      let cards = (object["cards"] as? NSNumber)?.intValue, cards != model.count {
                report.failures.append("archive-\(n): archive holds \(cards) cards, deck has \(model.count)")
            }
        } else if returned {
            report.failures.append("archive-\(n) returned but \(name) is missing")
        }
        try? FileManager.default.removeItem(at: destination)
        for leftover in try FileManager.default.contentsOfDirectory(atPath: directory.path) where leftover.hasPrefix(".deck-tmp-") {
            report.strayTemporaries += 1
            report.strayNames.insert(".deck-tmp-…")
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(leftover))
        }
        report.failures += try DeckState.problems(of: Self.deck, in: directory).map { "after archive-\(n): \($0)" }
    }

    /// A JSON export of a separate deck of `importRows` cards named `import-<n>-<row>` (made
    /// unkilled, so the file is whole), to import into the crash deck.
    private func jsonExport(_ n: Int) throws -> URL {
        let folder = directory.appendingPathComponent("json-source-\(n)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var text = "front,back,tags\n"
        for row in 0..<Self.importRows { text += "import-\(n)-\(row),back \(row),json\n" }
        try Data(text.utf8).write(to: folder.appendingPathComponent("cards.csv"))
        let made = try DeckBinary.run(["import", "Source.sampledeck", "cards.csv", "--create", "--quiet"], in: folder)
        guard made.status == 0 else { throw StateError("making the JSON source: \(made)") }
        let output = directory.appendingPathComponent("import-\(n).json")
        let exported = try DeckBinary.run(["export", "Source.sampledeck", "-o", output.path], in: folder)
        guard exported.status == 0 else { throw StateError("exporting the JSON source: \(exported)") }
        return output
    }

    /// `deck convert` of a CSV to JSON: a killed run leaves no output or a whole one (every
    /// card), never a partial file at the destination, and never touches its input.
    private mutating func convert(kill: Bool) throws {
        let n = nextName()
        let folder = directory.appendingPathComponent("convert-\(n)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var text = "front,back\n"
        for row in 0..<Self.importRows { text += "convert-\(n)-\(row),back \(row)\n" }
        let input = Data(text.utf8)
        try input.write(to: folder.appendingPathComponent("cards.csv"))
        let result = try runMaybeKilled(["convert", "convert-\(n)/cards.csv", "--to", "json", "--out-dir", "convert-\(n)/out", "--jobs", "1", "--quiet"],
                                        operation: .convert, kill: kill)
        let returned = !result.signaled && result.status == 0
        if !result.signaled && result.status != 0 { report.failures.append("convert: \(result)") }
        if (try? Data(contentsOf: folder.appendingPathComponent("cards.csv"))) != input {
            report.failures.append("convert-\(n) (killed=\(result.signaled)): the input was modified")
        }
        let output = folder.appendingPathComponent("out/cards.json")
        if let data = try? Data(contentsOf: output) {
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            let cards = (object?["notes"] as? [Any])?.count  // one Basic note, one card each
            if cards != Self.importRows {
                report.failures.append("convert-\(n) (killed=\(result.signaled)): partial output at the destination (\(cards.map(String.init) ?? "unreadable") cards)")
            }
        } else if returned {
            report.failures.append("convert-\(n) returned but out/cards.json is missing")
        }
        let out = folder.appendingPathComponent("out")
        for leftover in (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? [] where leftover != "cards.json" {
            if leftover.hasPrefix(".") {
                report.strayTemporaries += 1
                report.strayNames.insert(leftover.count > 20 ? String(leftover.prefix(20)) + "…" : leftover)
            } else {
                report.failures.append("convert-\(n): unexpected file in the output folder: \(leftover)")
            }
        }
    }

    private mutating func migrate(kill: Bool) throws {
        let n = nextName()
        let folder = directory.appendingPathComponent("migrate-\(n)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixture = DeckBinary.packageRoot.appendingPathComponent("Fixtures/decks/v0/Vocabulary.sampledeck")
        let deck = folder.appendingPathComponent("Vocabulary.sampledeck")
        try FileManager.default.copyItem(at: fixture, to: deck)
        let relative = "migrate-\(n)/Vocabulary.sampledeck"
        let result = try runMaybeKilled(["migrate", relative], operation: .migrate, kill: kill)
        if !result.signaled && result.status != 0 { report.failures.append("migrate: \(result)") }
        // A killed migration leaves the old deck or the new one; running it again finishes the job.
        let again = try DeckBinary.run(["migrate", relative], in: directory)
        if again.status != 0 { report.failures.append("migrate-\(n) (killed=\(result.signaled)): rerun failed: \(again)") }
        report.failures += try DeckState.problems(of: relative, in: directory).map { "after migrate-\(n): \($0)" }
        let count = try DeckState.cards(of: relative, in: directory).count
        if let migratedCount, migratedCount != count {
            report.failures.append("migrate-\(n) (killed=\(result.signaled)): \(count) cards, a clean migration gives \(migratedCount)")
        }
        if migratedCount == nil { migratedCount = count }
    }
}
