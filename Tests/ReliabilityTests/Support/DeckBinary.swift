import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension Tag {
    /// Reliability tests: crash injection, concurrency, hostile input, resource faults.
    @Tag static var reliability: Self
}

/// What a finished `deck` run left: its exit status (or the signal that ended it) and output.
struct DeckRun: CustomStringConvertible {
    var status: Int32
    /// True when the process was ended by a signal (`status` is then the signal number).
    var signaled: Bool
    var stdout: String
    var stderr: String
    /// True when a watchdog killed the process because it ran past its time (a hang).
    var timedOut = false

    var description: String {
        (timedOut ? "hung (killed after the timeout) " : "") + (signaled ? "signal \(status)" : "exit \(status)") + (stderr.isEmpty ? "" : ": " + stderr.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// Runs the built `deck` binary (and `sqlite3`) as child processes.
enum DeckBinary {
    /// The package root, for fixtures.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built `deck` executable: `DECK_BINARY` when set (to run the suite against another
    /// build, such as an older one, to see a test fail), next to the test bundle, or in the
    /// package's `.build/debug`.
    static let executable: URL = {
        if let path = ProcessInfo.processInfo.environment["DECK_BINARY"], !path.isEmpty { return URL(fileURLWithPath: path) }
        var candidates: [URL] = []
        if let bundle = Bundle.main.executableURL?.deletingLastPathComponent() {
            candidates.append(bundle.appendingPathComponent("deck"))
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("deck"))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("deck"))
        candidates.append(packageRoot.appendingPathComponent(".build/debug/deck"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[candidates.count - 1]
    }()

    /// Starts `deck arguments…` in `directory` without waiting for it.
    /// `shellPrefix` runs first in `/bin/sh` (limits, traps); `launcher` is a command that runs deck (setpriv).
    static func start(_ arguments: [String], in directory: URL, stdin: Data? = nil,
                      shellPrefix: String? = nil, launcher: [String] = [], environment extra: [String: String] = [:]) throws -> RunningDeck {
        let process = Process()
        if let first = launcher.first {
            process.executableURL = URL(fileURLWithPath: first)
            process.arguments = Array(launcher.dropFirst()) + [executable.path] + arguments
        } else if let shellPrefix {
            // `shellPrefix` sets limits (ulimit, trap) before exec'ing deck.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            let quoted = ([executable.path] + arguments).map(shellQuote).joined(separator: " ")
            process.arguments = ["-c", shellPrefix + "; exec " + quoted]
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "200"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        return RunningDeck(process: process, out: out, err: err)
    }

    /// Runs `deck arguments…` in `directory` and waits for it.
    static func run(_ arguments: [String], in directory: URL, stdin: Data? = nil, shellPrefix: String? = nil,
                    launcher: [String] = []) throws -> DeckRun {
        try start(arguments, in: directory, stdin: stdin, shellPrefix: shellPrefix, launcher: launcher).wait()
    }

    /// `PRAGMA integrity_check` through the `sqlite3` command-line shell (a peer, not our code).
    static func sqliteIntegrity(of store: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [store.path, "PRAGMA integrity_check; PRAGMA foreign_key_check;"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: data, as: UTF8.self) + String(decoding: errors, as: UTF8.self))
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func shellQuote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A `deck` process that was started and may be killed.
struct RunningDeck {
    let process: Process
    let out: Pipe
    let err: Pipe

    var pid: Int32 { process.processIdentifier }

    /// Sends SIGKILL (harmless when the process has already exited but not been reaped).
    func kill() {
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the process and collects its output; with a `timeout`, a child still running
    /// after that many seconds (a hang) is killed with SIGKILL and reported as such
    /// (``DeckRun/timedOut``), so a test never hangs with it.
    /// Both pipes are drained at once: a child that fills stderr (a sanitizer report) while
    /// we wait on stdout would otherwise block forever.
    func wait(timeout: Double) -> DeckRun {
        let finished = DispatchSemaphore(value: 0)
        let watchdog = TimeoutFlag()
        let process = self.process
        Thread {
            if finished.wait(timeout: .now() + timeout) == .timedOut {
                watchdog.fired = true
                _ = Glibc.kill(process.processIdentifier, SIGKILL)
            }
        }.start()
        var run = wait()
        finished.signal()
        run.timedOut = watchdog.fired
        return run
    }

    /// Waits for the process and collects its output.
    /// Both pipes are drained at once: a child that fills stderr (a sanitizer report) while
    /// we wait on stdout would otherwise block forever.
    func wait() -> DeckRun {
        let errBox = DataBox()
        let done = DispatchSemaphore(value: 0)
        let errHandle = err.fileHandleForReading
        Thread {
            errBox.data = errHandle.readDataToEndOfFile()
            done.signal()
        }.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        let errData = errBox.data
        process.waitUntilExit()
        return DeckRun(status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
                       stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// Data handed from a reading thread to the waiting one (ordered by a semaphore).
final class DataBox: @unchecked Sendable {
    var data = Data()
}

/// Set by a watchdog thread that killed a hung child (read after the child is reaped).
final class TimeoutFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var fired: Bool {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// A temporary directory removed when the test is done.
final class Scratch {
    let url: URL

    init(_ label: String = "reliability") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("deck-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // Restore permissions a test may have taken away, so the directory can be removed.
        if let enumerator = FileManager.default.enumerator(atPath: url.path) {
            _ = chmod(url.path, 0o755)
            while let name = enumerator.nextObject() as? String {
                _ = chmod(url.appendingPathComponent(name).path, 0o755)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }

    func path(_ name: String) -> URL { url.appendingPathComponent(name) }

    func run(_ arguments: String..., stdin: String? = nil) throws -> DeckRun {
        try DeckBinary.run(arguments, in: url, stdin: stdin.map { Data($0.utf8) })
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: path(name))
    }

    /// Every file below the directory, relative paths, sorted.
    func listing() -> [String] {
        (FileManager.default.subpaths(atPath: url.path) ?? []).sorted()
    }
}
