import Foundation

/// One measured comparison: our operation against its reference, run in the same process.
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

    var line: String {
        var text = String(format: "%-44@ ours %8.4f s   reference %8.4f s   ratio %5.2f", name as NSString, ours_s, reference_s, ratio)
        if let cpu_ratio { text += String(format: "   (cpu ratio %5.2f)", cpu_ratio) }
        if let bar { text += String(format: "   bar %.2f %@", bar, (met ?? false) ? "met" : "NOT MET") }
        if let peak_mib { text += String(format: "   peak %.1f MiB", peak_mib) }
        return text
    }
}

/// Seconds taken by `body`: wall-clock time.
func time(_ body: () throws -> Void) rethrows -> Double {
    try timeBoth(body).wall
}

/// Wall-clock and CPU time (this process, all threads) taken by `body`.
///
/// On a loaded machine the CPU time is the steadier estimate of the work done; the suite
/// reports both and judges each bar on CPU time when `--cpu` is given.
func timeBoth(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
    func cpuNow() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
    let start = DispatchTime.now().uptimeNanoseconds, cpuStart = cpuNow()
    try body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, cpuNow() - cpuStart)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

/// Runs ours and the reference alternately `runs` times (so machine noise hits both) and
/// compares medians.
func compare(_ name: String, runs: Int, bar: Double?, setup: () throws -> Void = {}, ours: () throws -> Void, reference: () throws -> Void) rethrows -> Measurement {
    var a: [Double] = [], b: [Double] = [], ac: [Double] = [], bc: [Double] = []
    for _ in 0..<runs {
        try setup()
        let r = try timeBoth(reference)
        b.append(r.wall); bc.append(r.cpu)
        try setup()
        let o = try timeBoth(ours)
        a.append(o.wall); ac.append(o.cpu)
    }
    let ratio = median(a) / max(median(b), 1e-9)
    let cpuRatio = median(ac) / max(median(bc), 1e-9)
    let judged = judgeOnCPU ? cpuRatio : ratio
    let spread = (a.max() ?? 0) / max(a.min() ?? 1, 1e-9)
    var measurement = Measurement(name: name, ours_s: median(a), reference_s: median(b), ratio: ratio, bar: bar,
                                  peak_mib: nil, met: bar.map { judged <= $0 }, runs: runs, spread: spread)
    measurement.ours_cpu_s = median(ac)
    measurement.reference_cpu_s = median(bc)
    measurement.cpu_ratio = cpuRatio
    return measurement
}

/// Whether bars are judged on CPU-time ratios (`--cpu`) rather than wall-clock ratios.
nonisolated(unsafe) var judgeOnCPU = false

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

func report(_ measurement: Measurement) {
    print(measurement.line)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    if let data = try? encoder.encode(measurement) {
        FileHandle.standardError.write(data + Data("\n".utf8))
    }
}

/// A scratch directory for benchmark files, removed at exit.
final class Scratch {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("deck-bench-\(getpid())")
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
