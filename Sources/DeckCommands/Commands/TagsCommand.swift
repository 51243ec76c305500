import ArgumentParsing
import DeckDocument

/// `deck tags <deck>`, `deck tags rename|remove …`: the tags of a deck's notes.
struct TagsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tags",
        abstract: "List tags with their note counts, rename or remove tags.",
        discussion: """
            Tags belong to notes; '::' separates levels (lang::fr), and renaming or removing a tag does the same to the \
            tags below it. 'deck tags <deck>' lists them (as 'deck tags list'). Names are matched ignoring case.
            """,
        subcommands: [TagsListCommand.self, TagsRenameCommand.self, TagsRemoveCommand.self],
        defaultSubcommand: TagsListCommand.self,
        examples: [.init("Rename a tag everywhere.", command: "deck tags rename French.sampledeck verb verbs")])
}

/// `deck tags list <deck> [--json]`
struct TagsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every tag with the number of notes carrying it.",
        discussion: "Sorted by name. A tag no note carries any more is listed with 0. With --json, one object per tag.",
        examples: [.init("Tags as JSON.", command: "deck tags list French.sampledeck --json")])

    @Argument(help: ArgumentHelp("The deck package (or an archive of one).", valueName: "deck")) var deck: String
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: true)
        let tags = try store.perform { try $0.tagSummaries() }
        if output.quiet { return }
        if output.json {
            Terminal.current.stdout.write(JSONValue.object([
                ("deck", .string(deck)),
                ("tags", .array(tags.map { .object([("name", .string($0.name)), ("notes", .int($0.notes))]) })),
            ]).text + "\n")
            return
        }
        Terminal.current.stdout.write(TextTable.render(headers: ["TAG", "NOTES"],
                                                       rows: tags.map { [$0.name.escapingControlCharacters(), String($0.notes)] },
                                                       rightAligned: [1], width: Terminal.current.width))
    }
}

/// `deck tags rename <deck> <old> <new>`
struct TagsRenameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename",
        abstract: "Rename a tag (and the tags below it) on every note.",
        discussion: """
            A new name another tag already has merges the two. Exits 1 when no tag has the old name, 64 for a new name \
            that is empty or holds spaces. Prints how many notes changed.
            """,
        examples: [.init("Move a tag under a parent.", command: "deck tags rename French.sampledeck verbs fr::verbs")])

    @Argument(help: ArgumentHelp("The deck package.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The tag to rename.", valueName: "old")) var oldName: String
    @Argument(help: ArgumentHelp("Its new name.", valueName: "new")) var newName: String
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
        let (oldName, newName) = (oldName, newName)
        let notes = try store.change { try $0.renameTag(oldName, to: newName) }
        if output.json {
            Terminal.current.stdout.write(JSONValue.object([("deck", .string(deck)), ("from", .string(oldName)), ("to", .string(newName)),
                                                            ("notes", .int(notes))]).text + "\n")
        } else {
            output.say("renamed \(oldName) to \(newName) on \(notes) note\(notes == 1 ? "" : "s")")
        }
    }
}

/// `deck tags remove <deck> <tag>...`
struct TagsRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove tags (and the tags below them) from every note.",
        discussion: "Every tag named must exist, or nothing is removed (exit 1). The notes stay. Prints how many notes changed.",
        examples: [.init("Drop a tag.", command: "deck tags remove French.sampledeck todo")])

    @Argument(help: ArgumentHelp("The deck package.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The tags to remove.", valueName: "tag")) var names: [String] = []
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    mutating func validate() throws {
        if names.isEmpty { throw ValidationError("name at least one tag to remove") }
    }

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
        let names = names
        let notes = try store.change { try $0.removeTags(names) }
        if output.json {
            Terminal.current.stdout.write(JSONValue.object([("deck", .string(deck)), ("removed", .strings(names)),
                                                            ("notes", .int(notes))]).text + "\n")
        } else {
            output.say("removed \(names.joined(separator: ", ")) from \(notes) note\(notes == 1 ? "" : "s")")
        }
    }
}
