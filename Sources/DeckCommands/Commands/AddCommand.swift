import ArgumentParsing

/// `deck add <deck> [--type <note type>] (--field <name>=<text>... | --front <text> [--back <text>]) [--tag <tag>]... [--deck <path>]`
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add one note (and the cards it generates) to a deck.",
        discussion: """
            The note is of the note type --type names (ignoring case; the deck's note types are Basic, Basic (and \
            reversed card) and Cloze unless imported ones were added), or of the stock type of --kind (basic by \
            default). --field Name=text sets a field by name; --front and --back set the first two fields. The note \
            makes the cards its type's templates generate (a card per template whose question is not empty; for \
            Cloze, a card per cloze number, so a Cloze note needs {{c1::…}}). Prints the id of the note's first card.
            """,
        examples: [.init("Add a tagged card.", command: "deck add French.sampledeck --front chat --back cat --tag animals"),
                   .init("Add a cloze note to a subdeck.",
                         command: "deck add French.sampledeck --type Cloze --field 'Text={{c1::Paris}} is in France' --deck Geography::Europe")])

    @Argument(help: ArgumentHelp("The deck to add to.", valueName: "deck")) var deck: String
    @Option(help: ArgumentHelp("The note's first field (the question of a Basic note).", valueName: "text")) var front: String?
    @Option(help: ArgumentHelp("The note's second field (the answer of a Basic note).", valueName: "text")) var back: String?
    @Option(name: .customLong("field"), help: ArgumentHelp("A field by name, as Name=text (repeatable).", valueName: "name=text"))
    var fields: [String] = []
    @Option(name: .customLong("type"), help: ArgumentHelp("The note type, by name.", valueName: "note type")) var noteType: String?
    @Option(name: .customLong("deck"), help: ArgumentHelp("The deck path of its cards (created when missing), e.g. Languages::French.", valueName: "path"))
    var deckPath: String?
    @Option(name: .customLong("tag"), help: ArgumentHelp("A tag (repeatable).", valueName: "tag")) var tags: [String] = []
    @Option(help: "The stock note type, when --type is not given: basic (Basic), reversible (Basic (and reversed card)) or cloze (Cloze).")
    var kind: CardKindArgument?
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    mutating func validate() throws {
        if front == nil, fields.isEmpty { throw ValidationError("give --front (and --back) or --field Name=text") }
        if front == "" { throw ValidationError("--front must not be empty") }
        if noteType != nil, kind != nil { throw ValidationError("--kind and --type both name the note type; give one") }
        for field in fields where !field.contains("=") || field.hasPrefix("=") {
            throw ValidationError("--field '\(field)' must be Name=text")
        }
        if let deckPath, deckPath.components(separatedBy: "::").contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw ValidationError("--deck '\(deckPath)' has an empty level")
        }
    }

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
        let named = fields.map { field -> (name: String, value: String) in
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
        let values = front.map { [$0, back ?? ""] } ?? []
        let added: CardRecord
        if noteType == nil, named.isEmpty, deckPath == nil {
            guard let card = try store.add([((kind ?? .basic).rawValue, front ?? "", back ?? "", tags)]).first else { return }
            added = card
        } else {
            added = try store.addNote(typeName: noteType ?? (kind.map { DeckKindNames.name(of: $0) }), fields: named, values: values,
                                      tags: tags, deck: deckPath)
        }
        if output.json {
            Terminal.current.stdout.write(CardPrinter.object(added) + "\n")
        } else {
            output.say(String(added.id))
        }
    }
}

/// The stock note type names of `--kind`.
enum DeckKindNames {
    static func name(of kind: CardKindArgument) -> String {
        switch kind {
        case .basic: "Basic"
        case .reversible: "Basic (and reversed card)"
        case .cloze: "Cloze"
        }
    }
}

extension CardKindArgument: ExpressibleByArgument {}
