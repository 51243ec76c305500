/// One element of a usage line (`[--format <format>]`), structured so help and manual
/// pages render the same synopsis in their own markup.
struct UsageElement: Equatable {
    enum Kind: Equatable {
        /// A named option or flag; `valueName` is `nil` for flags.
        case named(Name, valueName: String?)
        case positional(String)
        case subcommand
    }

    var kind: Kind
    var isOptional: Bool
    var isRepeating: Bool

    /// The elements of a command's usage: its visible arguments in declaration order, then
    /// `<subcommand>` when it has subcommands.
    static func elements(for command: any ParsableCommand.Type, arguments: [ArgumentDefinition]) -> [UsageElement] {
        var elements: [UsageElement] = arguments.filter(\.isVisible).compactMap { definition in
            switch definition.kind {
            case .positional:
                return UsageElement(kind: .positional(definition.valueName),
                                    isOptional: !definition.isRequired, isRepeating: definition.isRepeating)
            case .option:
                guard let name = definition.preferredName else { return nil }
                return UsageElement(kind: .named(name, valueName: definition.valueName),
                                    isOptional: !definition.isRequired, isRepeating: definition.isRepeating)
            case .flag:
                guard let name = definition.usageFlagName else { return nil }
                return UsageElement(kind: .named(name, valueName: nil), isOptional: true,
                                    isRepeating: definition.isRepeating)
            }
        }
        let configuration = command.configuration
        if !configuration.subcommands.isEmpty {
            elements.append(UsageElement(kind: .subcommand, isOptional: configuration.defaultSubcommand != nil,
                                         isRepeating: false))
        }
        return elements
    }

    /// The element as plain text: `[--tag <tag> ...]`.
    var text: String {
        var text = switch kind {
        case .named(let name, let valueName?): "\(name) <\(valueName)>"
        case .named(let name, nil): name.description
        case .positional(let name): "<\(name)>"
        case .subcommand: "<subcommand>"
        }
        if isRepeating { text += " ..." }
        return isOptional ? "[\(text)]" : text
    }
}
