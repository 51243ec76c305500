/// An Anki deck. Subdecks are spelled with `::` in ``name`` ("French::Verbs"); schema 18
/// collections store the separator as U+001F, which the reader converts.
public struct AnkiDeck: Sendable, Hashable, Identifiable {
    /// One search of a filtered deck (Anki's `terms` entry, schema 18 `Filtered.SearchTerm`).
    public struct FilterTerm: Sendable, Hashable {
        /// The search text (`deck:Spanish is:due`).
        public var search: String
        /// How many cards it gathers at most.
        public var limit: Int
        /// The order it gathers them in (Anki's `SearchTerm.Order` number: 0 oldest seen first,
        /// 1 random, 2 increasing intervals, …).
        public var order: Int

        /// Creates a search term.
        public init(search: String, limit: Int = 100, order: Int = 0) {
            self.search = search
            self.limit = limit
            self.order = order
        }
    }

    /// The deck's id; 1 is Anki's "Default" deck.
    public var id: Int64
    /// The full name, parents first, separated by `::`.
    public var name: String
    /// The deck's description (HTML, or Markdown when ``markdownDescription``).
    public var description: String
    /// Whether this is a filtered ("dynamic") deck, whose cards belong to other decks.
    public var isFiltered: Bool
    /// The id of its ``AnkiPreset`` (`conf`; 1 is Anki's default preset); unused by filtered decks.
    public var presetID: Int64
    /// The description is Markdown (`md`).
    public var markdownDescription: Bool
    /// Collapsed in the deck list (`collapsed`).
    public var collapsed: Bool
    /// Filtered decks: the searches that gather its cards (`terms`), in order.
    public var filterTerms: [FilterTerm]
    /// Filtered decks: answers reschedule the cards (`resched`).
    public var reschedules: Bool
    /// Last modification, in seconds since 1970 (`mod`; 0 unknown).
    public var modified: Int64
    /// Options not named above, as the text of a JSON object under their schema-11 keys
    /// (`extendNew`, `extendRev`, `browserCollapsed`, `newToday`, …, `delays`,
    /// `previewAgainSecs`, `desiredRetention`), verbatim; `"{}"` for none.
    public var options: String

    /// Creates a deck.
    public init(id: Int64, name: String, description: String = "", isFiltered: Bool = false,
                presetID: Int64 = 1, markdownDescription: Bool = false, collapsed: Bool = false,
                filterTerms: [FilterTerm] = [], reschedules: Bool = true, modified: Int64 = 0,
                options: String = "{}") {
        self.id = id
        self.name = name
        self.description = description
        self.isFiltered = isFiltered
        self.presetID = presetID
        self.markdownDescription = markdownDescription
        self.collapsed = collapsed
        self.filterTerms = filterTerms
        self.reschedules = reschedules
        self.modified = modified
        self.options = options
    }

    /// The name split into its parts: `"A::B"` → `["A", "B"]`.
    public var path: [String] { name.components(separatedBy: "::") }
}
