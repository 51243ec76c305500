/// A note field of a text import beyond the front and the back (a cloze note's `Extra`, the
/// third field of a custom note type).
public struct TextImportField: Hashable, Sendable {
    /// The column's label (from `#columns:` or a header row), if the file names its columns.
    public var name: String?
    /// The 1-based column the value came from.
    public var column: Int
    /// The field's text.
    public var value: String

    /// Creates a field.
    public init(name: String?, column: Int, value: String) {
        self.name = name
        self.column = column
        self.value = value
    }
}
