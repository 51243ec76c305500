import ArgumentParsing

/// `deck search <deck> <text> [--limit <n>] [--format table|tsv|json]`
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find cards whose front, back or tags contain a text, ignoring case and accents.",
        discussion: """
            'cafe' finds 'Café', and each word matches as a prefix ('conj' finds 'conjugaison'). The best matches come first \
            (SQLite FTS5's bm25 ranking). Exits 1 when nothing matches. \
            With --quiet nothing is printed and the exit status alone says whether anything matched. 'deck import' leaves the cards it adds out of the search index, so the first search after an import indexes \
            them (about 0.2 s per 100,000 cards) and saves the index; while another process has the deck open for \
            writing, a search indexes them in memory instead, each time, until a writer catches up.
            """,
        examples: [.init("Find the verb être.", command: "deck search French.sampledeck etre")])

    @Argument(help: ArgumentHelp("The deck to search.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The text to look for.", valueName: "text")) var text: String
    @Option(help: ArgumentHelp("At most this many cards.", valueName: "n")) var limit: Int?
    @Option(help: "The output format.") var format: CardFormat = .table
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be zero or more") }
    }

    mutating func run() async throws {
        var store = try OpenDeck.open(at: deck, readOnly: true)
        // Cards a bulk import left unindexed: index them for good when the deck can be opened
        // for writing (otherwise the read-only search indexes them in memory, every time).
        if store.hasPendingSearchIndex, let writable = try? OpenDeck.open(at: deck, readOnly: false) { store = writable }
        var stream = CardStream(format: output.json ? .json : format, width: Terminal.current.width, quiet: output.quiet)
        try store.forEachSearchResult(text, limit: limit) { try stream.add($0) }
        try stream.finish()
        if stream.count == 0 { throw ExitCode.failure }
    }
}
