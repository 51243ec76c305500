/// One finding of ``DeckDocument/check()``.
public struct DeckProblem: Sendable, Hashable, CustomStringConvertible {
    /// How bad a finding is.
    public enum Severity: String, Sendable, Hashable, Comparable {
        /// Data is damaged or unreachable (the deck fails `deck check`).
        case error
        /// Something is untidy but nothing is lost (an unreferenced media file).
        case warning

        public static func < (a: Severity, b: Severity) -> Bool { a == .error && b == .warning }
    }

    public let severity: Severity
    public let message: String

    public init(severity: Severity, message: String) {
        self.severity = severity
        self.message = message
    }

    public var description: String { "\(severity.rawValue): \(message)" }
}
