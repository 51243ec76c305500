/// One record of a CSV file: its fields, decoded from UTF-8, and the line it starts on.
///
/// Records may have different numbers of fields (the reader is as lenient as Anki's);
/// check ``count`` where a fixed width matters.
public struct CSVRecord: Hashable, Sendable, RandomAccessCollection, CustomStringConvertible {
    /// The fields, in order.
    public var fields: [String]
    /// The 1-based line on which the record starts (a quoted field may span several lines).
    public var line: Int

    /// Creates a record.
    public init(fields: [String], line: Int) {
        self.fields = fields
        self.line = line
    }

    /// The index of the first field (0).
    public var startIndex: Int { fields.startIndex }
    /// One past the index of the last field: the number of fields.
    public var endIndex: Int { fields.endIndex }
    /// The field at `position`, which must be in `indices` (see ``field(at:)`` otherwise).
    public subscript(position: Int) -> String { fields[position] }

    /// The field at `index`, or `nil` past the end of a short record.
    public func field(at index: Int) -> String? {
        fields.indices.contains(index) ? fields[index] : nil
    }

    /// `line N: [fields]`, for debugging.
    public var description: String { "line \(line): \(fields)" }
}
