import Foundation

/// Facts about the run for the report's header, read from the system (never typed by hand).
enum Machine {
    /// The 1, 5 and 15 minute load averages.
    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: ", ")
    }

    /// `git rev-parse HEAD`, marked when the work tree has uncommitted changes.
    static func commit() -> String {
        let hash = (try? ChildProcess.run("git", ["rev-parse", "--short=12", "HEAD"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? "unknown"
        let dirty = (try? ChildProcess.run("git", ["status", "--porcelain", "--untracked-files=no"]).stdout.isEmpty == false) ?? false
        return hash + (dirty ? " (with uncommitted changes)" : "")
    }

    static func cpuModel() -> String {
        let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("model name") }
        return line.map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?" } ?? "unknown CPU"
    }

    static func memory() -> String {
        let text = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemTotal:") }),
              let kib = Double(line.split(separator: " ").dropFirst().first ?? "") else { return "memory unknown" }
        return String(format: "%.1f GiB RAM", kib / 1_048_576)
    }

    /// The references' versions.
    static func tools(python: Bool) -> [(String, String)] {
        func first(_ program: String, _ arguments: [String]) -> String {
            ((try? ChildProcess.run(program, arguments).stdout) ?? "?").split(separator: "\n").first.map(String.init) ?? "?"
        }
        var tools = [("sqlite3", first("sqlite3", ["--version"]).split(separator: " ").first.map(String.init) ?? "?"),
                     ("bsdtar", first("bsdtar", ["--version"]).replacingOccurrences(of: "bsdtar ", with: ""))]
        if python {
            tools.append(("genanki", PythonPeers.version("genanki")))
            tools.append(("anki", PythonPeers.version("anki")))
            tools.append(("python", first("python3", ["--version"]).replacingOccurrences(of: "Python ", with: "")))
        }
        return tools
    }
}
