/// The status a command-line tool exits with.
///
/// The named values follow BSD's `sysexits.h`, so scripts can tell a usage mistake from
/// bad input or an unwritable output. Throw an `ExitCode` from `run()` to exit with that
/// status without printing anything more:
///
/// ```swift
/// guard hasMatches else { throw ExitCode.failure }
/// ```
public struct ExitCode: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric status handed to the operating system.
    public var rawValue: Int32

    /// Creates an exit code from its numeric status.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Creates an exit code from its numeric status.
    public init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// 0: the command did what it was asked.
    public static let success = ExitCode(0)
    /// 1: the command failed for a reason not covered by a more precise code.
    public static let failure = ExitCode(1)
    /// 64 (`EX_USAGE`): the command line was wrong (unknown option, missing argument, bad value).
    public static let usage = ExitCode(64)
    /// 65 (`EX_DATAERR`): the input data was malformed (a corrupt deck, a bad file).
    public static let dataError = ExitCode(65)
    /// 66 (`EX_NOINPUT`): an input file does not exist or cannot be read.
    public static let noInput = ExitCode(66)
    /// 73 (`EX_CANTCREAT`): an output file cannot be created (it exists, or the directory is unwritable).
    public static let cantCreate = ExitCode(73)
    /// 74 (`EX_IOERR`): reading or writing failed part-way (disk full, I/O error).
    public static let ioError = ExitCode(74)

    /// Whether this code reports success.
    public var isSuccess: Bool { rawValue == 0 }

    /// `exit status 64`.
    public var description: String { "exit status \(rawValue)" }
}
