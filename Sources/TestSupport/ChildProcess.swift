import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a finished child process left: its exit status (or the signal that ended it) and what
/// it printed.
public struct ProcessOutput: CustomStringConvertible, Sendable {
    public var status: Int32
    /// True when the process was ended by a signal (`status` is then the signal number).
    public var signaled: Bool
    public var stdoutData: Data
    public var stderr: String
    /// True when a watchdog killed the process because it ran past its time (a hang).
    public var timedOut: Bool

    public var stdout: String {
        get { String(decoding: stdoutData, as: UTF8.self) }
        set { stdoutData = Data(newValue.utf8) }
    }

    public init(status: Int32, signaled: Bool = false, stdout: String, stderr: String, timedOut: Bool = false) {
        self.init(status: status, signaled: signaled, stdoutData: Data(stdout.utf8), stderr: stderr, timedOut: timedOut)
    }

    public init(status: Int32, signaled: Bool = false, stdoutData: Data, stderr: String, timedOut: Bool = false) {
        (self.status, self.signaled, self.stdoutData, self.stderr, self.timedOut) = (status, signaled, stdoutData, stderr, timedOut)
    }

    public var description: String {
        (timedOut ? "hung (killed after the timeout) " : "") + (signaled ? "signal \(status)" : "exit \(status)")
            + (stderr.isEmpty ? "" : ": " + stderr.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// A child process the test started: it can be signalled, and waited for with both of its
/// output pipes drained at once (a child that fills stderr, a sanitizer report say, while the
/// test reads stdout would otherwise block both forever).
public struct ChildProcess: @unchecked Sendable {
    public let process: Process
    let out: Pipe
    let err: Pipe

    public var pid: Int32 { process.processIdentifier }

    /// Starts `executable arguments…` in `directory` (the test's own when nil) with `environment`
    /// laid over the test's, writes `stdin` to it and closes its input.
    public static func start(_ executable: URL, _ arguments: [String], in directory: URL? = nil, stdin: Data? = nil,
                             environment extra: [String: String] = [:]) throws -> ChildProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !extra.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new } }
        return try start(process, stdin: stdin)
    }

    /// SIGPIPE ignored in this process, once.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Starts a configured `process` with pipes for its standard streams.
    public static func start(_ process: Process, stdin: Data? = nil) throws -> ChildProcess {
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        // Feeding stdin on its own thread: a child that prints much before it reads would
        // otherwise wait on us while we wait on it.
        let writer = input.fileHandleForWriting
        if let stdin, !stdin.isEmpty {
            // Writing to a pipe whose reader has gone raises SIGPIPE, which would end the whole
            // test process: ignored, so the write fails with EPIPE instead.
            _ = ignoreBrokenPipes
            Thread {
                // A child that exits without reading all of it closes the pipe: the write then
                // fails with EPIPE (the throwing write; the old one traps on it), which is the
                // child's business, not the test's (its output and status say what happened).
                try? writer.write(contentsOf: stdin)
                try? writer.close()
            }.start()
        } else {
            try? writer.close()
        }
        return ChildProcess(process: process, out: out, err: err)
    }

    /// Runs `executable arguments…` and waits for it (see ``start(_:_:in:stdin:environment:)``).
    public static func run(_ executable: URL, _ arguments: [String], in directory: URL? = nil, stdin: Data? = nil,
                           environment: [String: String] = [:], timeout: Double? = nil) throws -> ProcessOutput {
        let child = try start(executable, arguments, in: directory, stdin: stdin, environment: environment)
        return timeout.map { child.wait(timeout: $0) } ?? child.wait()
    }

    /// Sends `signal` (harmless when the process has exited but not been reaped).
    public func kill(_ signal: Int32 = SIGKILL) {
        _ = Glibc.kill(process.processIdentifier, signal)
    }

    /// Waits for the process and collects its output.
    public func wait() -> ProcessOutput {
        let errBox = DataBox()
        let done = DispatchSemaphore(value: 0)
        let errHandle = err.fileHandleForReading
        Thread {
            errBox.data = errHandle.readDataToEndOfFile()
            done.signal()
        }.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        process.waitUntilExit()
        return ProcessOutput(status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
                             stdoutData: outData, stderr: String(decoding: errBox.data, as: UTF8.self))
    }

    /// Waits as ``wait()``; a child still running after `timeout` seconds (a hang) is killed
    /// with SIGKILL and reported as such (``ProcessOutput/timedOut``), so a test never hangs on it.
    public func wait(timeout: Double) -> ProcessOutput {
        let finished = DispatchSemaphore(value: 0)
        let watchdog = TimeoutFlag()
        let process = self.process
        Thread {
            if finished.wait(timeout: .now() + timeout) == .timedOut {
                watchdog.fired = true
                _ = Glibc.kill(process.processIdentifier, SIGKILL)
            }
        }.start()
        var output = wait()
        finished.signal()
        output.timedOut = watchdog.fired
        return output
    }
}

/// Data handed from a reading thread to the waiting one (ordered by a semaphore).
public final class DataBox: @unchecked Sendable {
    public var data = Data()
    public init() {}
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

/// Where the package's products and fixtures are.
public enum PackageLayout {
    /// The package root (this file is `Sources/TestSupport/ChildProcess.swift`).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A file of the repository, such as `Fixtures/csv/french-verbs.csv`.
    public static func file(_ path: String) -> URL { root.appendingPathComponent(path) }

    /// The built `deck` executable: `DECK_BINARY` when set (to run a suite against another
    /// build, an older one say, to see a test fail), next to the test bundle, or in the
    /// package's `.build/debug`.
    public static let deck: URL = {
        if let path = ProcessInfo.processInfo.environment["DECK_BINARY"], !path.isEmpty { return URL(fileURLWithPath: path) }
        var candidates: [URL] = []
        if let bundle = Bundle.main.executableURL?.deletingLastPathComponent() {
            candidates.append(bundle.appendingPathComponent("deck"))
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("deck"))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("deck"))
        candidates.append(root.appendingPathComponent(".build/debug/deck"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[candidates.count - 1]
    }()
}
