/// A filter that cannot be parsed, with the place it goes wrong.
///
/// ``description`` reads like a compiler message, `filter:1:16: expected a value after
/// 'contains'`; ``caretLine`` shows the line of the filter with a caret under the column:
///
/// ```
/// front contains
///                ^
/// ```
///
/// Translators that reject a well-formed filter (an unknown field, a value of the wrong
/// type) can build the same kind of error with ``init(source:line:column:message:)``.
public struct FilterSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The filter text.
    public let source: String
    /// The 1-based line of the problem (filters are usually one line).
    public let line: Int
    /// The 1-based column of the problem, in characters; one past the end of the text for
    /// a filter that stops too early.
    public let column: Int
    /// What is wrong, e.g. `expected a value after 'contains'`.
    public let message: String

    /// Creates an error at a line and column of `source`.
    public init(source: String, line: Int = 1, column: Int, message: String) {
        self.source = source
        self.line = line
        self.column = column
        self.message = message
    }

    /// `filter:LINE:COLUMN: message`.
    public var description: String { "filter:\(line):\(column): \(message)" }

    /// The line of the filter holding the problem, a line break, and a caret under its
    /// column.
    public var caretLine: String {
        let lines = source.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        let text = line >= 1 && line <= lines.count ? String(lines[line - 1]) : ""
        // Keep tabs as tabs so the caret lines up in a terminal.
        let prefix = text.prefix(max(0, column - 1)).map { $0 == "\t" ? "\t" : " " }.joined()
        let padding = String(repeating: " ", count: max(0, column - 1 - text.count))
        return text + "\n" + prefix + padding + "^"
    }
}
