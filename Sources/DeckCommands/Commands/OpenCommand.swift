import ArgumentParsing
import Foundation

/// `deck open <deck> [--autosave <seconds>] [--no-autosave]`
struct OpenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Edit a deck in an interactive session: list, add, edit, rm, search, undo, redo, save, quit.",
        discussion: """
            Commands read from standard input, one per line: list [<filter>], search <text>, \
            add <front> <back> [+<tag>]..., edit <id> [front=<text>] [back=<text>] [+<tag>] [-<tag>]..., \
            rm <id>..., suspend <card-id>..., unsuspend <card-id>..., flag <0-7> <card-id>..., undo (every change is \
            one step), redo, save, quit and help. \(DeckSession.quotingRules) \
            A mistake in a command (an unknown command, a filter that does not parse, a missing card) is reported \
            on standard error and the session goes on. Changes go to a private \
            working copy and reach the deck on save, on autosave (once the oldest unsaved change is \
            --autosave seconds old, also while waiting at the prompt, never while quit is asking) and when the session \
            ends, also on SIGTERM or a hangup, whether input is a terminal or a pipe. quit asks \
            before dropping unsaved changes; at the end of input that is not a terminal the changes are saved. If that \
            last save fails, the working copy is kept and the message says where. \
            Undo and redo cover every change of the session, saved or not, and keep card identifiers. \
            On a terminal lines can be edited and recalled with libedit or GNU readline when the system has \
            one (set DECK_NO_LINE_EDITING to read plain lines); typed text is read as UTF-8; Tab completes commands, \
            tags (after + or -) and edit's front= and back=; Ctrl-C drops the line being typed. Lines typed are kept \
            between sessions in $XDG_STATE_HOME/deck/history (~/.local/state/deck/history when XDG_STATE_HOME is \
            unset), at most \(LineEditor.historyLimit) of them, or in the file DECK_HISTORY_FILE names (empty: no history). \
            With --json each result is one line of JSON: list and search an array of cards as deck list --format json \
            prints them, other commands {"message": …}, mistakes {"error": {"message": …}} on standard error. With \
            --quiet only listings and errors are printed. \
            The deck stays locked for writing during the session; other processes can still read it.
            """,
        examples: [
            .init("Open a deck and edit it interactively.", command: "deck open French.sampledeck"),
            .init("Run session commands from a script.", command: "printf 'add chat cat +animals\\nlist\\n' | deck open French.sampledeck"),
        ],
        environment: DeckTool.configuration.environment + [
            .init("DECK_HISTORY_FILE", "The file lines typed are kept in between sessions; empty: keep no history."),
            .init("XDG_STATE_HOME", "Where the history is kept when DECK_HISTORY_FILE is unset (deck/history inside it)."),
            .init("DECK_NO_LINE_EDITING", "When set, lines are read plainly, without libedit or readline."),
        ])

    @Argument(help: ArgumentHelp("The deck to open.", valueName: "deck")) var deck: String
    @Option(help: ArgumentHelp("Save unsaved changes once they are this many seconds old (0: after every change).", valueName: "seconds"))
    var autosave: Int = 30
    @Flag(name: .customLong("no-autosave"), help: "Save only on save and at the end of the session.")
    var noAutosave = false
    @OptionGroup var waiting: WaitOptions
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func validate() throws {
        if autosave < 0 { throw ValidationError("--autosave must be zero or more") }
    }

    mutating func run() async throws {
        OutputPath.sweepLeftovers()
        let session = try DeckSession(path: deck, autosaveInterval: noAutosave ? nil : Double(autosave), wait: waiting.policy)
        session.printsJSON = output.json
        session.isQuiet = output.quiet
        try session.run(editor: LineEditor(completions: { [weak session] before, word in
            session?.completions(before: before, word: word) ?? []
        }))
    }
}
