import ArgumentParsing
import DeckDocument
import FileSafety
import Foundation

/// The `deck` tool: parses the command line and runs one subcommand.
///
/// `DeckTool.main()` (from ``ParsableCommand``) runs it with the process's arguments and
/// exits; `DeckTool.main(_:terminal:)` runs it in-process and returns the exit status.
public struct DeckTool: ParsableCommand {
    /// The version `deck --version` prints.
    public static let version = "0.2.0"

    public static let configuration = CommandConfiguration(
        commandName: "deck",
        abstract: "Create, edit, search, check and archive flash-card decks (.sampledeck).",
        discussion: """
            A deck is a .sampledeck directory holding a SQLite store and a manifest. Each \
            subcommand does one job; results go to standard output, messages and errors to \
            standard error.
            """,
        version: versionText,
        subcommands: [
            CreateCommand.self, InfoCommand.self, AddCommand.self, ListCommand.self, SearchCommand.self,
            EditCommand.self, RmCommand.self, NotetypesCommand.self, DecksCommand.self, TagsCommand.self, SuspendCommand.self,
            UnsuspendCommand.self, FlagCommand.self, OpenCommand.self, CheckCommand.self, MigrateCommand.self, ImportCommand.self, ExportCommand.self, ConvertCommand.self, ArchiveCommand.self,
            UnarchiveCommand.self, StudyCommand.self, ReviewCommand.self, DueCommand.self, StatsCommand.self,
        ],
        examples: [
            .init("Create a deck and fill it from a CSV file.",
                  command: "deck create French.sampledeck --title \"French verbs\" && deck import French.sampledeck verbs.csv"),
            .init("List the first ten cards by front.", command: "deck list French.sampledeck --sort front --limit 10"),
        ],
        exitStatus: DeckTool.exitStatuses,
        environment: [.init("COLUMNS", "The width tables are fitted to when standard output is not a terminal."),
                      .init("NO_COLOR", "When set, no colour is used."),
                      .init("TMPDIR", "Where private temporary folders go (default /tmp): the spool of export -o -, of import - and unarchive -, the working copy of deck open.")],
        seeAlso: [.init("sampledeck", section: 5)],
        extraSections: [DeckTool.signalsSection]
    )

    /// What `deck` does with its temporaries when a signal ends it, and after a SIGKILL.
    static let signalsSection = CommandConfiguration.Section("SIGNALS", """
        Every output is written under a hidden temporary name beside it (.<name>.partial-<pid>-XXXXXX, a folder \
        .<name>.staging-<pid>-XXXXXX) and moved into place when complete, never replacing anything; work folders \
        go in TMPDIR as .deck-<command>.staging-<pid>-XXXXXX. When SIGINT, SIGTERM or SIGHUP ends a command, these \
        are removed and the process ends by that signal (a shell reports 128 plus its number): the output is then \
        absent or whole, and nothing is left beside it or in TMPDIR. SIGPIPE is ignored: a reader that goes away \
        makes the next write fail (EPIPE), which ends the command and removes them the same way. deck open saves its work on \
        SIGTERM and SIGHUP instead. A process killed with SIGKILL cannot clean up: the next run of a writing command \
        removes the temporaries of processes that no longer exist beside its outputs and in TMPDIR, and only those \
        (names of that form, owned by the user); nothing else is ever deleted.
        """)

    static let exitStatuses: [CommandConfiguration.ExitStatus] = [
        .init(.success, "Success."),
        .init(.failure, "The command failed: a card was not found, or a search found nothing."),
        .init(.usage, "The command line is wrong: an unknown command or option, a missing or malformed value, a --where filter that does not parse."),
        .init(.dataError, "An input is malformed: a corrupt deck or one whose check finds errors, a deck of a newer format, a damaged or hostile archive (the message names the entry), a malformed CSV, JSON or Anki file."),
        .init(.noInput, "An input file or deck does not exist, or the folder a new deck should go in."),
        .init(.cantCreate, "An output cannot be created: it exists (nothing is overwritten unless --force is given to export, archive or convert; a deck package is never replaced), or its directory is unwritable or missing."),
        .init(.ioError, "Reading or writing failed part-way, or the deck is in use: another process (deck open, deck import, an app) has had it open for writing for longer than --wait seconds (10 by default; --no-wait: not at all). Readers are never blocked or kept waiting."),
    ]

    /// What `deck --version` prints: the tool's version and the deck format versions it
    /// reads and writes.
    static var versionText: String {
        let format = DeckManifest.currentFormatVersion
        return "deck \(version)\nsampledeck format: reads and writes version \(format); "
            + (format == 1 ? "version 0 is" : "versions 0 to \(format - 1) are") + " upgraded by deck migrate"
    }

    @Option(name: .customLong("generate-manpages"), help: .hidden)
    var manualDirectory: String?

    @Option(name: .customLong("generate-completion-script"), help: .hidden)
    var completionShell: CompletionShell?

    public init() {}

    /// Runs `deck` as a process, the executable's whole `main`: installs the handlers that
    /// remove this process's temporary files and staging folders when SIGINT, SIGTERM or SIGHUP
    /// ends it (``CleanupRegistry``; the process still ends by that signal, so a shell reports
    /// 128 + its number), then runs the command line and exits with its status.
    ///
    /// The handlers go in before anything is created that they must remove; `main()` then
    /// ignores SIGPIPE (a closed pipe is the write error EPIPE, handled on the normal path).
    public static func runAsProcess() async {
        CleanupRegistry.installSignalHandlers()
        // SQLite's own temporary files go to a registered private folder (removed on a signal).
        SQLiteScratch.install()
        // This executable may start a background `deck search --index` (in-process runs never do).
        // Without /proc the searches read the notes until something indexes them.
        do {
            BackgroundIndexing.executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        } catch {
            BackgroundIndexing.executable = nil
        }
        await main()
    }

    public mutating func run() async throws {
        if let completionShell {
            Terminal.current.stdout.write(CompletionScript.script(for: DeckTool.self, shell: completionShell))
            return
        }
        guard let manualDirectory else { throw CleanExit.helpRequest(Self.self) }
        try Self.writeManualPages(to: manualDirectory)
    }

    /// Writes `deck.1` and one `deck-<command>.1` per subcommand into `directory`.
    static func writeManualPages(to directory: String) throws {
        for page in manualPages() {
            let path = (directory as NSString).appendingPathComponent(page.fileName)
            do {
                try page.contents.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                throw CommandFailure(.cantCreate, path: path, reason: "cannot write (\(error.localizedDescription))")
            }
        }
    }

    /// The manual pages, dated with the fixed release date so regenerating them is reproducible.
    static func manualPages() -> [ManualPage] {
        ManualPage.pages(for: DeckTool.self, date: ManualDate(year: 2026, month: 1, day: 1))
    }
}

extension CompletionShell: ExpressibleByArgument {}
