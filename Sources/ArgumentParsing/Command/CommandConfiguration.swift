/// The description of a command: its name, help text, version, subcommands, and the
/// extra sections of its manual page.
///
/// Help (`--help`) and manual pages are both generated from this and from the
/// command's argument declarations, so they cannot disagree.
public struct CommandConfiguration: Sendable {
    /// The name typed on the command line; `nil` derives it from the type name in kebab case.
    public var commandName: String?
    /// One sentence saying what the command does (help's OVERVIEW, the man page's NAME).
    public var abstract: String
    /// Longer text for help and the man page's DESCRIPTION; paragraphs are separated by
    /// blank lines, and lines indented by spaces are kept as they are (examples, tables).
    public var discussion: String
    /// A usage line to show instead of the generated one (without the `USAGE:` prefix).
    public var usage: String?
    /// The version printed by `--version` on the root command; empty disables `--version`.
    public var version: String
    /// The commands below this one, in the order help lists them.
    public var subcommands: [any ParsableCommand.Type]
    /// The subcommand that runs when none is named.
    public var defaultSubcommand: (any ParsableCommand.Type)?
    /// Example invocations (man page EXAMPLES).
    public var examples: [Example]
    /// What each exit status means (man page EXIT STATUS); subcommands without their own
    /// inherit their parent's.
    public var exitStatus: [ExitStatus]
    /// Environment variables the command reads (man page ENVIRONMENT); inherited like ``exitStatus``.
    public var environment: [EnvironmentVariable]
    /// Files the command reads or writes (man page FILES).
    public var files: [File]
    /// Related manual pages (man page SEE ALSO); parent and child pages are added automatically.
    public var seeAlso: [Reference]
    /// More man page sections, such as SECURITY, placed after EXAMPLES.
    public var extraSections: [Section]

    /// Creates a configuration; every part is optional.
    public init(
        commandName: String? = nil,
        abstract: String = "",
        discussion: String = "",
        usage: String? = nil,
        version: String = "",
        subcommands: [any ParsableCommand.Type] = [],
        defaultSubcommand: (any ParsableCommand.Type)? = nil,
        examples: [Example] = [],
        exitStatus: [ExitStatus] = [],
        environment: [EnvironmentVariable] = [],
        files: [File] = [],
        seeAlso: [Reference] = [],
        extraSections: [Section] = []
    ) {
        self.commandName = commandName
        self.abstract = abstract
        self.discussion = discussion
        self.usage = usage
        self.version = version
        self.subcommands = subcommands
        self.defaultSubcommand = defaultSubcommand
        self.examples = examples
        self.exitStatus = exitStatus
        self.environment = environment
        self.files = files
        self.seeAlso = seeAlso
        self.extraSections = extraSections
    }
}
