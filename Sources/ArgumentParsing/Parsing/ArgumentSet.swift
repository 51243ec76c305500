@_spi(Reflection) import Swift

/// A type whose values describe command-line arguments: the property wrappers.
protocol ArgumentDefinitionProvider {
    /// The definitions this property contributes, under its key.
    func argumentDefinitions(for key: InputKey) -> [ArgumentDefinition]
}

extension ArgumentDefinitionProvider {
    /// A copy of the property stored at `pointer` (a field of a command's instance).
    static func value(at pointer: UnsafeRawPointer) -> any ArgumentDefinitionProvider {
        pointer.assumingMemoryBound(to: Self.self).pointee
    }
}

/// The arguments of one command, found by reflecting over a fresh instance, in
/// declaration order (option groups flattened in place).
struct ArgumentSet {
    let definitions: [ArgumentDefinition]
    /// Every name of an option or flag (enabling and inverted spellings) and the definition it
    /// selects, built once when the set is made: a name's spellings are derived from the
    /// property's name (kebab case), which per option token cost a command line of 20,000
    /// `--tag`s a third of its run.
    private let namesTable: [Name: (index: Int, isOn: Bool)]

    /// Discovers the arguments of a type and checks that they can be parsed unambiguously.
    ///
    /// - Throws: ``ParserError/Reason/invalidDefinition(_:)`` for duplicate names, a
    ///   variadic argument that is not last, or a name the parser reserves (`-h`, `--help`).
    init(_ type: any ParsableArguments.Type, commandName: String) throws(ParserError.Reason) {
        definitions = Self.discover(type, under: [])
        namesTable = try Self.check(definitions, commandName: commandName)
    }

    static func discover(_ type: any ParsableArguments.Type, under prefix: [String]) -> [ArgumentDefinition] {
        discover(type.init(), under: prefix)
    }

    /// The stored properties of a struct are read through the runtime's field records
    /// (`_forEachField`: name, offset and type of each), which is what `Mirror` reads too,
    /// without the boxes, type-erased collections and per-child existentials a `Mirror`
    /// makes: those were a third of parsing a command line. A class (whose instance is a
    /// reference) or anything the records don't describe is reflected with `Mirror`.
    private static func discover<T: ParsableArguments>(_ instance: T, under prefix: [String]) -> [ArgumentDefinition] {
        var result: [ArgumentDefinition] = []
        func add(_ label: String, _ provider: any ArgumentDefinitionProvider) {
            let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
            result += provider.argumentDefinitions(for: InputKey(prefix + [name]))
        }
        if !(T.self is AnyClass) {
            let complete = withUnsafeBytes(of: instance) { bytes in
                _forEachField(of: T.self) { name, offset, fieldType, _ in
                    guard let wrapper = fieldType as? any ArgumentDefinitionProvider.Type else { return true }
                    add(String(cString: name), wrapper.value(at: bytes.baseAddress! + offset))
                    return true
                }
            }
            if complete { return result }
            result = []
        }
        for child in Mirror(reflecting: instance).children {
            guard let label = child.label, let provider = child.value as? any ArgumentDefinitionProvider else { continue }
            add(label, provider)
        }
        return result
    }

    var positionals: [ArgumentDefinition] { definitions.filter(\.isPositional) }
    var namedArguments: [ArgumentDefinition] { definitions.filter { !$0.isPositional } }

    /// The definition a name selects, and whether it is the inverted spelling.
    func definition(named name: Name) -> (definition: ArgumentDefinition, isOn: Bool)? {
        guard let (index, isOn) = namesTable[name] else { return nil }
        return (definitions[index], isOn)
    }

    /// Every long name, for suggestions.
    var allLongNames: [String] {
        namedArguments.filter(\.isVisible).flatMap { $0.enablingNames + $0.invertedNames }
            .filter { !$0.isShort }.map(\.description)
    }

    /// Checks that the definitions can be parsed unambiguously and returns the table of their
    /// names.
    private static func check(
        _ definitions: [ArgumentDefinition], commandName: String
    ) throws(ParserError.Reason) -> [Name: (index: Int, isOn: Bool)] {
        var table: [Name: (index: Int, isOn: Bool)] = [:]
        let reserved: Set<Name> = [.long("help"), .short("h")]
        for (index, definition) in definitions.enumerated() where !definition.isPositional {
            if definition.names.isEmpty {
                throw .invalidDefinition("'\(definition.key)' of '\(commandName)' has no name")
            }
            let spellings = definition.enablingNames.map { ($0, true) } + definition.invertedNames.map { ($0, false) }
            for (name, isOn) in spellings {
                if reserved.contains(name) || table[name] != nil {
                    throw .invalidDefinition("the name '\(name)' is used twice in '\(commandName)'")
                }
                table[name] = (index, isOn)
            }
        }
        let positionals = definitions.filter(\.isPositional)
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
        return table
    }
}
