import ArgumentParsing

/// `deck edit <deck> <card-id> [--front <text>] [--back <text>] [--tag +<tag>|-<tag>]...`
struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change a card's front, back or tags.",
        discussion: "--tag +name adds a tag, --tag=-name removes one (the = keeps -name from reading as an option). Exits 1 when the card does not exist.",
        examples: [.init("Fix a back and add a tag.", command: "deck edit French.sampledeck 3 --back \"to go\" --tag +motion")])

    @Argument(help: ArgumentHelp("The deck holding the card.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The card's identifier.", valueName: "card-id")) var cardID: Int64
    @Option(help: ArgumentHelp("The new front.", valueName: "text")) var front: String?
    @Option(help: ArgumentHelp("The new back.", valueName: "text")) var back: String?
    @Option(name: .customLong("tag"), help: ArgumentHelp("+tag adds a tag, -tag removes one (repeatable).", valueName: "+tag|-tag"))
    var tagChanges: [String] = []
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    mutating func validate() throws {
        if front == nil, back == nil, tagChanges.isEmpty {
            throw ValidationError("nothing to change: give --front, --back or --tag")
        }
        if front == "" { throw ValidationError("--front must not be empty") }
        for change in tagChanges where !(change.hasPrefix("+") || change.hasPrefix("-")) || change.count < 2 {
            throw ValidationError("--tag '\(change)' must be +name or -name")
        }
    }

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
        guard var card = try store.card(id: cardID) else {
            throw CommandFailure(.failure, path: deck, reason: "no card with id \(cardID)")
        }
        if let front { card.front = front }
        if let back { card.back = back }
        for change in tagChanges {
            let name = String(change.dropFirst())
            if change.hasPrefix("+") {
                if !card.tags.contains(name) { card.tags.append(name) }
            } else {
                card.tags.removeAll { $0 == name }
            }
        }
        let updated = try store.update(card)
        if output.json {
            Terminal.current.stdout.write(CardPrinter.object(updated) + "\n")
        } else {
            output.say("edited \(updated.id)")
        }
    }
}
