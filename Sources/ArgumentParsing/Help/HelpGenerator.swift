/// Renders the help of one command: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS.
struct HelpGenerator {
    /// Where help text starts in a row: labels are indented by 2 and the text column is 26.
    static let labelIndent = 2
    static let textColumn = 26

    let path: CommandPath
    let width: Int
    let arguments: [ArgumentDefinition]

    init(path: CommandPath, width: Int) {
        self.path = path
        self.width = max(width, 40)
        arguments = ArgumentSet.discover(path.leaf, under: []).filter(\.isVisible)
    }

    /// The whole help text, ending with a newline.
    func render() -> String {
        let configuration = path.leaf.configuration
        var sections: [String] = []
        if !configuration.abstract.isEmpty {
            sections.append(("OVERVIEW: " + configuration.abstract).formatted(width: width))
        }
        if !configuration.discussion.isEmpty {
            sections.append(configuration.discussion.formatted(width: width))
        }
        sections.append(usage(prefix: "USAGE: "))

        let positionals = arguments.filter(\.isPositional)
        if !positionals.isEmpty {
            sections.append("ARGUMENTS:\n" + positionals.map(row(for:)).joined(separator: "\n"))
        }

        var optionRows = arguments.filter { !$0.isPositional }.map(row(for:))
        if path.isRoot, !configuration.version.isEmpty {
            optionRows.append(row(label: "--version", text: "Show the version."))
        }
        optionRows.append(row(label: "-h, --help", text: "Show help information."))
        sections.append("OPTIONS:\n" + optionRows.joined(separator: "\n"))

        if !configuration.subcommands.isEmpty {
            let defaultName = configuration.defaultSubcommand?.commandName
            var rows = configuration.subcommands.map { subcommand in
                let name = subcommand.commandName
                return row(label: name + (name == defaultName ? " (default)" : ""),
                           text: subcommand.configuration.abstract)
            }
            if path.isRoot {
                rows.append(row(label: "help", text: "Show subcommand help information."))
            }
            sections.append("SUBCOMMANDS:\n" + rows.joined(separator: "\n"))
            let helpCommand = path.isRoot ? "\(path.displayName) help <subcommand>" : "\(path.displayName) <subcommand> --help"
            sections.append("  See '\(helpCommand)' for detailed help.")
        }
        return sections.joined(separator: "\n\n") + "\n"
    }

    /// The usage line after `prefix`, wrapped with continuation lines aligned after it.
    func usage(prefix: String) -> String {
        let configuration = path.leaf.configuration
        if let usage = configuration.usage {
            return prefix + usage
        }
        let pieces = [path.displayName] + UsageElement.elements(for: path.leaf, arguments: arguments).map(\.text)
        let lines = String.pack(pieces, width: max(width - prefix.count, 20), separator: " ")
        let continuation = String(repeating: " ", count: prefix.count)
        return prefix + lines.joined(separator: "\n" + continuation)
    }

    private func row(for definition: ArgumentDefinition) -> String {
        row(label: definition.helpLabel, text: definition.summary, discussion: definition.help.discussion)
    }

    /// `  label                   text`, with the text wrapped in its column; a label too
    /// long for its column gets a line of its own.
    private func row(label: String, text: String, discussion: String = "") -> String {
        let column = Self.textColumn
        let textWidth = max(width - column, 20)
        let margin = String(repeating: " ", count: column)
        var lines = text.wrapped(to: textWidth)
        if !discussion.isEmpty {
            lines += discussion.formatted(width: textWidth).split(separator: "\n", omittingEmptySubsequences: false)
                .map(String.init)
        }
        let head = String(repeating: " ", count: Self.labelIndent) + label
        guard let first = lines.first else { return head }
        var result: [String]
        if head.count + 2 <= column {
            result = [head + String(repeating: " ", count: column - head.count) + first]
        } else {
            result = [head, margin + first]
        }
        result += lines.dropFirst().map { $0.isEmpty ? "" : margin + $0 }
        return result.joined(separator: "\n")
    }
}
