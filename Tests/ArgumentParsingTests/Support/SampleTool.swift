import ArgumentParsing

// A small `deck`-like tool used by the tests: a root with subcommands (one nested, one with
// a default), a shared option group, enums, custom types, and every property shape.

enum Format: String, CaseIterable, ExpressibleByArgument {
    case csv, tsv, json, apkg, html
}

enum CardKind: String, CaseIterable, ExpressibleByArgument {
    case basic, reversible, cloze
}

/// `front`, `front:desc`: a custom argument type without a list of values.
struct SortKey: ExpressibleByArgument, Equatable, CustomStringConvertible {
    var field: String
    var descending: Bool

    init(field: String, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    init?(argument: String) {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
        guard let field = parts.first, !field.isEmpty, parts.count <= 2 else { return nil }
        switch parts.count == 2 ? parts[1] : "asc" {
        case "asc": self.init(field: String(field))
        case "desc": self.init(field: String(field), descending: true)
        default: return nil
        }
    }

    var description: String { descending ? "\(field):desc" : field }
}

struct SharedOptions: ParsableArguments {
    @Flag(help: "Print machine-readable JSON.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @Flag(inversion: .prefixedNo, help: "Show a progress bar when standard error is a terminal.")
    var progress = true

    mutating func validate() throws {
        if json, quiet { throw ValidationError("--json and --quiet cannot be used together") }
    }
}

struct SampleDeck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deck",
        abstract: "Create, edit and convert flash-card decks.",
        discussion: """
            A deck is a .sampledeck package: a directory holding a SQLite store and a manifest.

            Every subcommand prints its results on standard output and its messages on \
            standard error.
            """,
        version: "1.2.3",
        subcommands: [Create.self, Add.self, Export.self, List.self, Convert.self, Shift.self, Tags.self],
        exitStatus: [
            .init(.success, "Success."),
            .init(.failure, "A failure not covered below."),
            .init(.usage, "The command line was wrong."),
            .init(.noInput, "An input file is missing."),
        ],
        environment: [
            .init("NO_COLOR", "When set to a non-empty value, no colour is used."),
            .init("COLUMNS", "The width help is wrapped to."),
        ],
        seeAlso: [.init("sampledeck", section: 5), .init("bsdtar", section: 1)])
}

struct Create: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create an empty deck.")

    @Argument(help: "The deck to create.")
    var deck: String

    @Option(help: ArgumentHelp("The deck's title.", valueName: "text"))
    var title: String?

    mutating func run() async throws {
        Terminal.current.stdout.write("created \(deck) title=\(title ?? "-")\n")
    }
}

struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a card to a deck.")

    @Argument(help: "The deck to add to.")
    var deck: String

    @Option(help: ArgumentHelp("The front of the card.", valueName: "text"))
    var front: String

    @Option(help: ArgumentHelp("The back of the card.", valueName: "text"))
    var back: String

    @Option(name: .customLong("tag"), help: ArgumentHelp("A tag; repeat for several.", valueName: "tag"))
    var tags: [String] = []

    @Option(help: "The kind of card.")
    var kind: CardKind = .basic
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a deck to another format.",
        discussion: """
            Writes every card of the deck. Use '-' as the output to write to standard output:

                deck export French.sampledeck -o - --format json
            """,
        examples: [.init("Export a deck as CSV.", command: "deck export French.sampledeck -o french.csv")],
        files: [.init("~/.config/deck/export.json", "Default export settings.")],
        extraSections: [.init("Security", "Exported files are written to a temporary name first, then renamed.")])

    @Argument(help: "The deck to export.")
    var deck: String

    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("The file to write ('-' for standard output).", valueName: "file"))
    var output: String

    @Option(name: .shortAndLong, help: "The output format.")
    var format: Format = .csv

    @OptionGroup
    var shared: SharedOptions

    mutating func run() async throws {
        if deck.hasPrefix("missing") {
            throw CommandFailure(.noInput, path: deck, reason: "no such deck")
        }
        if deck == "fail" { throw ExitCode.dataError }
        if deck == "late-usage" { throw ValidationError("the deck name is reserved") }
        if deck == "help-me" { throw CleanExit.helpRequest(Export.self) }
        if deck == "generic" { throw UnexpectedFailure() }
        Terminal.current.stdout.write("export \(deck) -> \(output) as \(format.rawValue)\n")
        Terminal.current.stderr.write("exported\n")
    }
}

/// An error that is not a CommandError.
struct UnexpectedFailure: Error, CustomStringConvertible {
    var description: String { "the cat sat on the keyboard" }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the cards of a deck.")

    @Argument(help: "The deck to list.")
    var deck: String

    @Option(name: .customLong("sort"), help: ArgumentHelp("A sort key, optionally with ':desc'.", valueName: "key"))
    var sortKeys: [SortKey] = []

    @Option(help: ArgumentHelp("Show at most this many cards.", valueName: "n"))
    var limit: Int?

    @Option(help: ArgumentHelp("Skip this many cards.", valueName: "n"))
    var offset = 0

    @Option(help: "The output format.")
    var format: Format = .csv

    @Flag(help: ArgumentHelp("Print the SQL (for debugging).", visibility: .hidden))
    var explain = false

    mutating func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be at least 0") }
    }
}

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert", abstract: "Convert decks and files between formats.")

    @Argument(help: ArgumentHelp("The files to convert.", valueName: "input"))
    var inputs: [String]

    @Option(help: "The format to convert to.")
    var to: Format

    @Option(help: ArgumentHelp("The directory to write to.", valueName: "dir"))
    var outDir: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("How many conversions run at once.", valueName: "n"))
    var jobs = 1

    @Flag(name: .short, help: "Print more; repeat for even more.")
    var verbose: Int

    @OptionGroup
    var shared: SharedOptions
}

/// Numbers, including negative ones, as option values and positional arguments.
struct Shift: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "shift", abstract: "Shift card due dates.")

    @Argument(help: ArgumentHelp("Days to shift by.", valueName: "days"))
    var days: Int

    @Option(help: "A factor applied to intervals.")
    var scale: Double = 1.0

    @Argument(help: ArgumentHelp("An optional deck.", valueName: "deck"))
    var deck: String?
}

struct Tags: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tags", abstract: "Manage the tags of a deck.",
        subcommands: [TagsList.self, TagsRename.self], defaultSubcommand: TagsList.self)
}

struct TagsList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the tags.")

    @Argument(help: "The deck.")
    var deck: String?

    mutating func run() async throws {
        Terminal.current.stdout.write("tags of \(deck ?? "-")\n")
    }
}

struct TagsRename: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a tag.")

    @Argument(help: "The deck.") var deck: String
    @Argument(help: "The tag to rename.") var old: String
    @Argument(help: "Its new name.") var new: String
}

// MARK: - Broken declarations, for the definition checks

struct DuplicateNames: ParsableCommand {
    @Flag(name: .customLong("json")) var first = false
    @Flag(name: .customLong("json")) var second = false
}

struct PlainProperty: ParsableCommand {
    @Flag var json = false
    var cache: [String] = []
}

struct VariadicNotLast: ParsableCommand {
    @Argument var files: [String]
    @Argument var destination: String
}
