import DeckDocument

/// What an Anki import did: counts a command prints and tests check.
public struct AnkiImportReport: Sendable, Hashable, Codable {
    /// Notes read from the package.
    public var notesRead = 0
    /// Cards added to the deck (one per note).
    public var cardsAdded = 0
    /// Cards added, by kind (`basic`, `reversible`, `cloze`).
    public var cardsByKind: [String: Int] = [:]
    /// Notes skipped because a card with their Anki GUID is already in the deck.
    public var duplicatesSkipped = 0
    /// Notes of other note types, mapped as first field in front and the rest labelled on the back.
    public var mappedAsOther = 0
    /// The names of the note types mapped that way, sorted.
    public var otherNoteTypes: [String] = []
    /// Media files stored (after dropping duplicates by content).
    public var mediaFiles = 0
    /// Media files listed by the package but absent from it.
    public var missingMedia = 0
    /// Review-history entries added.
    public var reviews = 0

    /// Creates an empty report.
    public init() {}
}
