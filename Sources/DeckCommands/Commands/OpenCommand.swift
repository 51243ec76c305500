import ArgumentParsing
import Foundation

/// `deck open <deck> [--autosave <seconds>] [--no-autosave]`
struct OpenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Edit a deck in an interactive session: list, add, edit, rm, search, undo, redo, save, quit.",
        discussion: """
            Commands read from standard input, one per line: list [<filter>], search <text>, \
            add <front> <back> [<tag>]..., edit <id> [front=<text>] [back=<text>] [+<tag>] [-<tag>]..., \
            rm <id>..., undo, redo, save, quit and help; quote texts holding blanks. Changes go to a private \
            working copy and reach the deck on save, on autosave (once the oldest unsaved change is \
            --autosave seconds old, also while waiting at the prompt) and when the session ends (also on SIGTERM or a hangup). quit asks \
            before dropping unsaved changes; at the end of input that is not a terminal the changes are saved. \
            Undo and redo cover every change of the session, saved or not, and keep card identifiers. \
            On a terminal lines can be edited and recalled with libedit or GNU readline when the system has \
            one (set DECK_NO_LINE_EDITING to read plain lines); Ctrl-C drops the line being typed. The deck stays locked for writing during the \
            session; other processes can still read it.
            """,
        examples: [
            .init("Open a deck and edit it interactively.", command: "deck open French.sampledeck"),
            .init("Run session commands from a script.", command: "printf 'add chat cat animals\\nlist\\n' | deck open French.sampledeck"),
        ])

    @Argument(help: ArgumentHelp("The deck to open.", valueName: "deck")) var deck: String
    @Option(help: ArgumentHelp("Save unsaved changes once they are this many seconds old (0: after every change).", valueName: "seconds"))
    var autosave: Int = 30
    @Flag(name: .customLong("no-autosave"), help: "Save only on save and at the end of the session.")
    var noAutosave = false

    init() {}

    mutating func validate() throws {
        if autosave < 0 { throw ValidationError("--autosave must be zero or more") }
    }

    mutating func run() async throws {
        let session = try DeckSession(path: deck, autosaveInterval: noAutosave ? nil : Double(autosave))
        try session.run(editor: LineEditor())
    }
}
