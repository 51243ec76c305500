/// An Anki note: the field values that one or more cards show.
public struct AnkiNote: Sendable, Hashable, Identifiable {
    /// The note's id, usually a millisecond timestamp.
    public var id: Int64
    /// A globally unique id that survives export and import (Anki matches notes on it).
    public var guid: String
    /// The id of the ``AnkiNoteType`` (`mid`).
    public var noteTypeID: Int64
    /// Last modification, in seconds since 1970.
    public var modified: Int64
    /// Tags, without spaces.
    public var tags: [String]
    /// Field values (HTML), one per note type field, in order.
    public var fields: [String]

    /// Creates a note. An empty `guid` gets a fresh one when written.
    public init(id: Int64, guid: String = "", noteTypeID: Int64, modified: Int64 = 0,
                tags: [String] = [], fields: [String]) {
        self.id = id
        self.guid = guid
        self.noteTypeID = noteTypeID
        self.modified = modified
        self.tags = tags
        self.fields = fields
    }

    /// A new random GUID in Anki's base91 alphabet (10 characters or fewer).
    public static func newGUID() -> String { AnkiText.newGUID() }

    /// Anki's duplicate-check checksum (`csum`) of these fields: the first 4 bytes of the SHA-1 of
    /// the first field with HTML removed and media file names kept, read big-endian.
    public var checksum: UInt32 { AnkiText.checksum(ofFirstField: fields.first ?? "") }
}
