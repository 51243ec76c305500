import ArgumentParsing
import DeckFilter
import Foundation

/// `deck list <deck> [--where <filter>] [--sort <key>[:desc]]... [--limit <n>] [--offset <n>] [--format table|tsv|json]`
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the cards of a deck, filtered, sorted and paged.",
        discussion: """
            A row per note, named by the id of its first card (what edit and rm take); with --cards, a row per card. \
            \(FilterHelp.text) \
            Sort keys: \(OpenDeck.sortKeys.joined(separator: ", ")), each optionally followed by :desc; text sorts as a \
            reader expects, ignoring case, accents and leading punctuation ("¡Buenos días!" under B, "élan" before "etre"), \
            or by its bytes with --byte-order. \
            --columns chooses what is shown (any of \(ListColumn.allCases.map(\.rawValue).joined(separator: ", "))); \
            --cards alone shows \(ListColumn.cardDefaults.map(\.rawValue).joined(separator: ", ")). Tables fit the terminal and \
            truncate long fields with an ellipsis (column widths are fitted to the first \(CardStream.tableSample) rows); \
            tsv and json print everything. Rows are printed as they are read, so a listing of any size starts at once and \
            uses little memory; a reader that stops early (deck list | head -1) ends it quietly.
            """,
        examples: [.init("The ten first verbs by front.", command: "deck list French.sampledeck --where 'tag = verbs' --sort front --limit 10"),
                   .init("The suspended cards of a subdeck tree, with their state.",
                         command: "deck list French.sampledeck --cards --where 'deck = French and is = suspended' --columns id,deck,card,front"),
                   .init("Notes by a field of their type.", command: "deck list Japanese.sampledeck --where 'field.Reading contains \"か\"'")])

    @Argument(help: ArgumentHelp("The deck to list.", valueName: "deck")) var deck: String
    @Option(name: .customLong("where"), help: ArgumentHelp("Only cards matching this filter.", valueName: "filter")) var filter: String?
    @Option(help: ArgumentHelp("Sort by this key, ascending or with :desc (repeatable).", valueName: "key[:desc]")) var sort: [String] = []
    @Option(help: ArgumentHelp("At most this many cards.", valueName: "n")) var limit: Int?
    @Option(help: ArgumentHelp("Skip this many cards first.", valueName: "n")) var offset: Int = 0
    @Option(help: "The output format.") var format: CardFormat = .table
    @Flag(name: .customLong("byte-order"), help: "Sort text by its bytes (Unicode code points) instead of as a reader expects.")
    var byteOrder = false
    @Flag(help: "A row per card instead of a row per note (the filter then matches each card: card = 2 is each note's second card).")
    var cards = false
    @Option(help: ArgumentHelp("The columns to show, separated by commas: \(ListColumn.allCases.map(\.rawValue).joined(separator: ", ")).",
                               valueName: "column,…"))
    var columns: String?
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be zero or more") }
        if offset < 0 { throw ValidationError("--offset must be zero or more") }
        _ = try chosenColumns()
        try SortKeys.validate(sort)
    }

    /// The columns asked for: `--columns`, else the card columns with `--cards`, else nil (the classic listing).
    func chosenColumns() throws -> [ListColumn]? {
        guard let columns else { return cards ? ListColumn.cardDefaults : nil }
        let names = columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !names.isEmpty else { throw ValidationError("--columns: name at least one column") }
        return try names.map { name in
            guard let column = ListColumn(rawValue: name.lowercased()) else {
                throw ValidationError("--columns: unknown column '\(name)' (use \(ListColumn.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return column
        }
    }

    mutating func run() async throws {
        let expression = try filter.map { text in try ErrorMapping.run { try FilterParser.parse(text) } }
        let keys = SortKeys.parse(sort)
        let store = try OpenDeck.open(at: deck, readOnly: true)
        let columns = try chosenColumns()
        var stream = CardStream(format: output.json ? .json : format, width: Terminal.current.width, quiet: output.quiet, columns: columns)
        try store.forEachCard(where: expression, sortedBy: keys, limit: limit, offset: offset, perCard: cards,
                              details: columns?.contains(where: \.needsDetails) ?? false, byteOrder: byteOrder) { try stream.add($0) }
        try stream.finish()
    }
}

/// The `--sort key[:desc]` options of `list` and `search`.
enum SortKeys {
    /// - Throws: ``ValidationError`` for an unknown key or a suffix other than `:asc`/`:desc`.
    static func validate(_ keys: [String]) throws {
        for key in keys {
            let name = key.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            if !OpenDeck.sortKeys.contains(name) {
                throw ValidationError("--sort: unknown key '\(name)' (use \(OpenDeck.sortKeys.joined(separator: ", ")))")
            }
            if key.contains(":"), !key.hasSuffix(":desc"), !key.hasSuffix(":asc") {
                throw ValidationError("--sort: '\(key)' must end in :asc or :desc")
            }
        }
    }

    static func parse(_ keys: [String]) -> [(field: String, descending: Bool)] {
        keys.map { key in (field: String(key.split(separator: ":").first ?? ""), descending: key.hasSuffix(":desc")) }
    }
}
