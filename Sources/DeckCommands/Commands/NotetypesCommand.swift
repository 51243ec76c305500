import ArgumentParsing
import DeckDocument

/// `deck notetypes <deck>`, `deck notetypes show <deck> <name>`: the note types of a deck.
struct NotetypesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notetypes",
        abstract: "List the note types of a deck, or show one's fields and card templates.",
        discussion: """
            A note type (Anki's notetype) names the fields of its notes and the card templates that make cards from \
            them. 'deck notetypes <deck>' lists them (as 'deck notetypes list').
            """,
        subcommands: [NotetypesListCommand.self, NotetypesShowCommand.self],
        defaultSubcommand: NotetypesListCommand.self,
        examples: [.init("Show the fields and templates of Basic.", command: "deck notetypes show French.sampledeck Basic")])
}

/// `deck notetypes list <deck> [--json]`
struct NotetypesListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the note types with their kind, fields, templates and note and card counts.",
        discussion: "Sorted by name. With --json, one object per note type with its fields and templates in full.",
        examples: [.init("Note types as JSON.", command: "deck notetypes list French.sampledeck --json")])

    @Argument(help: ArgumentHelp("The deck package (or an archive of one).", valueName: "deck")) var deck: String
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: true)
        let types = try store.perform { try $0.noteTypeSummaries() }
        if output.quiet { return }
        if output.json {
            Terminal.current.stdout.write(JSONValue.object([("deck", .string(deck)), ("notetypes", .array(types.map(Self.json)))]).text + "\n")
            return
        }
        let rows = types.map { type in
            [type.name.escapingControlCharacters(), type.kind, type.fields.joined(separator: ", ").escapingControlCharacters(),
             String(type.templates.count), String(type.notes), String(type.cards)]
        }
        Terminal.current.stdout.write(TextTable.render(headers: ["NOTETYPE", "KIND", "FIELDS", "TEMPLATES", "NOTES", "CARDS"], rows: rows,
                                                       rightAligned: [3, 4, 5], width: Terminal.current.width))
    }

    static func json(_ type: NoteTypeSummary) -> JSONValue {
        .object([("id", .integer(type.id)), ("name", .string(type.name)), ("kind", .string(type.kind)), ("fields", .strings(type.fields)),
                 ("sortField", .int(type.sortField)),
                 ("templates", .array(type.templates.map {
                     .object([("ordinal", .int($0.ordinal)), ("name", .string($0.name)), ("question", .string($0.question)),
                              ("answer", .string($0.answer))])
                 })),
                 ("css", .string(type.css)), ("notes", .int(type.notes)), ("cards", .int(type.cards))])
    }
}

/// `deck notetypes show <deck> <name> [--json]`
struct NotetypesShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a note type's fields, card templates and styling.",
        discussion: "The name is matched ignoring case. Exits 1 when the deck has no such note type (the message lists those it has).",
        examples: [.init("The Cloze type.", command: "deck notetypes show French.sampledeck cloze")])

    @Argument(help: ArgumentHelp("The deck package (or an archive of one).", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The note type's name.", valueName: "name")) var name: String
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: true)
        let types = try store.perform { try $0.noteTypeSummaries() }
        guard let type = types.first(where: { $0.name.lowercased() == name.lowercased() }) else {
            throw CommandFailure(.failure, path: deck, reason: "no note type \"\(name)\"; the deck has \(types.map(\.name).joined(separator: ", "))")
        }
        if output.quiet { return }
        if output.json {
            Terminal.current.stdout.write(JSONValue.object([("deck", .string(deck)), ("notetype", NotetypesListCommand.json(type))]).text + "\n")
            return
        }
        var text = """
            name:       \(type.name.escapingControlCharacters())
            kind:       \(type.kind)
            notes:      \(type.notes)
            cards:      \(type.cards)
            fields:

            """
        for (index, field) in type.fields.enumerated() {
            text += "  \(index + 1). \(field.escapingControlCharacters())\(index == type.sortField ? "  (sort field)" : "")\n"
        }
        text += "templates:\n"
        for template in type.templates {
            text += "  \(template.ordinal + 1). \(template.name.escapingControlCharacters())\n"
            text += "     question: " + TextTable.escapedLines(template.question).replacingOccurrences(of: "\n", with: "\n               ") + "\n"
            text += "     answer:   " + TextTable.escapedLines(template.answer).replacingOccurrences(of: "\n", with: "\n               ") + "\n"
        }
        // Blank template lines stay blank (no indentation left trailing).
        Terminal.current.stdout.write(text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.allSatisfy { $0 == " " } ? "" : String($0) }.joined(separator: "\n"))
    }
}
