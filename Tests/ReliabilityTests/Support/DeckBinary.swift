import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension Tag {
    /// Reliability tests: crash injection, concurrency, hostile input, resource faults.
    @Tag static var reliability: Self
}

/// What a finished `deck` run left: its exit status (or the signal that ended it) and output.
typealias DeckRun = ProcessOutput

/// A `deck` process that was started and may be killed.
typealias RunningDeck = ChildProcess

/// Runs the built `deck` binary (and `sqlite3`) as child processes.
enum DeckBinary {
    /// The package root, for fixtures.
    static var packageRoot: URL { PackageLayout.root }

    /// The built `deck` executable (``PackageLayout/deck``).
    static var executable: URL { PackageLayout.deck }

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
        process.environment = ProcessInfo.processInfo.environment.merging(["COLUMNS": "200"].merging(extra) { _, new in new }) { _, new in new }
        return try ChildProcess.start(process, stdin: stdin)
    }

    /// Runs `deck arguments…` in `directory` and waits for it.
    static func run(_ arguments: [String], in directory: URL, stdin: Data? = nil, shellPrefix: String? = nil,
                    launcher: [String] = []) throws -> DeckRun {
        try start(arguments, in: directory, stdin: stdin, shellPrefix: shellPrefix, launcher: launcher).wait()
    }

    /// `PRAGMA integrity_check` through the `sqlite3` command-line shell (a peer, not our code).
    static func sqliteIntegrity(of store: URL) throws -> String {
        let run = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/sqlite3"), [store.path, "PRAGMA integrity_check; PRAGMA foreign_key_check;"])
        return (run.stdout + run.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func shellQuote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A temporary directory for a test that runs `deck` in it.
final class Scratch: TemporaryTree {
    init(_ label: String = "reliability") throws { try super.init(prefix: "deck-\(label)") }

    func path(_ name: String) -> URL { file(name) }

    func run(_ arguments: String..., stdin: String? = nil) throws -> DeckRun {
        try DeckBinary.run(arguments, in: url, stdin: stdin.map { Data($0.utf8) })
    }
}
