/// An error a command throws to fail with a chosen exit code and a one-line message.
///
/// The entry point prints it as `tool: error: <path>: <reason>` (or `tool: error: <reason>`
/// when there is no path) on standard error and exits with ``exitCode``. Conform your own
/// domain errors to it, or throw a ``CommandFailure``:
///
/// ```swift
/// extension DeckError: CommandError {
///     public var exitCode: ExitCode { isCorrupt ? .dataError : .failure }
///     public var reason: String { description }
/// }
/// ```
public protocol CommandError: Error {
    /// The status the tool exits with.
    var exitCode: ExitCode { get }
    /// The file or resource the error is about, if any; printed before the reason.
    var path: String? { get }
    /// What went wrong, in a short phrase without a trailing period.
    var reason: String { get }
}

extension CommandError {
    /// No path: the message is the reason alone.
    public var path: String? { nil }

    /// The message as printed after `tool: error: `.
    public var message: String {
        if let path { "\(path): \(reason)" } else { reason }
    }
}

/// A ready-made ``CommandError``: an exit code, an optional path and a reason.
///
/// ```swift
/// throw CommandFailure(.noInput, path: input, reason: "no such file")
/// ```
public struct CommandFailure: CommandError, Hashable, Sendable, CustomStringConvertible {
    /// The status the tool exits with.
    public var exitCode: ExitCode
    /// The file the failure is about, if any.
    public var path: String?
    /// What went wrong.
    public var reason: String

    /// Creates a failure with an exit code, the file it concerns and what is wrong.
    public init(_ exitCode: ExitCode, path: String? = nil, reason: String) {
        self.exitCode = exitCode
        self.path = path
        self.reason = reason
    }

    /// The message, as printed after `tool: error: `.
    public var description: String { message }
}
