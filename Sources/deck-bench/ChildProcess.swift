import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs commands to completion and measures them: wall-clock time, CPU time (user + system
/// of the command and everything it waited for, from `wait4`), and peak resident memory.
///
/// The peak comes from GNU `/usr/bin/time -f %M`, which forks the command from its own small
/// process: a command spawned straight from this (possibly large) process would report this
/// process's high-water mark, which Linux carries across `exec`. Without `/usr/bin/time` the
/// peak is unknown (nil).
enum ChildProcess {
    /// What a command printed and what it cost.
    struct Result {
        var sample: Sample
        var stdout: String
    }

    static let timeTool: String? = FileManager.default.isExecutableFile(atPath: "/usr/bin/time") ? "/usr/bin/time" : nil

    /// The release `deck` binary beside this one.
    static var deckTool: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("deck").path
    }

    /// This binary, for the child modes of `deck-bench` (`op`, `open-count`, `enumerate-memory`).
    static var benchTool: String { URL(fileURLWithPath: CommandLine.arguments[0]).path }

    /// Runs `program` (a path, or a name looked up in `PATH`) with `arguments`.
    /// - Throws: ``BenchError`` when it cannot start or exits with a non-zero status (with
    ///   the end of its standard error).
    /// - Parameter timeout: seconds after which the command (its whole process group) is
    ///   killed and ``TimedOut`` thrown.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], stdin: URL? = nil, timeout: Double? = nil) throws -> Result {
        let unique = "\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let tmp = FileManager.default.temporaryDirectory
        let outURL = tmp.appendingPathComponent("bench-out-\(unique)")
        let errURL = tmp.appendingPathComponent("bench-err-\(unique)")
        let memURL = tmp.appendingPathComponent("bench-mem-\(unique)")
        defer { for url in [outURL, errURL, memURL] { try? FileManager.default.removeItem(at: url) } }

        let executable: String
        var argv: [String]
        if let timeTool {
            executable = timeTool
            argv = [timeTool, "-f", "%M", "-o", memURL.path, program] + arguments
        } else {
            executable = program.contains("/") ? program : "/usr/bin/env"
            argv = program.contains("/") ? [program] + arguments : ["/usr/bin/env", program] + arguments
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // A file action that can't be recorded would leave the command reading this process's
        // stdin or writing to its stdout: fail instead.
        for (descriptor, path, flags) in [(Int32(0), stdin?.path ?? "/dev/null", O_RDONLY), (1, outURL.path, O_WRONLY | O_CREAT | O_TRUNC),
                                          (2, errURL.path, O_WRONLY | O_CREAT | O_TRUNC)] {
            let code = posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, 0o600)
            guard code == 0 else { throw BenchError("cannot redirect descriptor \(descriptor) of \(program) to \(path): \(String(cString: strerror(code)))") }
        }
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }

        // Its own process group, so that a timeout kills the command and not only /usr/bin/time.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let spawned = posix_spawnp(&pid, executable, &actions, &attributes, cArguments, environ)
        guard spawned == 0 else { throw BenchError("cannot run \(executable): \(String(cString: strerror(spawned)))") }
        let watchdog = Watchdog(group: pid)
        if let timeout {
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { watchdog.fire() }
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let killed = watchdog.finish()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if killed, let timeout { throw TimedOut(command: ([program] + arguments).joined(separator: " "), seconds: timeout) }
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6

        let exitCode = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let stdout = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        guard exitCode == 0 else {
            let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
            throw BenchError("\(([program] + arguments).map { $0.count > 80 ? $0.prefix(60) + "…" : $0 }.joined(separator: " ")) exited \(exitCode): \(stderr.suffix(600))")
        }
        var peak: Double?
        if timeTool != nil, let text = try? String(contentsOf: memURL, encoding: .utf8),
           let kib = text.split(separator: "\n").last.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }) {
            peak = kib / 1024
        }
        return Result(sample: Sample(wall: wall, cpu: cpu, peakMiB: peak), stdout: stdout)
    }

    /// A command killed after its time limit.
    struct TimedOut: Error, CustomStringConvertible {
        var command: String
        var seconds: Double
        var description: String { String(format: "timed out after %.0f s: %@", seconds, command) }
    }

    /// Kills a process group at its deadline unless the process finished first.
    final class Watchdog: @unchecked Sendable {
        private let lock = NSLock()
        private let group: pid_t
        private var done = false
        private var killed = false
        init(group: pid_t) { self.group = group }
        func fire() {
            lock.withLock {
                guard !done else { return }
                killed = true
                kill(-group, SIGKILL)
            }
        }
        /// Marks the process finished; returns whether it was killed.
        func finish() -> Bool {
            lock.withLock { done = true; return killed }
        }
    }

    /// Runs a command that reports its own timing on the last line of standard output as
    /// `<wall seconds> <cpu seconds>` (a Python peer timing only its work, not its start-up);
    /// the peak memory is the whole process's.
    static func runSelfTimed(_ program: String, _ arguments: [String]) throws -> Sample {
        let result = try run(program, arguments)
        let fields = result.stdout.split(separator: "\n").last?.split(separator: " ").compactMap { Double($0) } ?? []
        guard fields.count >= 2 else { throw BenchError("\(program) printed no timing: \(result.stdout.suffix(300))") }
        return Sample(wall: fields[0], cpu: fields[1], peakMiB: result.sample.peakMiB)
    }

    /// Runs `deck` with `arguments` (quietly, without progress bars).
    @discardableResult
    static func deck(_ arguments: [String], timeout: Double? = nil) throws -> Result {
        try run(deckTool, arguments, timeout: timeout)
    }
}
