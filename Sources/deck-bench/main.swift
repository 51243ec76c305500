import Persistence
import Foundation

// deck-bench: measures every performance bar against its reference in one run.
//   deck-bench [--quick] [--runs N]      run the suite
//   deck-bench enumerate-memory <store>  (internal) enumerate a store, print peak memory

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "enumerate-memory", arguments.count == 2 {
    let result = try PersistenceBench.enumerateMemory(path: arguments[1])
    print("\(result.seconds) \(result.peak) \(result.seen)")
    exit(0)
}

if arguments.first == "profile", arguments.count == 2 {
    // Runs one of our operations alone, for perf/callgrind.
    let scratch = try Scratch()
    let url = scratch.file("profile.sqlite")
    if arguments[1] == "insert" {
        let kept = try PersistenceBench.oursInsert(url: url, count: 100_000)
        PersistenceBench.rawInsert(path: scratch.file("raw.sqlite").path, count: 100_000)
        _ = kept
    } else {
        PersistenceBench.rawInsert(path: url.path, count: 100_000)
        let container = try ModelContainer(for: BenchCard.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        var kept: [[BenchCard]] = []
        var rows: [[RawCard]] = []
        for _ in 0..<2 { kept.append(try ModelContext(container).fetch(FetchDescriptor<BenchCard>())) }
        for _ in 0..<2 { rows.append(PersistenceBench.rawFetch(path: url.path)) }
    }
    exit(0)
}

if arguments.first == "migration" {
    // The 1,000,000-row lightweight migration alone.
    report(try MigrationBench.run(scratch: try Scratch(), rows: arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000_000))
    exit(0)
}

let quick = arguments.contains("--quick")
judgeOnCPU = arguments.contains("--cpu")
let runs = arguments.firstIndex(of: "--runs").flatMap { Int(arguments[$0 + 1]) } ?? (quick ? 1 : 5)
let scale = quick ? 10 : 1
let scratch = try Scratch()

print("SampleDeck benchmarks (\(quick ? "quick" : "full") run, \(runs) runs each, medians)")
var results = try PersistenceBench.run(counts: (100_000 / scale, 100_000 / scale, 1_000_000 / scale, 1_000_000 / scale), runs: runs, scratch: scratch)

// enumerate over 1,000,000 cards in a child process, so its peak memory is its own.
let enumerateCount = 1_000_000 / scale
let store = scratch.file("enumerate.sqlite")
PersistenceBench.rawInsert(path: store.path, count: enumerateCount)
let child = Process()
child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
child.arguments = ["enumerate-memory", store.path]
let pipe = Pipe()
child.standardOutput = pipe
try child.run()
child.waitUntilExit()
let fields = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
if fields.count == 3 {
    results.append(Measurement(name: "enumerate \(enumerateCount) cards (peak MiB, bar 64)", ours_s: fields[0], reference_s: 0, ratio: 0,
                               bar: nil, peak_mib: fields[1], met: fields[1] < 64, runs: 1, spread: 1))
}
results.append(try MigrationBench.run(scratch: scratch, rows: 1_000_000 / scale, runs: runs))
for result in results { report(result) }
