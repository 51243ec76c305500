import CSQLite
import DeckDocument
import Foundation

/// Issue 17, tag links linear: one card with 20,000 new tags added and saved through
/// `DeckDocument` (`addCard` + `save`, the path of `deck add --tag …`), against the same rows
/// (20,000 tags, the card, 20,000 links) inserted with the raw SQLite C API into tables of the
/// same shape without a search index. Before the fix the index's triggers rewrote the card's
/// whole index row per link (quadratic: 4,000 tags took 8 s, 20,000 minutes).
enum TagBench {
    static let tagCount = 20_000
    static let names = (0..<tagCount).map { "tag\($0)" }

    static func run(scratch: Scratch, runs: Int) throws -> Measurement {
        let deck = scratch.file("tags.sampledeck"), raw = scratch.file("tags-raw.sqlite")
        func clear() throws {
            for url in [deck, raw] where FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
            try DeckDocument.create(at: deck, title: "Tags").close()
        }
        var ourTimes = WallBreakdown(), referenceTimes = WallBreakdown()
        var m = try compare("\(tagCount) tags on one card, added and saved", runs: runs, bar: 0.5, judge: .wall, setup: clear,
            ours: {
                try ourTimes.measure {
                    let document = try DeckDocument.open(at: deck)
                    _ = try document.addCard(kind: .basic, front: "many", back: "tags", tags: names)
                    try document.save()
                    try document.close()
                }
            },
            reference: { referenceTimes.measure { rawInsert(path: raw.path) } })
        // The bar is absolute ("well under a second"): judged on our wall time, not the ratio.
        m = Measurement(name: m.name, ours_s: m.ours_s, reference_s: m.reference_s, ratio: m.ratio, ours_cpu_s: m.ours_cpu_s,
                        reference_cpu_s: m.reference_cpu_s, cpu_ratio: m.cpu_ratio, bar: 0.5, peak_mib: nil,
                        met: m.ours_s < 0.5, runs: m.runs, spread: m.spread)
        m.group = "tag links (issue 17)"
        m.bar_text = "< 0.5 s wall"
        m.judged_on = .wall
        m.reference_name = "raw C API: the tags, the card and the links in one transaction, no search index"
        m.note = "Ours opens the deck, creates the tags, links them, indexes the card once, saves and closes. "
            + "Where the wall time went (all runs): ours \(ourTimes), reference \(referenceTimes)."
        print("  wall time: ours \(ourTimes); reference \(referenceTimes)")
        return m
    }

    /// The same card through the command line: `deck add` with 20,000 `--tag` options, the whole
    /// process (start-up, parsing the options, the add and save), beside the first row's
    /// in-process `addCard` + `save` of the same card. The difference is the command's own
    /// cost; the option parser once spent a third of it finding each `--tag`'s definition.
    static func commandLine(scratch: Scratch, runs: Int) throws -> Measurement {
        let deck = scratch.file("tags-cli.sampledeck")
        func clear() throws {
            if FileManager.default.fileExists(atPath: deck.path) { try FileManager.default.removeItem(at: deck) }
            try DeckDocument.create(at: deck, title: "Tags").close()
        }
        let ours = [ChildProcess.deckTool, "add", deck.path, "--front", "many", "--back", "tags", "--quiet"]
            + names.flatMap { ["--tag", $0] }
        var m = try compareSamples("deck add with \(tagCount) --tag options", runs: runs, bar: nil, judge: .wall, setup: clear,
            ours: { try ChildProcess.run(ours[0], Array(ours.dropFirst())).sample },
            reference: {
                let t = try timeBoth {
                    let document = try DeckDocument.open(at: deck)
                    _ = try document.addCard(kind: .basic, front: "many", back: "tags", tags: names)
                    try document.save()
                    try document.close()
                }
                return Sample(wall: t.wall, cpu: t.cpu)
            })
        m = Measurement(name: m.name, ours_s: m.ours_s, reference_s: m.reference_s, ratio: m.ratio, ours_cpu_s: m.ours_cpu_s,
                        reference_cpu_s: m.reference_cpu_s, cpu_ratio: m.cpu_ratio, bar: 0.5, peak_mib: m.peak_mib,
                        met: m.ours_s < 0.5, runs: m.runs, spread: m.spread)
        m.group = "tag links (issue 17)"
        m.bar_text = "< 0.5 s wall"
        m.judged_on = .wall
        m.reference_name = "DeckDocument in this process: addCard with the 20,000 tags, save, close (no process start-up, no option parsing)"
        m.note = "The whole `deck add` command, median wall clock; the difference from the reference is the process start-up, the parsing of 40,008 arguments and the command layer."
        m.command = shellCommand(Array(ours.prefix(8))) + " --tag tag0 … --tag tag19999"
        return m
    }

    /// The same rows through the C API: `Tag`, `Card` and `Card_tags` (WITHOUT ROWID, indexed on target).
    static func rawInsert(path: String) {
        var db: OpaquePointer?
        sqlite3_open(path, &db)
        defer { sqlite3_close(db) }
        for sql in ["PRAGMA journal_mode=WAL",
                    "CREATE TABLE Tag (pk INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
                    "CREATE TABLE Card (pk INTEGER PRIMARY KEY, front TEXT NOT NULL, back TEXT NOT NULL)",
                    "CREATE TABLE Card_tags (source INTEGER NOT NULL, target INTEGER NOT NULL, PRIMARY KEY (source, target)) WITHOUT ROWID",
                    "CREATE INDEX Card_tags_target ON Card_tags (target)", "BEGIN IMMEDIATE",
                    "INSERT INTO Card (pk, front, back) VALUES (1, 'many', 'tags')"] {
            sqlite3_exec(db, sql, nil, nil, nil)
        }
        var tag: OpaquePointer?, link: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO Tag (pk, name) VALUES (?, ?)", -1, &tag, nil)
        sqlite3_prepare_v2(db, "INSERT INTO Card_tags (source, target) VALUES (1, ?)", -1, &link, nil)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (index, name) in names.enumerated() {
            sqlite3_bind_int64(tag, 1, Int64(index + 1))
            sqlite3_bind_text(tag, 2, name, -1, transient)
            sqlite3_step(tag)
            sqlite3_reset(tag)
            sqlite3_bind_int64(link, 1, Int64(index + 1))
            sqlite3_step(link)
            sqlite3_reset(link)
        }
        sqlite3_finalize(tag)
        sqlite3_finalize(link)
        sqlite3_exec(db, "COMMIT", nil, nil, nil)
    }
}

/// Where a body's wall time went, from the scheduler's own accounting of this process's threads
/// (`/proc/self/task/*/schedstat`: time on a CPU, time runnable but waiting for one): on a CPU,
/// waiting for a CPU (other processes' load), and the rest blocked (disk syncs, locks, sleeps).
/// On a loaded machine the second explains a wall time far above the CPU time.
struct WallBreakdown: CustomStringConvertible {
    var wall = 0.0, onCPU = 0.0, waitingForCPU = 0.0

    mutating func measure<T>(_ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds, before = Self.scheduler()
        let result = try body()
        let after = Self.scheduler()
        wall += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        onCPU += after.onCPU - before.onCPU
        waitingForCPU += after.waiting - before.waiting
        return result
    }

    /// Seconds this process's threads have spent on a CPU and runnable without one.
    static func scheduler() -> (onCPU: Double, waiting: Double) {
        var onCPU = 0.0, waiting = 0.0
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] {
            guard let text = try? String(contentsOfFile: "/proc/self/task/\(task)/schedstat", encoding: .utf8) else { continue }
            let fields = text.split(separator: " ")
            guard fields.count >= 2 else { continue }
            onCPU += (Double(fields[0]) ?? 0) / 1e9
            waiting += (Double(fields[1]) ?? 0) / 1e9
        }
        return (onCPU, waiting)
    }

    var description: String {
        let blocked = max(0, wall - onCPU - waitingForCPU)
        return String(format: "%.2f s wall = %.2f s on a CPU + %.2f s waiting for a CPU + %.2f s blocked", wall, onCPU, waitingForCPU, blocked)
    }
}
