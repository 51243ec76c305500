import Foundation

/// One measured comparison: our operation against its reference, run in the same process.
struct Measurement: Encodable {
    let name: String
    let ours_s: Double
    let reference_s: Double
    let ratio: Double
    let bar: Double?
    let peak_mib: Double?
    let met: Bool?
    let runs: Int
    let spread: Double

    var line: String {
        var text = String(format: "%-44@ ours %8.4f s   reference %8.4f s   ratio %5.2f", name as NSString, ours_s, reference_s, ratio)
        if let bar { text += String(format: "   bar %.2f %@", bar, (met ?? false) ? "met" : "NOT MET") }
        if let peak_mib { text += String(format: "   peak %.1f MiB", peak_mib) }
        return text
    }
}

/// Seconds taken by `body`.
func time(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

/// Runs ours and the reference alternately `runs` times (so machine noise hits both) and
/// compares medians.
func compare(_ name: String, runs: Int, bar: Double?, setup: () throws -> Void = {}, ours: () throws -> Void, reference: () throws -> Void) rethrows -> Measurement {
    var a: [Double] = [], b: [Double] = []
    for _ in 0..<runs {
        try setup(); b.append(try time(reference))
        try setup(); a.append(try time(ours))
    }
    let ratio = median(a) / max(median(b), 1e-9)
    let spread = (a.max() ?? 0) / max(a.min() ?? 1, 1e-9)
    return Measurement(name: name, ours_s: median(a), reference_s: median(b), ratio: ratio, bar: bar,
                       peak_mib: nil, met: bar.map { ratio <= $0 }, runs: runs, spread: spread)
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
