/// An Anki deck. Subdecks are spelled with `::` in ``name`` ("French::Verbs"); schema 18
/// collections store the separator as U+001F, which the reader converts.
public struct AnkiDeck: Sendable, Hashable, Identifiable {
    /// The deck's id; 1 is Anki's "Default" deck.
    public var id: Int64
    /// The full name, parents first, separated by `::`.
    public var name: String
    /// The deck's description (HTML).
    public var description: String
    /// Whether this is a filtered ("dynamic") deck, whose cards belong to other decks.
    public var isFiltered: Bool

    /// Creates a deck.
    public init(id: Int64, name: String, description: String = "", isFiltered: Bool = false) {
        self.id = id
        self.name = name
        self.description = description
        self.isFiltered = isFiltered
    }

    /// The name split into its parts: `"A::B"` → `["A", "B"]`.
    public var path: [String] { name.components(separatedBy: "::") }
}
