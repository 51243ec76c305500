/// An error that reports a command line that parsed but makes no sense, such as two
/// options that exclude each other.
///
/// Throw it from `validate()` (or `run()`): the tool prints `tool: error: <message>`, the
/// command's usage line and a pointer to its help on standard error, and exits with
/// ``ExitCode/usage`` (64).
public struct ValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The message printed after `tool: error: `.
    public var message: String

    /// Creates a validation error with a message for the user.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
