/// A generated manual page in mdoc: one for the root command (`deck.1`) and one per
/// subcommand, named git-style (`deck-export.1`).
///
/// Pages come from the same declarations as `--help`: the configuration's abstract and
/// discussion, the arguments and their help, plus the configuration's manual-only parts
/// (examples, exit status, environment, files, see also, extra sections).
///
/// ```swift
/// for page in ManualPage.pages(for: Deck.self, date: ManualDate(year: 2026, month: 4, day: 1)) {
///     try page.contents.write(toFile: "man/" + page.fileName, atomically: true, encoding: .utf8)
/// }
/// ```
public struct ManualPage: Sendable, Hashable {
    /// The page's name: the command path joined with dashes (`deck-export`).
    public var name: String
    /// The manual section (1 for commands).
    public var section: Int
    /// The mdoc source.
    public var contents: String

    /// The file name: `deck-export.1`.
    public var fileName: String { "\(name).\(section)" }

    /// Creates a page from its parts.
    public init(name: String, section: Int, contents: String) {
        self.name = name
        self.section = section
        self.contents = contents
    }

    /// The pages of a root command and every subcommand below it, root first.
    public static func pages(for root: any ParsableCommand.Type, date: ManualDate, section: Int = 1) -> [ManualPage] {
        CommandPath.all(from: root).map { ManualPageRenderer(path: $0, date: date, section: section).render() }
    }

    /// The page of one command below `root` (or of `root` itself); `nil` when `command` is
    /// not in the tree.
    public static func page(
        for command: any ParsableCommand.Type, root: any ParsableCommand.Type, date: ManualDate, section: Int = 1
    ) -> ManualPage? {
        CommandPath.find(command, from: root).map { ManualPageRenderer(path: $0, date: date, section: section).render() }
    }
}
