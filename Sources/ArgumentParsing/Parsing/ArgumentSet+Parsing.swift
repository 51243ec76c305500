// Parsing the tokens of one command into the values of its arguments.

extension ArgumentSet {
    /// What the tokens of one command amount to.
    enum ParseResult {
        /// The value of every argument, defaults filled in.
        case values([InputKey: Any])
        case help
        case version
    }

    /// Parses the tokens of one command: options and flags wherever they are, then the
    /// positional values in order, then defaults for what is absent.
    ///
    /// - Throws: the first problem found: an unknown option, a missing or invalid value, a
    ///   missing required argument or option, or an unexpected extra argument.
    func parse(_ tokens: [String], answersVersion: Bool) throws(ParserError.Reason) -> ParseResult {
        var values: [InputKey: Any] = [:]
        var positionalTexts: [String] = []
        var scanner = ArgumentScanner(arguments: self, tokens: tokens, answersVersion: answersVersion)
        while let element = try scanner.next() {
            switch element {
            case .help:
                return .help
            case .version:
                return .version
            case .value(let definition, let text, let spelling):
                try Self.update(&values, with: text, for: definition, label: "\(spelling) <\(definition.valueName)>")
            case .flag(let definition, let isOn):
                if case .flag(let update) = definition.update {
                    values[definition.key] = update(isOn, values[definition.key])
                }
            case .positional(let text, _):
                positionalTexts.append(text)
            }
        }

        var remaining = positionalTexts[...]
        for definition in positionals {
            let label = "<\(definition.valueName)>"
            if definition.isRepeating {
                while let text = remaining.popFirst() {
                    try Self.update(&values, with: text, for: definition, label: label)
                }
            } else if let text = remaining.popFirst() {
                values[definition.key] = nil
                try Self.update(&values, with: text, for: definition, label: label)
            }
        }

        for definition in definitions where values[definition.key] == nil {
            if let initial = definition.initial {
                values[definition.key] = initial
            } else if definition.isPositional {
                throw .missingArgument(label: "<\(definition.valueName)>")
            } else {
                let name = definition.preferredName.map(\.description) ?? definition.key.name
                throw .missingOption(label: "\(name) <\(definition.valueName)>")
            }
        }
        if let extra = remaining.first {
            throw .unexpectedArgument(extra)
        }
        return .values(values)
    }

    /// Parses `text` into the value of `definition` in `values` (taken out while it is updated,
    /// so that a repeated option's array is appended to in place).
    /// `label` names the argument in the error; it is made only then (a repeated option's
    /// label per value cost as much as the value).
    private static func update(
        _ values: inout [InputKey: Any], with text: String, for definition: ArgumentDefinition,
        label: @autoclosure () -> String
    ) throws(ParserError.Reason) {
        var value = values.removeValue(forKey: definition.key)
        guard case .value(let update) = definition.update, update(text, &value) else {
            throw .invalidValue(text, label: label(), allowedValues: definition.allValues)
        }
        values[definition.key] = value
    }
}
