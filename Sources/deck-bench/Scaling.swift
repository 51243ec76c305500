import Foundation
import Persistence

/// The scaling curves: our operations alone (no reference) at several sizes, one run each,
/// every one in a child process so that its peak resident memory is its own.
///
/// It also builds, per size, the inputs the command-line bars reuse: a CSV of the cards, a
/// deck imported from it, and the `.apkg` exported from that deck.
enum Scaling {
    /// One point of one curve.
    struct Point: Encodable {
        let operation: String
        let cards: Int
        let wall_s: Double
        let cpu_s: Double
        let peak_mib: Double?
        /// Killed at its time limit: `wall_s` is the limit, not a measurement.
        var timed_out = false
    }

    /// The files built for one size.
    struct Dataset {
        let cards: Int
        let csv: URL
        let deck: URL
        /// The package `deck export` wrote (the scaling run's; nil for cached inputs).
        let apkg: URL?
    }

    /// The curves, in the order the report draws them.
    static let operations = [
        "insert+save", "fetch as models", "predicate query (1% of rows)", "deck import CSV", "deck import CSV with tags", "deck export apkg",
        "deck import apkg", "deck archive zip", "deck info (open+count)",
    ]

    /// - Parameter taggedTimeout: the time limit of each tagged CSV import; after one is
    ///   killed, larger sizes are not tried.
    static func run(sizes: [Int], taggedTimeout: Double, scratch: Scratch, log: (String) -> Void) throws -> (points: [Point], datasets: [Int: Dataset]) {
        var points: [Point] = []
        var datasets: [Int: Dataset] = [:]
        func add(_ operation: String, _ cards: Int, _ sample: Sample) {
            let point = Point(operation: operation, cards: cards, wall_s: sample.wall, cpu_s: sample.cpu, peak_mib: sample.peakMiB)
            points.append(point)
            log(String(format: "scaling %-30@ %9d cards  wall %8.3f s  cpu %8.3f s  peak %7.1f MiB",
                       operation as NSString, cards, sample.wall, sample.cpu, sample.peakMiB ?? -1))
        }
        for cards in sizes {
            // In-process operations of the persistence layer, each in a child `deck-bench op`.
            let insertStore = scratch.file("scale-insert-\(cards).sqlite")
            add("insert+save", cards, try ChildProcess.runSelfTimed(ChildProcess.benchTool, ["op", "insert", String(cards), insertStore.path]))
            _ = scratch.file(insertStore.lastPathComponent)
            let store = scratch.file("scale-\(cards).sqlite")
            PersistenceBench.rawInsert(path: store.path, count: cards)
            add("fetch as models", cards, try ChildProcess.runSelfTimed(ChildProcess.benchTool, ["op", "fetch", String(cards), store.path]))
            add("predicate query (1% of rows)", cards, try ChildProcess.runSelfTimed(ChildProcess.benchTool, ["op", "query", String(cards), store.path]))
            _ = scratch.file(store.lastPathComponent)

            // The command line, end to end.
            let csv = scratch.file("cards-\(cards).csv")
            try CLIBench.writeCSV(to: csv, rows: cards)
            let deck = scratch.file("deck-\(cards).sampledeck")
            try ChildProcess.deck(["create", deck.path, "--quiet"])
            add("deck import CSV", cards, try ChildProcess.deck(["import", deck.path, csv.path, "--quiet", "--no-progress"]).sample)
            if !points.contains(where: { $0.timed_out }) {
                let tagged = scratch.file("tagged-\(cards).csv"), taggedDeck = scratch.file("tagged-\(cards).sampledeck")
                try CLIBench.writeCSV(to: tagged, rows: cards, tags: true)
                try ChildProcess.deck(["create", taggedDeck.path, "--quiet"])
                do {
                    add("deck import CSV with tags", cards,
                        try ChildProcess.deck(["import", taggedDeck.path, tagged.path, "--quiet", "--no-progress"], timeout: taggedTimeout).sample)
                } catch is ChildProcess.TimedOut {
                    points.append(Point(operation: "deck import CSV with tags", cards: cards, wall_s: taggedTimeout, cpu_s: 0, peak_mib: nil, timed_out: true))
                    log(String(format: "scaling deck import CSV with tags %9d cards  killed after %.0f s; larger sizes skipped", cards, taggedTimeout))
                }
                CLIBench.remove(tagged, taggedDeck)
            }
            let apkg = scratch.file("deck-\(cards).apkg")
            add("deck export apkg", cards, try ChildProcess.deck(["export", deck.path, "-o", apkg.path, "--quiet", "--no-progress"]).sample)
            let imported = scratch.file("imported-\(cards).sampledeck")
            try ChildProcess.deck(["create", imported.path, "--quiet"])
            add("deck import apkg", cards, try ChildProcess.deck(["import", imported.path, apkg.path, "--quiet", "--no-progress"]).sample)
            _ = scratch.file(imported.lastPathComponent)
            let zip = scratch.file("deck-\(cards).zip")
            add("deck archive zip", cards, try ChildProcess.deck(["archive", deck.path, "-o", zip.path, "--quiet", "--no-progress"]).sample)
            _ = scratch.file(zip.lastPathComponent)
            add("deck info (open+count)", cards, try ChildProcess.deck(["info", deck.path]).sample)
            datasets[cards] = Dataset(cards: cards, csv: csv, deck: deck, apkg: apkg)
        }
        return (points, datasets)
    }

    /// `deck-bench op <insert|fetch|query> <count> <store>`: one operation in this process;
    /// prints `<wall> <cpu> <rows>` for the operation alone (opening excluded for insert's
    /// container creation, included for nothing else).
    static func runOperation(_ arguments: [String]) throws {
        guard arguments.count == 3, let count = Int(arguments[1]) else { throw BenchError("usage: deck-bench op insert|fetch|query <count> <store>") }
        let url = URL(fileURLWithPath: arguments[2])
        var rows = 0
        var keep: [BenchCard] = []
        var kept: ModelContext?
        let timing: (wall: Double, cpu: Double)
        switch arguments[0] {
        case "insert":
            timing = try timeBoth { kept = try PersistenceBench.oursInsert(url: url, count: count); rows = count }
        case "fetch":
            let container = try ModelContainer(for: BenchCard.self, configurations: ModelConfiguration(url: url, allowsSave: false))
            timing = try timeBoth {
                let context = ModelContext(container)
                keep = try context.fetch(FetchDescriptor<BenchCard>())
                kept = context
                rows = keep.count
            }
        case "query":
            let container = try ModelContainer(for: BenchCard.self, configurations: ModelConfiguration(url: url, allowsSave: false))
            let descriptor = FetchDescriptor<BenchCard>(predicate: #Predicate { $0.score >= 500 && $0.score < 510 },
                                                        sortBy: [SortDescriptor(\.score, order: .reverse)])
            timing = try timeBoth {
                let context = ModelContext(container)
                keep = try context.fetch(descriptor)
                kept = context
                rows = keep.count
            }
        default:
            throw BenchError("unknown operation \(arguments[0])")
        }
        _ = kept
        print("\(timing.wall) \(timing.cpu) \(rows)")
    }
}
