/// One note read from a text file, its columns sorted by role.
///
/// Values stated once for the whole file (`#tags:`, `#deck:`, `#notetype:`) are already
/// merged in, so each row stands on its own.
public struct TextImportRow: Hashable, Sendable {
    /// The first note field.
    public var front: String
    /// The second note field (empty when the row has none).
    public var back: String
    /// The file's tags (`#tags:`) followed by the row's own, split on spaces, without
    /// duplicates.
    public var tags: [String]
    /// The note's GUID, when the file has a GUID column and the cell is not empty.
    public var guid: String?
    /// The note type named by the row's notetype column, else by `#notetype:`.
    public var notetype: String?
    /// The deck named by the row's deck column, else by `#deck:`.
    public var deck: String?
    /// The other note fields, in column order.
    public var extraFields: [TextImportField]
    /// The 1-based line the row starts on.
    public var line: Int

    /// Creates a row.
    public init(front: String, back: String = "", tags: [String] = [], guid: String? = nil,
                notetype: String? = nil, deck: String? = nil, extraFields: [TextImportField] = [],
                line: Int = 0) {
        self.front = front
        self.back = back
        self.tags = tags
        self.guid = guid
        self.notetype = notetype
        self.deck = deck
        self.extraFields = extraFields
        self.line = line
    }
}
