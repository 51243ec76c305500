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

    public init(stream: String, code: Int32) {
        self.stream = stream
        self.code = code
    }

    public var exitCode: ExitCode { .ioError }
    public var path: String? { stream }
    public var reason: String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    public var description: String { message }
}
