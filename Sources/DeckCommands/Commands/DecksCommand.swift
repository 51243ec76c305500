import ArgumentParsing
import DeckDocument

/// `deck decks <deck>`, `deck decks create|rename|describe …`: the deck tree inside a deck package.
struct DecksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decks",
        abstract: "List the deck tree with card counts, create, rename or describe decks.",
        discussion: """
            A package holds a tree of decks (Anki's decks) named by paths whose levels are separated by '::', such as \
            Languages::French; every card is in one deck. 'deck decks <deck>' lists the tree (as 'deck decks list'). \
            Names are matched ignoring case.
            """,
        subcommands: [DecksListCommand.self, DecksCreateCommand.self, DecksRenameCommand.self, DecksDescribeCommand.self],
        defaultSubcommand: DecksListCommand.self,
        examples: [.init("Show the tree.", command: "deck decks French.sampledeck"),
                   .init("Rename a deck and its subdecks.", command: "deck decks rename French.sampledeck Verbs French::Verbs")])
}

/// `deck decks list <deck> [--json]`
struct DecksListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the deck tree with each deck's card counts (its subdecks' included).",
        discussion: """
            Columns: the deck (indented under its parent), its cards and its subdecks', how many are new, in learning, \
            in review, suspended, and due now (learning cards due by now, review cards due today). With --json, one \
            object per deck in tree order, with its own counts and its total.
            """,
        examples: [.init("The tree as JSON.", command: "deck decks list French.sampledeck --json")])

    @Argument(help: ArgumentHelp("The deck package (or an archive of one).", valueName: "deck")) var deck: String
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: true)
        let decks = try store.perform { try $0.deckSummaries() }
        if output.quiet { return }
        if output.json {
            Terminal.current.stdout.write(JSONValue.object([
                ("deck", .string(deck)), ("decks", .array(decks.map(Self.json))),
            ]).text + "\n")
            return
        }
        let headers = ["DECK", "CARDS", "NEW", "LEARN", "REVIEW", "SUSPENDED", "DUE"]
        let rows = decks.map { summary -> [String] in
            let total = summary.total
            return [String(repeating: "  ", count: summary.depth) + summary.shortName.escapingControlCharacters(),
                    String(total.cards), String(total.new), String(total.learning), String(total.review),
                    String(total.suspended), String(total.due)]
        }
        Terminal.current.stdout.write(TextTable.render(headers: headers, rows: rows, rightAligned: Set(1..<headers.count),
                                                       width: Terminal.current.width))
    }

    static func counts(_ counts: DeckSummary.Counts) -> JSONValue {
        .object([("cards", .int(counts.cards)), ("new", .int(counts.new)), ("learning", .int(counts.learning)),
                 ("review", .int(counts.review)), ("suspended", .int(counts.suspended)), ("buried", .int(counts.buried)),
                 ("due", .int(counts.due))])
    }

    static func json(_ summary: DeckSummary) -> JSONValue {
        .object([("id", .integer(summary.id)), ("name", .string(summary.name)), ("depth", .int(summary.depth)),
                 ("kind", .string(summary.kind)), ("description", .string(summary.deckDescription)),
                 ("own", counts(summary.own)), ("total", counts(summary.total))])
    }
}

/// `deck decks create <deck> <name>`
struct DecksCreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a deck of the tree (and its missing parents).",
        discussion: "Exits 73 when a deck of that name exists (ignoring case). New decks share the Default deck's preset (study options).",
        examples: [.init("A subdeck.", command: "deck decks create French.sampledeck French::Irregular")])

    @Argument(help: ArgumentHelp("The deck package.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The new deck's path, levels separated by '::'.", valueName: "name")) var name: String
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
        let name = name
        let created = try store.change { try $0.createDeck(named: name).name }
        if output.json {
            Terminal.current.stdout.write(JSONValue.object([("deck", .string(deck)), ("created", .string(created))]).text + "\n")
        } else {
            output.say("created deck \(created)")
        }
    }
}

/// `deck decks rename <deck> <old> <new>`
struct DecksRenameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename",
        abstract: "Rename or move a deck, with its subdecks.",
        discussion: """
            Renaming A to B::A moves A (and A::x, …) under B, creating B when missing; the cards stay where they are. \
            Exits 1 when the deck does not exist, 73 when a new name is taken, 64 when the deck would move into its own subtree.
            """,
        examples: [.init("Move a deck under another.", command: "deck decks rename French.sampledeck Verbs French::Verbs")])

    @Argument(help: ArgumentHelp("The deck package.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The deck to rename.", valueName: "old")) var oldName: String
    @Argument(help: ArgumentHelp("Its new path.", valueName: "new")) var newName: String
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
        let (oldName, newName) = (oldName, newName)
        let count = try store.change { try $0.renameDeck(oldName, to: newName) }
        if output.json {
            Terminal.current.stdout.write(JSONValue.object([("deck", .string(deck)), ("from", .string(oldName)), ("to", .string(newName)),
                                                            ("renamed", .int(count))]).text + "\n")
        } else {
            output.say("renamed \(count) deck\(count == 1 ? "" : "s")")
        }
    }
}

/// `deck decks describe <deck> <name> [<text>]`
struct DecksDescribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "Show or set a deck's description.",
        discussion: "Without a text, prints the description. With one, sets it (HTML, as Anki shows it on the deck's overview); an empty text clears it.",
        examples: [.init("Set a description.", command: "deck decks describe French.sampledeck French::Verbs 'The 100 most common verbs.'")])

    @Argument(help: ArgumentHelp("The deck package.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The deck of the tree.", valueName: "name")) var name: String
    @Argument(help: ArgumentHelp("The new description.", valueName: "text")) var text: String?
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    mutating func run() async throws {
        let name = name
        guard let text else {
            let store = try OpenDeck.open(at: deck, readOnly: true)
            let description = try store.perform { document -> String in
                guard let found = try document.existingDeck(named: name) else { throw DeckOrganizeError(.notFound, "no deck named \"\(name)\"") }
                return found.deckDescription
            }
            if output.json {
                Terminal.current.stdout.write(JSONValue.object([("deck", .string(deck)), ("name", .string(name)),
                                                                ("description", .string(description))]).text + "\n")
            } else if !output.quiet {
                Terminal.current.stdout.write(TextTable.escapedLines(description) + (description.isEmpty ? "" : "\n"))
            }
            return
        }
        let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
        try store.change { try $0.setDeckDescription(text, ofDeck: name) }
        if output.json {
            Terminal.current.stdout.write(JSONValue.object([("deck", .string(deck)), ("name", .string(name)),
                                                            ("description", .string(text))]).text + "\n")
        } else {
            output.say("described \(name)")
        }
    }
}
