import ArgumentParsing

/// `deck add <deck> --front <text> --back <text> [--tag <tag>]... [--kind basic|reversible|cloze]`
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add one card to a deck.",
        discussion: "Prints the new card's identifier.",
        examples: [.init("Add a tagged card.", command: "deck add French.sampledeck --front chat --back cat --tag animals")])

    @Argument(help: ArgumentHelp("The deck to add to.", valueName: "deck")) var deck: String
    @Option(help: ArgumentHelp("The front (question) of the card.", valueName: "text")) var front: String
    @Option(help: ArgumentHelp("The back (answer) of the card.", valueName: "text")) var back: String
    @Option(name: .customLong("tag"), help: ArgumentHelp("A tag (repeatable).", valueName: "tag")) var tags: [String] = []
    @Option(help: "The kind of card.") var kind: CardKindArgument = .basic
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    mutating func validate() throws {
        if front.isEmpty { throw ValidationError("--front must not be empty") }
    }

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
        let added = try store.add([(kind.rawValue, front, back, tags)])
        for card in added {
            if output.json {
                Terminal.current.stdout.write(CardPrinter.object(card) + "\n")
            } else {
                output.say(String(card.id))
            }
        }
    }
}

extension CardKindArgument: ExpressibleByArgument {}
