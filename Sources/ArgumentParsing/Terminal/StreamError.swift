#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading standard input or writing standard output or error failed.
///
/// It is a ``CommandError`` with ``ExitCode/ioError`` (74), so a command can let it
/// propagate: `deck: error: standard output: No space left on device`.
public struct StreamError: CommandError, Hashable, Sendable, CustomStringConvertible {
    /// The stream, as the message names it: `standard output`.
    public var stream: String
    /// The `errno` value of the failed call.
    public var code: Int32

    /// Creates an error for a stream and an `errno` value.
    public init(stream: String, code: Int32) {
        self.stream = stream
        self.code = code
    }

    /// Always ``ExitCode/ioError``.
    public var exitCode: ExitCode { .ioError }
    /// The stream's name.
    public var path: String? { stream }
    /// The system's description of `code` (`No space left on device`).
    public var reason: String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// `standard output: No space left on device`.
    public var description: String { message }
}
