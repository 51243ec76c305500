import ArgumentParsing
import DeckFilter

/// `deck list <deck> [--where <filter>] [--sort <key>[:desc]]... [--limit <n>] [--offset <n>] [--format table|tsv|json]`
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the cards of a deck, filtered, sorted and paged.",
        discussion: """
            A filter reads like: front contains "chat" and (tag = "verbs" or created > 2026-01-01) and not kind = cloze. \
            Fields: id, front, back, kind, tag, created, modified. Sort keys: id, front, back, kind, created, modified, \
            each optionally followed by :desc. Tables fit the terminal and truncate long fields with an ellipsis \
            (column widths are fitted to the first \(CardStream.tableSample) cards); tsv and json print everything. Cards are \
            printed as they are read, so a listing of any size starts at once and uses little memory; a reader that \
            stops early (deck list | head -1) ends it quietly.
            """,
        examples: [.init("The ten first verbs by front.", command: "deck list French.sampledeck --where 'tag = verbs' --sort front --limit 10")])

    @Argument(help: ArgumentHelp("The deck to list.", valueName: "deck")) var deck: String
    @Option(name: .customLong("where"), help: ArgumentHelp("Only cards matching this filter.", valueName: "filter")) var filter: String?
    @Option(help: ArgumentHelp("Sort by this key, ascending or with :desc (repeatable).", valueName: "key[:desc]")) var sort: [String] = []
    @Option(help: ArgumentHelp("At most this many cards.", valueName: "n")) var limit: Int?
    @Option(help: ArgumentHelp("Skip this many cards first.", valueName: "n")) var offset: Int = 0
    @Option(help: "The output format.") var format: CardFormat = .table
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be zero or more") }
        if offset < 0 { throw ValidationError("--offset must be zero or more") }
        for key in sort {
            let name = key.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            if !OpenDeck.sortKeys.contains(name) {
                throw ValidationError("--sort: unknown key '\(name)' (use \(OpenDeck.sortKeys.joined(separator: ", ")))")
            }
            if key.contains(":"), !key.hasSuffix(":desc"), !key.hasSuffix(":asc") {
                throw ValidationError("--sort: '\(key)' must end in :asc or :desc")
            }
        }
    }

    mutating func run() async throws {
        let expression = try filter.map { text in try ErrorMapping.run { try FilterParser.parse(text) } }
        let keys = sort.map { key in
            (field: String(key.split(separator: ":").first ?? ""), descending: key.hasSuffix(":desc"))
        }
        let store = try OpenDeck.open(at: deck, readOnly: true)
        var stream = CardStream(format: output.json ? .json : format, width: Terminal.current.width, quiet: output.quiet)
        try store.forEachCard(where: expression, sortedBy: keys, limit: limit, offset: offset) { try stream.add($0) }
        try stream.finish()
    }
}
