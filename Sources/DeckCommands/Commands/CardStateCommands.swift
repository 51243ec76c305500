import ArgumentParsing
import DeckDocument
import DeckFilter

/// The cards a command changes: identifiers, or every card matching `--where`.
struct CardSelection: ParsableArguments {
    @Argument(help: ArgumentHelp("The identifiers of the cards (as deck list --cards shows them).", valueName: "card-id"))
    var cardIDs: [Int64] = []
    @Option(name: .customLong("where"), help: ArgumentHelp("Every card matching this filter (deck list --cards --where shows which).", valueName: "filter"))
    var filter: String?

    init() {}

    mutating func validate() throws {
        if cardIDs.isEmpty == (filter == nil) {
            throw ValidationError("give either card identifiers or --where, not both or neither")
        }
    }

    /// The selected cards; an identifier with no card is exit 1 and nothing changes.
    func cards(in document: DeckDocument) throws -> [DeckSchemaV2.Card] {
        if let filter {
            let expression = try ErrorMapping.run { try FilterParser.parse(filter) }
            return try document.cards(ids: try document.cardIDs(where: expression, perCard: true))
        }
        return try document.cards(ids: cardIDs)
    }
}

/// What suspend, unsuspend and flag print: how many cards matched and how many changed.
enum CardStateReport {
    static func print(_ change: BulkChange, verb: String, deck: String, output: OutputOptions) {
        if output.json {
            Terminal.current.stdout.write(JSONValue.object([
                ("deck", .string(deck)), ("matched", .int(change.matched)), ("changed", .int(change.changed)),
            ]).text + "\n")
        } else {
            let unchanged = change.matched - change.changed
            output.say("\(verb) \(change.changed) card\(change.changed == 1 ? "" : "s")" + (unchanged > 0 ? " (\(unchanged) already were)" : ""))
        }
    }
}

/// `deck suspend <deck> (<card-id>... | --where <filter>)`
struct SuspendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suspend",
        abstract: "Suspend cards: they are never studied until unsuspended.",
        discussion: """
            Suspending keeps a card's scheduling (its interval, ease, memory state and review log); deck unsuspend \
            puts it back in the queue its type says (new, learning or review), as Anki does. Every identifier must \
            exist, or nothing changes (exit 1). --where selects cards, not notes: 'card = 2' is each note's second card. \
            Prints how many cards were suspended.
            """,
        examples: [.init("Suspend the cards of a subdeck.", command: "deck suspend French.sampledeck --where 'deck = \"French::Irregular\"'"),
                   .init("Suspend two cards.", command: "deck suspend French.sampledeck 12 13")])

    @Argument(help: ArgumentHelp("The deck holding the cards.", valueName: "deck")) var deck: String
    @OptionGroup var selection: CardSelection
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
        let selection = selection
        let change = try store.change { document in try document.setSuspended(true, cards: try selection.cards(in: document)) }
        CardStateReport.print(change, verb: "suspended", deck: deck, output: output)
    }
}

/// `deck unsuspend <deck> (<card-id>... | --where <filter>)`
struct UnsuspendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unsuspend",
        abstract: "Put suspended cards back in their queue.",
        discussion: """
            A card goes back to the queue of its type (new, learning or review) with its scheduling as it was. Cards \
            that are not suspended are left alone. Every identifier must exist, or nothing changes (exit 1).
            """,
        examples: [.init("Unsuspend every suspended card.", command: "deck unsuspend French.sampledeck --where 'is = suspended'")])

    @Argument(help: ArgumentHelp("The deck holding the cards.", valueName: "deck")) var deck: String
    @OptionGroup var selection: CardSelection
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
        let selection = selection
        let change = try store.change { document in try document.setSuspended(false, cards: try selection.cards(in: document)) }
        CardStateReport.print(change, verb: "unsuspended", deck: deck, output: output)
    }
}

/// `deck flag <deck> <flag> (<card-id>... | --where <filter>)`
struct FlagCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flag",
        abstract: "Set or clear the flag of cards (0 none, 1 red to 7 purple).",
        discussion: """
            Flags are Anki's: 0 clears the flag, 1 red, 2 orange, 3 green, 4 blue, 5 pink, 6 turquoise, 7 purple. \
            'deck list --cards --where "flag = 1"' lists the red ones. Every identifier must exist, or nothing changes (exit 1).
            """,
        examples: [.init("Flag a card red.", command: "deck flag French.sampledeck 1 42"),
                   .init("Clear every flag.", command: "deck flag French.sampledeck 0 --where 'flag != 0'")])

    @Argument(help: ArgumentHelp("The deck holding the cards.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The flag: 0 (none) to 7.", valueName: "flag")) var flag: Int
    @OptionGroup var selection: CardSelection
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    mutating func validate() throws {
        if !DeckDocument.flagRange.contains(flag) { throw ValidationError("the flag must be 0 (none) to 7, not \(flag)") }
    }

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
        let (selection, flag) = (selection, flag)
        let change = try store.change { document in try document.setFlag(flag, cards: try selection.cards(in: document)) }
        CardStateReport.print(change, verb: flag == 0 ? "cleared the flag of" : "flagged", deck: deck, output: output)
    }
}
