/// The path of property names that leads to one argument property, through option groups
/// (`["shared", "json"]`). It is also the coding path the decoder sees.
struct InputKey: Hashable, Sendable, CustomStringConvertible {
    var path: [String]

    init(_ path: [String]) {
        self.path = path
    }

    /// The property's own name.
    var name: String { path.last ?? "" }

    var description: String { path.joined(separator: ".") }
}

/// Everything the parser, help and man pages know about one option, flag or argument.
///
/// Property wrappers build it (with an empty key) when a command is created with `init()`;
/// discovery fills in the key from the property's name.
struct ArgumentDefinition {
    enum Kind {
        /// `--name <value>`.
        case option(NameSpecification)
        /// `--name`, with an optional inverted spelling; `isCounting` for `-vvv`.
        case flag(NameSpecification, inversion: FlagInversion?, isCounting: Bool)
        /// A positional argument.
        case positional
    }

    /// How a token changes the stored value.
    enum Update {
        /// Parse a value into `value` (the value so far, nil at first); returns false when the
        /// text is not valid. In place, so that collecting n repeated values costs n, not n².
        case value((_ text: String, _ value: inout Any?) -> Bool)
        /// A flag was given (`isOn`), or its inverted spelling (`!isOn`). Receives the value so far.
        case flag((_ isOn: Bool, _ current: Any?) -> Any)
    }

    var kind: Kind
    var key = InputKey([])
    var help: ArgumentHelp
    var update: Update
    /// The value when the argument is absent; `nil` makes it required.
    var initial: Any?
    /// How ``initial`` is shown in help, when it is worth showing.
    var defaultValueDescription: String?
    /// The accepted spellings, for help and errors.
    var allValues: [String]
    /// Whether the argument may be given several times (arrays).
    var isRepeating: Bool

    var isRequired: Bool { initial == nil }
    var isVisible: Bool { help.visibility == .default }

    var isPositional: Bool {
        if case .positional = kind { true } else { false }
    }

    var isFlag: Bool {
        if case .flag = kind { true } else { false }
    }

    /// The names that turn the option or flag on, short first.
    var names: [Name] {
        switch kind {
        case .option(let specification), .flag(let specification, _, _):
            specification.names(for: key.name)
        case .positional:
            []
        }
    }

    /// The spellings of an inverted flag (`--no-progress`).
    var invertedNames: [Name] {
        guard case .flag(_, let inversion?, _) = kind else { return [] }
        return names.compactMap { name in
            guard case .long(let long) = name else { return nil }
            return .long(inversion.invertedName(of: long))
        }
    }

    /// The positive spellings of an inverted flag, which may differ from ``names``
    /// (`--enable-x` for `.prefixedEnableDisable`).
    var enablingNames: [Name] {
        guard case .flag(_, let inversion?, _) = kind else { return names }
        return names.map { name in
            guard case .long(let long) = name else { return name }
            return .long(inversion.enabledName(of: long))
        }
    }

    /// The value's name without brackets (`file`).
    var valueName: String {
        help.valueName ?? key.name.kebabCased
    }

    /// The name shown first: a long name when there is one, as usage does.
    var preferredName: Name? {
        enablingNames.first { !$0.isShort } ?? enablingNames.first
    }
}
