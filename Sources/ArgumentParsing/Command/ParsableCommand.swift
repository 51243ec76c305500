/// A command of a command-line tool: its configuration, its arguments and what it does.
///
/// ```swift
/// struct Export: ParsableCommand {
///     static let configuration = CommandConfiguration(
///         commandName: "export",
///         abstract: "Write a deck to another format.")
///
///     @Argument(help: "The deck to export.") var deck: String
///     @Option(name: .customShort("o"), help: ArgumentHelp("The output file ('-' for stdout).", valueName: "file"))
///     var output: String
///
///     mutating func run() async throws {
///         Terminal.current.stdout.write("exported \(deck)\n")
///     }
/// }
/// ```
///
/// A root command lists its subcommands in its configuration and runs with
/// ``main()`` (from an executable) or ``main(_:terminal:)`` (in-process, in tests).
public protocol ParsableCommand: ParsableArguments {
    /// The name, help text, subcommands and manual-page sections of the command.
    static var configuration: CommandConfiguration { get }

    /// Does the command's work, after parsing and ``validate()``.
    ///
    /// Write results to `Terminal.current.stdout` and messages to `Terminal.current.stderr`.
    /// Throw a ``CommandError`` to fail with an exit code and a message, ``ExitCode`` to
    /// exit quietly, ``ValidationError`` for a usage mistake found late. The default shows
    /// the command's help (what a command with subcommands does when none is named).
    mutating func run() async throws

    /// Whether the command's `--format` option names the format of what it prints, so that
    /// `--format json` asks for JSON output (and errors as JSON, as `--json` does). A
    /// command whose `--format` names the format of a file it reads or writes (`export
    /// --format json -o cards.json`) returns `false`: its errors stay lines of text.
    /// The default is `true`.
    static var formatOptionNamesOutput: Bool { get }
}

extension ParsableCommand {
    /// An empty configuration: the command's name is its type's name in kebab case.
    public static var configuration: CommandConfiguration { CommandConfiguration() }

    public static var formatOptionNamesOutput: Bool { true }

    /// Shows the command's help (by throwing ``CleanExit/helpRequest(_:)``).
    public mutating func run() async throws {
        throw CleanExit.helpRequest(Self.self)
    }
}
