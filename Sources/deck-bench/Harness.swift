import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which time a bar is judged on.
///
/// On a shared, loaded machine CPU time (user + system, all threads, reaped children
/// included) is the steadier estimate of the work done; wall-clock time is what a user
/// waits and is the only fair judge of a parallel speed-up.
enum Judge: String, Encodable {
    /// `size`: bytes on disk, kept in MiB in the seconds fields (ours_s, reference_s).
    case cpu, wall, memory, size
}

/// One measured comparison: our operation against its reference, run alternately.
///
/// The first properties (through `spread`) are the original memberwise initialiser used by
/// every bench file; the rest have defaults so that older call sites keep compiling.
struct Measurement: Encodable {
    let name: String
    let ours_s: Double
    let reference_s: Double
    let ratio: Double
    var ours_cpu_s: Double? = nil
    var reference_cpu_s: Double? = nil
    var cpu_ratio: Double? = nil
    let bar: Double?
    let peak_mib: Double?
    let met: Bool?
    let runs: Int
    let spread: Double
    /// The mission bar this row belongs to (the report groups rows by it).
    var group: String? = nil
    /// The bar as a reader reads it: "≤ 1.5x", "< 64 MiB", "≥ 1.7x faster".
    var bar_text: String? = nil
    /// What `met` was decided on.
    var judged_on: Judge? = nil
    /// What the reference is ("hand-written C-API loop", "sqlite3 .import", …).
    var reference_name: String? = nil
    var reference_peak_mib: Double? = nil
    /// Anything a reader needs to interpret the figures.
    var note: String? = nil
    /// Set when ours was killed at this time limit: its figures are the limit, not a measurement.
    var killed_after_s: Double? = nil
    /// The command measured as ours and the reference's, as a shell would run them (paths of
    /// this run's inputs), so that a figure can be reproduced by hand.
    var command: String? = nil
    var reference_command: String? = nil
    /// The load average (1, 5, 15 min) when the row was finished.
    var load: String? = nil

    var line: String {
        let unit = judged_on == .size ? "MiB" : "s"
        var text = String(format: "%-52@ ours %8.4f %@   reference %8.4f %@   ratio %5.2f", name as NSString, ours_s, unit, reference_s, unit, ratio)
        if let cpu_ratio { text += String(format: "   (cpu ratio %5.2f)", cpu_ratio) }
        if let bar_text {
            text += "   bar \(bar_text)\(judged_on.map { " on \($0.rawValue)" } ?? "") \((met ?? false) ? "met" : "NOT MET")"
        } else if let bar {
            text += String(format: "   bar %.2f %@", bar, (met ?? false) ? "met" : "NOT MET")
        }
        if let peak_mib { text += String(format: "   peak %.1f MiB", peak_mib) }
        return text
    }
}

/// One timing: wall-clock seconds, CPU seconds and (for child processes) peak resident memory.
struct Sample {
    var wall: Double
    var cpu: Double
    var peakMiB: Double? = nil
}

/// CPU seconds (user + system) used so far by this process, all its threads, and every child
/// process it has waited for.
///
/// Counting reaped children makes ``timeBoth(_:)`` right for bodies that run a command and
/// wait for it, as the interchange and archive benches do.
func cpuSecondsIncludingChildren() -> Double {
    func seconds(_ who: Int32) -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(who), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
    return seconds(RUSAGE_SELF.rawValue) + seconds(RUSAGE_CHILDREN.rawValue)
}

/// Seconds taken by `body`: wall-clock time.
func time(_ body: () throws -> Void) rethrows -> Double {
    try timeBoth(body).wall
}

/// Wall-clock and CPU time (this process, all threads, and children reaped meanwhile) taken
/// by `body`.
func timeBoth(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
    let start = DispatchTime.now().uptimeNanoseconds, cpuStart = cpuSecondsIncludingChildren()
    try body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, cpuSecondsIncludingChildren() - cpuStart)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

/// How bars are judged when not told otherwise: `--judge wall|cpu` (or the older `--cpu`)
/// forces one time for every ratio bar except the parallel speed-up, which is always wall time.
nonisolated(unsafe) var judgeOverride: Judge? = nil

/// Kept for older call sites: true when `--cpu` was given.
nonisolated(unsafe) var judgeOnCPU = false

/// Runs ours and the reference alternately `runs` times (so machine noise hits both) and
/// compares medians; the bar is a maximum ratio, judged on CPU time unless overridden.
func compare(_ name: String, runs: Int, bar: Double?, judge: Judge = .cpu, setup: () throws -> Void = {},
             ours: () throws -> Void, reference: () throws -> Void) rethrows -> Measurement {
    try compareSamples(name, runs: runs, bar: bar, judge: judge, setup: setup,
                       ours: { let t = try timeBoth(ours); return Sample(wall: t.wall, cpu: t.cpu) },
                       reference: { let t = try timeBoth(reference); return Sample(wall: t.wall, cpu: t.cpu) })
}

/// ``compare(_:runs:bar:judge:setup:ours:reference:)`` for bodies that measure themselves
/// (child processes that report their own figures, or peak memory).
func compareSamples(_ name: String, runs: Int, bar: Double?, judge: Judge = .cpu, setup: () throws -> Void = {},
                    ours: () throws -> Sample, reference: () throws -> Sample) rethrows -> Measurement {
    var a: [Sample] = [], b: [Sample] = []
    for _ in 0..<max(runs, 1) {
        try setup()
        b.append(try reference())
        try setup()
        a.append(try ours())
    }
    let judge = judge == .wall ? .wall : (judgeOverride ?? judge)
    let wallRatio = median(a.map(\.wall)) / max(median(b.map(\.wall)), 1e-9)
    let cpuRatio = median(a.map(\.cpu)) / max(median(b.map(\.cpu)), 1e-9)
    let judged = judge == .wall ? wallRatio : cpuRatio
    let judgedValues = a.map { judge == .wall ? $0.wall : $0.cpu }
    let spread = (judgedValues.max() ?? 0) / max(judgedValues.min() ?? 1, 1e-9)
    var measurement = Measurement(name: name, ours_s: median(a.map(\.wall)), reference_s: median(b.map(\.wall)), ratio: wallRatio,
                                  bar: bar, peak_mib: a.compactMap(\.peakMiB).max(), met: bar.map { judged <= $0 },
                                  runs: a.count, spread: spread)
    measurement.ours_cpu_s = median(a.map(\.cpu))
    measurement.reference_cpu_s = median(b.map(\.cpu))
    measurement.cpu_ratio = cpuRatio
    measurement.reference_peak_mib = b.compactMap(\.peakMiB).max()
    measurement.judged_on = judge
    if let bar { measurement.bar_text = String(format: "≤ %.2gx", bar) }
    return measurement
}

/// The process's peak resident memory so far, in MiB: `VmHWM` of /proc/self/status.
///
/// (`getrusage`'s `ru_maxrss` is not used: a child started from a large parent inherits the
/// parent's figure across exec.)
func peakResidentMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kib = Double(line.split(separator: " ").dropFirst().first ?? "") else { return -1 }
    return kib / 1024
}

/// Prints a result as it is measured (the report is written once at the end), with its
/// commands and the machine's load average.
func report(_ measurement: Measurement) {
    print(measurement.line + "   load \(measurement.load ?? Machine.loadAverage())")
    if let command = measurement.command { print("    ours:      \(command)") }
    if let command = measurement.reference_command { print("    reference: \(command)") }
    fflush(nil)
}

/// A scratch directory for benchmark files, removed at exit.
///
/// Placed under `$DECK_BENCH_TMP` when set (the 1M-card fixtures need a few hundred MiB).
final class Scratch {
    let url: URL
    init() throws {
        let base = ProcessInfo.processInfo.environment["DECK_BENCH_TMP"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        url = base.appendingPathComponent("deck-bench-\(getpid())")
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> URL {
        let file = url.appendingPathComponent(name)
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
        return file
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A benchmark that could not run: a child failed, a tool is missing.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `arguments` as one shell command line (each word quoted when it needs to be).
func shellCommand(_ arguments: [String]) -> String {
    arguments.map { word in
        word.allSatisfy({ $0.isLetter || $0.isNumber || "-_./=:+,@".contains($0) }) && !word.isEmpty
            ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }.joined(separator: " ")
}
