/// Renders one command's manual page in mdoc, from the same descriptions help uses.
struct ManualPageRenderer {
    let path: CommandPath
    let date: ManualDate
    let section: Int
    private let arguments: [ArgumentDefinition]

    init(path: CommandPath, date: ManualDate, section: Int) {
        self.path = path
        self.date = date
        self.section = section
        arguments = ArgumentSet.discover(path.leaf, under: []).filter(\.isVisible)
    }

    /// `deck-export`.
    var pageName: String { path.names.joined(separator: "-") }

    func render() -> ManualPage {
        let configuration = path.leaf.configuration
        var mdoc = MdocWriter()
        mdoc.raw(#".\" Generated from the command's declarations (the same as its --help); do not edit."#)
        mdoc.raw(".Dd " + date.mdocText)
        mdoc.raw(".Dt \(MdocWriter.argument(pageName.uppercased())) \(section)")
        mdoc.raw(".Os")

        mdoc.raw(".Sh NAME")
        mdoc.macro("Nm", pageName)
        mdoc.raw(".Nd " + Self.nameDescription(configuration.abstract))

        mdoc.raw(".Sh SYNOPSIS")
        writeSynopsis(into: &mdoc)

        mdoc.raw(".Sh DESCRIPTION")
        writeDescription(into: &mdoc)

        mdoc.raw(".Sh OPTIONS")
        writeOptions(into: &mdoc)

        let environment = inherited(\.environment)
        if !environment.isEmpty {
            mdoc.raw(".Sh ENVIRONMENT")
            writeList(environment.map { ([.macro("Ev"), .argument($0.name)], $0.description) }, into: &mdoc)
        }
        if !configuration.files.isEmpty {
            mdoc.raw(".Sh FILES")
            writeList(configuration.files.map { ([.macro("Pa"), .argument($0.path)], $0.description) }, into: &mdoc)
        }

        mdoc.raw(".Sh EXIT STATUS")
        let exitStatus = inherited(\.exitStatus)
        if exitStatus.isEmpty {
            mdoc.raw(".Ex -std")
        } else {
            mdoc.prose("The \(path.displayName) command exits with one of these statuses:")
            writeList(exitStatus.map { ([.argument(String($0.code.rawValue))], $0.meaning) }, into: &mdoc)
        }

        if !configuration.examples.isEmpty {
            mdoc.raw(".Sh EXAMPLES")
            for (index, example) in configuration.examples.enumerated() {
                if index > 0 { mdoc.raw(".Pp") }
                mdoc.prose(example.summary)
                mdoc.literal(["$ " + example.command])
            }
        }

        for extra in configuration.extraSections {
            mdoc.macro("Sh", extra.title.uppercased())
            mdoc.prose(extra.body)
        }

        writeSeeAlso(into: &mdoc)
        return ManualPage(name: pageName, section: section, contents: mdoc.text)
    }

    // MARK: - Sections

    /// One line per runnable command at or below this one, as bsdtar lists one line per mode.
    private func writeSynopsis(into mdoc: inout MdocWriter) {
        for commandPath in CommandPath.all(from: path.leaf).map(rebased) {
            // A command with subcommands is described by its subcommands' lines.
            guard commandPath.leaf.configuration.subcommands.isEmpty else { continue }
            var words: [MdocWord] = [.macro("Nm"), .argument(path.root.commandName)]
            for name in commandPath.names.dropFirst() {
                words += [.macro("Cm"), .argument(name)]
            }
            mdoc.line(words)
            let definitions = ArgumentSet.discover(commandPath.leaf, under: []).filter(\.isVisible)
            for element in UsageElement.elements(for: commandPath.leaf, arguments: definitions) {
                mdoc.line(Self.words(for: element))
            }
        }
        if path.isRoot, !path.root.configuration.version.isEmpty {
            mdoc.line([.macro("Nm"), .argument(path.root.commandName), .macro("Fl"), .argument("-version")])
        }
    }

    private func writeDescription(into mdoc: inout MdocWriter) {
        let configuration = path.leaf.configuration
        mdoc.prose(configuration.discussion.isEmpty ? Self.sentence(configuration.abstract) : configuration.discussion)

        let positionals = arguments.filter(\.isPositional)
        if !positionals.isEmpty {
            mdoc.raw(".Pp")
            mdoc.prose("The arguments are as follows:")
            writeList(positionals.map { definition in
                var words: [MdocWord] = [.macro("Ar"), .argument(definition.valueName)]
                if definition.isRepeating { words.append(.argument("...")) }
                return (words, Self.documentation(of: definition))
            }, into: &mdoc)
        }

        let subcommands = configuration.subcommands
        if !subcommands.isEmpty {
            mdoc.raw(".Pp")
            mdoc.prose("The subcommands are as follows:")
            writeList(subcommands.map { subcommand in
                let page = (path.names + [subcommand.commandName]).joined(separator: "-")
                return ListItem(head: [.macro("Cm"), .argument(subcommand.commandName)],
                                text: Self.sentence(subcommand.configuration.abstract),
                                reference: .init(page, section: section))
            }, into: &mdoc)
        }
    }

    /// Options sorted by name, ignoring dashes and case (`-C`, `--format`, `-h`, `--json`, `-o`).
    private func writeOptions(into mdoc: inout MdocWriter) {
        var rows: [(key: String, words: [MdocWord], text: String)] = arguments.filter { !$0.isPositional }.map {
            ($0.preferredName?.bareName ?? $0.key.name, Self.itemWords(for: $0), Self.documentation(of: $0))
        }
        if path.isRoot, !path.root.configuration.version.isEmpty {
            rows.append(("version", [.macro("Fl"), .argument("-version")], "Show the version."))
        }
        rows.append(("help", [.macro("Fl"), .argument("h"), .delimiter(","), .macro("Fl"), .argument("-help")],
                     "Show help information."))
        rows.sort { ($0.key.lowercased(), $0.key) < ($1.key.lowercased(), $1.key) }
        writeList(rows.map { ($0.words, $0.text) }, into: &mdoc)
    }

    private func writeSeeAlso(into mdoc: inout MdocWriter) {
        var references: [CommandConfiguration.Reference] = path.leaf.configuration.seeAlso
        if !path.isRoot {
            var parent = path.names
            parent.removeLast()
            references.append(.init(parent.joined(separator: "-"), section: section))
        }
        references += path.leaf.configuration.subcommands.map {
            .init((path.names + [$0.commandName]).joined(separator: "-"), section: section)
        }
        var seen: Set<String> = []
        references = references.filter { seen.insert("\($0.name).\($0.section)").inserted && $0.name != pageName }
        references.sort { ($0.section, $0.name) < ($1.section, $1.name) }
        guard !references.isEmpty else { return }
        mdoc.raw(".Sh SEE ALSO")
        for (index, reference) in references.enumerated() {
            var words: [MdocWord] = [.macro("Xr"), .argument(reference.name), .argument(String(reference.section))]
            if index < references.count - 1 { words.append(.delimiter(",")) }
            mdoc.line(words)
        }
    }

    // MARK: - Pieces

    /// An entry of a tagged list: its head (after `.It`), its prose, and an optional
    /// "See xx(1) for details." pointer.
    private struct ListItem {
        var head: [MdocWord]
        var text: String
        var reference: CommandConfiguration.Reference?
    }

    /// A tagged list: `.Bl -tag -width Ds`, one `.It` per entry with its prose.
    private func writeList(_ items: [ListItem], into mdoc: inout MdocWriter) {
        mdoc.raw(".Bl -tag -width Ds")
        for item in items {
            mdoc.line([.macro("It")] + item.head)
            mdoc.prose(item.text)
            if let reference = item.reference {
                mdoc.raw("See")
                mdoc.line([.macro("Xr"), .argument(reference.name), .argument(String(reference.section))])
                mdoc.raw("for details.")
            }
        }
        mdoc.raw(".El")
    }

    private func writeList(_ items: [(head: [MdocWord], text: String)], into mdoc: inout MdocWriter) {
        writeList(items.map { ListItem(head: $0.head, text: $0.text) }, into: &mdoc)
    }

    /// The `.It` head of an option: `Fl o Ar file , Fl -output Ar file`.
    private static func itemWords(for definition: ArgumentDefinition) -> [MdocWord] {
        var words: [MdocWord] = []
        let spellings: [Name] = definition.enablingNames + definition.invertedNames
        for (index, name) in spellings.enumerated() {
            if index > 0 { words.append(.delimiter(",")) }
            words += flagWords(name)
            if case .option = definition.kind {
                words += [.macro("Ar"), .argument(definition.valueName)]
            }
        }
        return words
    }

    /// A usage element as mdoc: `Op Fl -tag Ar tag ...`.
    private static func words(for element: UsageElement) -> [MdocWord] {
        var words: [MdocWord] = switch element.kind {
        case .named(let name, let valueName?): flagWords(name) + [.macro("Ar"), .argument(valueName)]
        case .named(let name, nil): flagWords(name)
        case .positional(let name): [.macro("Ar"), .argument(name)]
        case .subcommand: [.macro("Ar"), .argument("subcommand")]
        }
        if element.isRepeating { words.append(.argument("...")) }
        return element.isOptional ? [.macro("Op")] + words : words
    }

    private static func flagWords(_ name: Name) -> [MdocWord] {
        switch name {
        case .short(let character): [.macro("Fl"), .argument(String(character))]
        case .long(let long): [.macro("Fl"), .argument("-" + long)]
        }
    }

    /// The help summary and discussion of an argument, as help shows them.
    private static func documentation(of definition: ArgumentDefinition) -> String {
        let discussion = definition.help.discussion
        return discussion.isEmpty ? definition.summary : definition.summary + "\n\n" + discussion
    }

    /// A configuration list, from this command or the nearest ancestor that has one.
    private func inherited<Item>(_ list: KeyPath<CommandConfiguration, [Item]>) -> [Item] {
        for command in path.commands.reversed() {
            let items = command.configuration[keyPath: list]
            if !items.isEmpty { return items }
        }
        return []
    }

    /// The paths below `path.leaf`, expressed from the real root.
    private func rebased(_ subpath: CommandPath) -> CommandPath {
        subpath.commands.dropFirst().reduce(path) { $0.appending($1) }
    }

    /// `.Nd` text: the abstract without its final period, starting in lower case unless it
    /// starts with an acronym.
    static func nameDescription(_ abstract: String) -> String {
        var text = abstract.trimmingSpaces
        if text.hasSuffix(".") { text.removeLast() }
        let characters = Array(text)
        if characters.count > 1, characters[0].isUppercase, !characters[1].isUppercase {
            text = characters[0].lowercased() + String(characters.dropFirst())
        }
        return MdocWriter.textLine(text.isEmpty ? "no description" : text)
    }

    /// The abstract as a sentence ending with a period.
    static func sentence(_ abstract: String) -> String {
        let text = abstract.trimmingSpaces
        guard let last = text.last else { return "" }
        return ".!?".contains(last) ? text : text + "."
    }
}
