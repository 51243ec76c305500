/// A type whose values describe command-line arguments: the property wrappers.
protocol ArgumentDefinitionProvider {
    /// The definitions this property contributes, under its key.
    func argumentDefinitions(for key: InputKey) -> [ArgumentDefinition]
}

/// The arguments of one command, found by reflecting over a fresh instance, in
/// declaration order (option groups flattened in place).
struct ArgumentSet {
    var definitions: [ArgumentDefinition]

    /// Discovers the arguments of a type and checks that they can be parsed unambiguously.
    ///
    /// - Throws: ``ParserError/Reason/invalidDefinition(_:)`` for duplicate names, a
    ///   variadic argument that is not last, or a name the parser reserves (`-h`, `--help`).
    init(_ type: any ParsableArguments.Type, commandName: String) throws(ParserError.Reason) {
        definitions = Self.discover(type, under: [])
        try check(commandName: commandName)
    }

    static func discover(_ type: any ParsableArguments.Type, under prefix: [String]) -> [ArgumentDefinition] {
        let instance = type.init()
        var result: [ArgumentDefinition] = []
        for child in Mirror(reflecting: instance).children {
            guard let label = child.label, let provider = child.value as? any ArgumentDefinitionProvider else {
                continue
            }
            let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
            result += provider.argumentDefinitions(for: InputKey(prefix + [name]))
        }
        return result
    }

    var positionals: [ArgumentDefinition] { definitions.filter(\.isPositional) }
    var namedArguments: [ArgumentDefinition] { definitions.filter { !$0.isPositional } }

    /// The definition a name selects, and whether it is the inverted spelling.
    func definition(named name: Name) -> (definition: ArgumentDefinition, isOn: Bool)? {
        for definition in namedArguments {
            if definition.enablingNames.contains(name) { return (definition, true) }
            if definition.invertedNames.contains(name) { return (definition, false) }
        }
        return nil
    }

    /// Every long name, for suggestions.
    var allLongNames: [String] {
        namedArguments.filter(\.isVisible).flatMap { $0.enablingNames + $0.invertedNames }
            .filter { !$0.isShort }.map(\.description)
    }

    private func check(commandName: String) throws(ParserError.Reason) {
        var seen: Set<Name> = [.long("help"), .short("h")]
        for definition in namedArguments {
            if definition.names.isEmpty {
                throw .invalidDefinition("'\(definition.key)' of '\(commandName)' has no name")
            }
            for name in definition.enablingNames + definition.invertedNames {
                if !seen.insert(name).inserted {
                    throw .invalidDefinition("the name '\(name)' is used twice in '\(commandName)'")
                }
            }
        }
        let positionals = positionals
        for (index, definition) in positionals.enumerated() where index < positionals.count - 1 {
            if definition.isRepeating {
                throw .invalidDefinition(
                    "the variadic argument '<\(definition.valueName)>' of '\(commandName)' must be the last one")
            }
            if !definition.isRequired, positionals[(index + 1)...].contains(where: \.isRequired) {
                throw .invalidDefinition(
                    "the optional argument '<\(definition.valueName)>' of '\(commandName)' comes before a required one")
            }
        }
    }
}
