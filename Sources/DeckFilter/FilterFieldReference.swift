/// Where a field is named in a filter: lets a translator point at an unknown field.
public struct FilterFieldReference: Hashable, Sendable {
    /// The field name as written.
    public var name: String
    /// 1-based line.
    public var line: Int
    /// 1-based column of its first character.
    public var column: Int

    /// Creates a reference.
    public init(name: String, line: Int, column: Int) {
        self.name = name
        self.line = line
        self.column = column
    }
}
