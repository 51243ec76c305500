import ArgumentParsing
import DeckFilter

/// `deck rm <deck> (<card-id>... | --where <filter>)`
struct RmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove cards by identifier or by filter.",
        discussion: "Every identifier must exist, or nothing is removed (exit 1). Prints the number of cards removed.",
        examples: [.init("Remove the cloze cards.", command: "deck rm French.sampledeck --where 'kind = cloze'")])

    @Argument(help: ArgumentHelp("The deck to remove cards from.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The identifiers of the cards to remove.", valueName: "card-id")) var cardIDs: [Int64] = []
    @Option(name: .customLong("where"), help: ArgumentHelp("Remove the cards matching this filter.", valueName: "filter")) var filter: String?
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    mutating func validate() throws {
        if cardIDs.isEmpty == (filter == nil) {
            throw ValidationError("give either card identifiers or --where, not both or neither")
        }
    }

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
        var ids = cardIDs
        if let filter {
            let expression = try ErrorMapping.run { try FilterParser.parse(filter) }
            ids = try store.cards(where: expression, sortedBy: [], limit: nil, offset: 0).map(\.id)
        } else {
            for id in ids where try store.card(id: id) == nil {
                throw CommandFailure(.failure, path: deck, reason: "no card with id \(id); nothing removed")
            }
        }
        try store.delete(ids: ids)
        if output.json {
            Terminal.current.stdout.write("{\"removed\": \(ids.count)}\n")
        } else {
            output.say("removed \(ids.count) card\(ids.count == 1 ? "" : "s")")
        }
    }
}
