import ArgumentParsing
import DeckDocument
import DeckFilter
import Foundation

/// `deck search <deck> <text> [--where <filter>] [--sort <key>[:desc]]... [--limit <n>] [--format table|tsv|json]`, `deck search <deck> --index`
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find cards whose fields or tags contain a text, ignoring case and accents.",
        discussion: """
            'cafe' finds 'Café', and each word matches as a prefix ('conj' finds 'conjugaison'); every word must occur. \
            "a phrase" in quotes matches its words in a row (and a quoted word only whole); 'or' (any case) joins alternatives \
            ('chat or chien', binding looser than the words around it); '-' before a word, phrase or group leaves out what \
            matches it ('verb -irregular'; an exclusion needs a word beside it); parentheses group ('(chat or chien) noir'). \
            Quote 'or' and 'and' to look for those words. A word of Chinese, Japanese, Korean, Thai or another script written \
            without spaces matches inside words too ('本語' finds '日本語'); such a search reads every note (about 0.8 s per \
            million). HTML markup is not searched. The best matches come first: the notes holding the words \
            most often (SQLite FTS5's bm25 ranking without its document-length normalisation; with several words and phrases, the \
            rarer weigh more), then in the order they were added; --sort orders by \
            deck list's keys instead, and --where keeps the cards a deck list filter matches. Exits 1 when nothing matches. \
            With --quiet nothing is printed and the exit status alone says whether anything matched. 'deck import' leaves the cards it adds out of the search index. \
            When few are left out, a search indexes them first (about 0.3 s per 100,000 cards) and saves the index (while another \
            process has the deck open for writing, it indexes them in memory instead, each time, until a writer catches up). When many \
            are (more than 50,000 and an eighth of the deck: a large import), a search reads every note instead, finding the same \
            cards in the same order (about 0.3–0.8 s per million notes), and starts a 'deck search --index' of its own in the background, \
            after which searches use the index again (--no-background-index, or DECK_NO_BACKGROUND_INDEX set, starts none: the \
            searches read the notes until something indexes them). --index brings the index up to date now and prints nothing.
            """,
        examples: [.init("Find the verb être.", command: "deck search French.sampledeck etre"),
                   .init("Either word, without the irregular ones, in a subdeck, by front.",
                         command: "deck search French.sampledeck 'chat or chien -irregular' --where 'deck = French::Animals' --sort front"),
                   .init("Index a large import's cards now rather than in the background.", command: "deck search Big.sampledeck --index")],
        environment: DeckTool.configuration.environment + [
            .init("DECK_NO_BACKGROUND_INDEX", "When set, a search never starts a background 'deck search --index' (as --no-background-index).")])

    @Argument(help: ArgumentHelp("The deck to search.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The text to look for (not with --index).", valueName: "text")) var text: String?
    @Option(name: .customLong("where"), help: ArgumentHelp("Only cards matching this filter (deck list's --where language).", valueName: "filter"))
    var filter: String?
    @Option(help: ArgumentHelp("Sort by this key instead of best match first, ascending or with :desc (repeatable; deck list's keys).",
                               valueName: "key[:desc]"))
    var sort: [String] = []
    @Flag(name: .customLong("byte-order"), help: "With --sort, sort text by its bytes (Unicode code points) instead of as a reader expects.")
    var byteOrder = false
    @Option(help: ArgumentHelp("At most this many cards.", valueName: "n")) var limit: Int?
    @Option(help: "The output format.") var format: CardFormat = .table
    @Flag(help: "Index the cards an import left out of the search index, then exit (a part at a time: other writers get the deck in between); searches nothing.")
    var index = false
    @Flag(name: .customLong("no-background-index"),
          help: "Start no background 'deck search --index' after reading the notes of a large import (scripts that time or lock the deck).")
    var noBackgroundIndex = false
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    /// Notes `--index` indexes per transaction (about 0.3 s each): the deck's lock is let go
    /// between them, so a writer waiting for it gets in.
    static let notesPerTransaction = 100_000

    mutating func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be zero or more") }
        if index, text != nil || filter != nil || !sort.isEmpty { throw ValidationError("--index searches nothing: give no text, --where or --sort with it") }
        try SortKeys.validate(sort)
        if !index, text == nil { throw ValidationError("give the text to look for") }
    }

    mutating func run() async throws {
        if index { return try updateIndex() }
        let text = text ?? ""
        let expression = try filter.map { text in try ErrorMapping.run { try FilterParser.parse(text) } }
        var store = try OpenDeck.open(at: deck, readOnly: true)
        // Many cards a large import left unindexed: read the notes (no write needed), and have a
        // process of its own index them. A few: index them for good when the deck can be opened for
        // writing (otherwise the read-only search indexes them in memory, every time).
        let readsNotes = try store.perform { try $0.searchReadsNotesInstead() }
        // (An archive is read from a private copy: nothing of it is written.)
        if !readsNotes, !store.isArchive, try store.hasPendingSearchIndex() {
            do {
                store = try OpenDeck.open(at: deck, readOnly: false)
            } catch let failure as DeckFailure where failure.kind == .io || failure.kind == .cannotCreate {
                // Another process has the deck open for writing (74), or it can't be written here
                // (read-only media or permissions, 73): a search is a reader and must not fail for
                // that, so it goes on read-only and indexes the few pending notes in memory, as the
                // discussion says; the next search that can write saves them. Anything else (a
                // damaged store) is the search's error.
            }
        }
        var stream = CardStream(format: output.json ? .json : format, width: Terminal.current.width, quiet: output.quiet)
        try store.forEachSearchResult(text, where: expression, sortedBy: SortKeys.parse(sort), limit: limit, byteOrder: byteOrder) {
            try stream.add($0)
        }
        try stream.finish()
        if Self.startsBackgroundIndexing(readsNotes: readsNotes, isArchive: store.isArchive, optedOut: noBackgroundIndex,
                                         environment: Terminal.current.environment) {
            BackgroundIndexing.start(deck: deck)
        }
        if stream.count == 0 { throw ExitCode.failure }
    }

    /// Whether a search starts the background `deck search --index`: after reading the notes of
    /// a deck (not an archive's private copy), unless `--no-background-index` or
    /// `DECK_NO_BACKGROUND_INDEX` (set, whatever its value) says not to.
    static func startsBackgroundIndexing(readsNotes: Bool, isArchive: Bool, optedOut: Bool, environment: [String: String]) -> Bool {
        readsNotes && !isArchive && !optedOut && environment["DECK_NO_BACKGROUND_INDEX"] == nil
    }

    /// `--index`: the catch-up, a transaction at a time, the deck opened for each; a progress
    /// bar on a terminal.
    func updateIndex() throws {
        var progress: ProgressBar?
        var total: Int64 = 0
        defer { progress?.finish() }
        while true {
            let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
            if progress == nil {
                total = try store.perform { try $0.unindexedNoteEstimate() }
                progress = ProgressBar(total: Int(clamping: total), label: "Indexing", unit: .count("note", "notes"),
                                       isEnabled: !output.quiet && !output.noProgress)
            }
            let more = try store.perform { try $0.updateSearchIndex(notesPerTransaction: Self.notesPerTransaction) }
            let left = try store.perform { try $0.unindexedNoteEstimate() }
            progress?.update(completed: Int(clamping: max(total - left, 0)))
            try store.close()
            guard more else { return }
            // A writer polling for the lock (every 100 ms at most) gets it now.
            usleep(150_000)
        }
    }
}

/// The background `deck search --index` a search starts after reading the notes of a large
/// import, so the next searches use the index. Only the `deck` executable starts one
/// (``DeckTool/runAsProcess()`` names it); commands run in-process never do.
enum BackgroundIndexing {
    /// The `deck` executable to run, nil in-process.
    nonisolated(unsafe) static var executable: String?

    /// Starts `deck search <deck> --index` detached from this process's output (its standard
    /// streams are /dev/null; it waits up to a minute for another writer). Best effort: when it
    /// can't start, or fails, the cards stay unindexed and the next search reads the notes again.
    static func start(deck: String) {
        guard let executable else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["search", deck, "--index", "--quiet", "--wait", "60"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return }
    }
}
