/// An early, successful exit: printing help or a message instead of running.
///
/// Throw it from `validate()` or `run()`; the tool prints to standard output and exits 0.
public enum CleanExit: Error, Sendable {
    /// Print the help of the given command.
    case helpRequest(any ParsableCommand.Type)
    /// Print a message (a newline is added).
    case message(String)
}
