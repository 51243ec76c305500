import DeckDocument

/// What an Anki import did: counts a command prints and tests check.
public struct AnkiImportReport: Sendable, Hashable, Codable {
    /// Notes read from the package.
    public var notesRead = 0
    /// Notes added to the deck.
    public var notesAdded = 0
    /// Cards added to the deck: every card of every note added, and cards at new ordinals of notes already there.
    public var cardsAdded = 0
    /// Notes skipped because a note earlier in the package has their GUID.
    public var duplicatesSkipped = 0
    /// Notes whose GUID was in the deck: updated, unchanged or skipped (with the reasons), and
    /// what became of each note type of the package.
    public var updates = ImportUpdateCounts()
    /// Note types added (new to the deck, or added beside a deck's type whose fields changed).
    public var noteTypesAdded = 0
    /// Decks of the package (normal and filtered), including those the deck already had.
    public var decks = 0
    /// Presets of the package.
    public var presets = 0
    /// Media files stored (after dropping duplicates by content).
    public var mediaFiles = 0
    /// Media names stored (two names of equal bytes count twice).
    public var mediaNames = 0
    /// Media files listed by the package but absent from it.
    public var missingMedia = 0
    /// Review-history entries added (those of the cards added).
    public var reviews = 0

    /// Creates an empty report.
    public init() {}
}
