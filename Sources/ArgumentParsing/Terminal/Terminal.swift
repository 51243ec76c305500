#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The streams, environment and width a command works with.
///
/// Commands never touch the process's streams directly: they use ``current``, which the
/// entry point sets for the duration of a run. The real tool gets ``standard``; a test
/// passes a capturing terminal and reads back what was printed:
///
/// ```swift
/// let (terminal, output, errors) = Terminal.capturing()
/// let status = await Deck.main(["info", "French.sampledeck"], terminal: terminal)
/// #expect(status == .success)
/// #expect(output.text.contains("French"))
/// ```
public struct Terminal: Sendable {
    /// Where `-` reads from.
    public var stdin: InputReader
    /// Results only, so they can be piped.
    public var stdout: OutputWriter
    /// Messages, warnings and progress.
    public var stderr: OutputWriter
    /// The environment variables the command may consult (`NO_COLOR`, `COLUMNS`, …).
    public var environment: [String: String]
    /// The number of columns help text is wrapped to.
    public var width: Int

    /// Creates a terminal from its parts.
    public init(
        stdin: InputReader, stdout: OutputWriter, stderr: OutputWriter,
        environment: [String: String], width: Int
    ) {
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.environment = environment
        self.width = width
    }

    /// The process's own streams and environment; standard output is buffered unless it is
    /// a terminal (the entry point flushes it, and so does the process's exit).
    public static let standard: Terminal = {
        let environment = processEnvironment()
        atexit { try? Terminal.standard.stdout.flush() }
        return Terminal(
            stdin: .fileDescriptor(STDIN_FILENO, name: "standard input"),
            stdout: .fileDescriptor(STDOUT_FILENO, name: "standard output", buffered: true),
            stderr: .fileDescriptor(STDERR_FILENO, name: "standard error"),
            environment: environment,
            width: detectWidth(environment: environment))
    }()

    /// The terminal of the running command; ``standard`` outside an entry point.
    @TaskLocal public static var current: Terminal = .standard

    /// A terminal that records what is written, for tests.
    ///
    /// - Parameters:
    ///   - input: what standard input returns.
    ///   - width: the width help is wrapped to.
    ///   - environment: the environment the command sees.
    ///   - isTerminal: whether standard output and error claim to be terminals.
    /// - Returns: the terminal and the buffers receiving its standard output and error.
    public static func capturing(
        input: [UInt8] = [], width: Int = 80, environment: [String: String] = [:], isTerminal: Bool = false
    ) -> (terminal: Terminal, stdout: OutputBuffer, stderr: OutputBuffer) {
        let output = OutputBuffer()
        let errors = OutputBuffer()
        let terminal = Terminal(
            stdin: .bytes(input),
            stdout: .buffer(output, isTerminal: isTerminal),
            stderr: .buffer(errors, isTerminal: isTerminal),
            environment: environment,
            width: width)
        return (terminal, output, errors)
    }

    /// Whether colour may be used on `stream`: it is a terminal, `NO_COLOR` is unset or
    /// empty (see no-color.org) and `TERM` is not `dumb`.
    public func allowsColor(on stream: OutputWriter) -> Bool {
        guard stream.isTerminal else { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }

    /// `environ` as a dictionary; each entry is split at its first `=` by bytes (a `Character`
    /// search and a growing dictionary cost every process about 0.6 M instructions).
    private static func processEnvironment() -> [String: String] {
        var count = 0
        while environ[count] != nil { count += 1 }
        var result: [String: String] = [:]
        result.reserveCapacity(count)
        for index in 0..<count {
            guard let pointer = environ[index] else { continue }
            let entry = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            result[String(decoding: entry[..<equals], as: UTF8.self)] = String(decoding: entry[(equals + 1)...], as: UTF8.self)
        }
        return result
    }
}
