import ArgumentParsing
import DeckFilter

/// `deck rm <deck> (<card-id>... | --where <filter>)`
struct RmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove cards by identifier or by filter.",
        discussion: """
            Removes the note of each card named (with all of the note's cards and their review log), or every note --where \
            matches. Every identifier must exist, or nothing is removed (exit 1). --dry-run lists what would be removed and \
            removes nothing. Removing more than one note by --where asks first on a terminal; elsewhere (a script, a pipe) it needs \
            --yes. Prints the number of cards named or matched.
            """,
        examples: [.init("See which cloze notes would go.", command: "deck rm French.sampledeck --where 'kind = cloze' --dry-run"),
                   .init("Remove them from a script.", command: "deck rm French.sampledeck --where 'kind = cloze' --yes")])

    @Argument(help: ArgumentHelp("The deck to remove cards from.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The identifiers of the cards to remove.", valueName: "card-id")) var cardIDs: [Int64] = []
    @Option(name: .customLong("where"), help: ArgumentHelp("Remove the cards matching this filter.", valueName: "filter")) var filter: String?
    @OptionGroup var confirmation: BulkConfirmation
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    mutating func validate() throws {
        if cardIDs.isEmpty == (filter == nil) {
            throw ValidationError("give either card identifiers or --where, not both or neither")
        }
    }

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: confirmation.dryRun, wait: waiting.policy)
        var ids = cardIDs
        if let filter {
            let expression = try ErrorMapping.run { try FilterParser.parse(filter) }
            ids = try store.cards(where: expression, sortedBy: [], limit: nil, offset: 0).map(\.id)
        } else {
            for id in ids where try store.card(id: id) == nil {
                throw CommandFailure(.failure, path: deck, reason: "no card with id \(id); nothing removed")
            }
        }
        if confirmation.dryRun {
            if output.json {
                Terminal.current.stdout.write(JSONValue.object([("deck", .string(deck)), ("dryRun", true), ("removed", .int(0)),
                                                                ("wouldRemove", .array(ids.map { .integer($0) }))]).text + "\n")
            } else if !output.quiet {
                let records = try ids.compactMap { try store.card(id: $0) }
                var stream = CardStream(format: .table, width: Terminal.current.width)
                for record in records { _ = try stream.add(record) }
                try stream.finish()
                output.say("would remove \(ids.count) card\(ids.count == 1 ? "" : "s") (nothing removed: --dry-run)")
            }
            return
        }
        if filter != nil { try confirmation.confirm(ids.count, noun: "note", verb: "removed") }
        try store.delete(ids: ids)
        if output.json {
            Terminal.current.stdout.write("{\"deck\": \(JSONText.quoted(deck)), \"dryRun\": false, \"removed\": \(ids.count)}\n")
        } else {
            output.say("removed \(ids.count) card\(ids.count == 1 ? "" : "s")")
        }
    }
}
