/// A property that takes its value from a named option: `--name value`, `--name=value`,
/// `-n value` or `-nvalue`.
///
/// The property's type decides the shape: a plain value is required unless it has a
/// default, an optional may be omitted, and an array collects every occurrence.
///
/// ```swift
/// @Option(name: .shortAndLong, help: ArgumentHelp("Where to write.", valueName: "file"))
/// var output: String
/// @Option(help: "The output format.") var format: Format = .csv
/// @Option(help: "Only this many cards.") var limit: Int?
/// @Option(name: .customLong("tag"), help: "A tag (repeatable).") var tags: [String] = []
/// ```
///
/// Given several times, a non-array option keeps its last value.
@propertyWrapper
public struct Option<Value>: Decodable {
    var storage: PropertyStorage<Value>

    /// The parsed value.
    public var wrappedValue: Value {
        get { storage.value(wrapper: "@Option") }
        set { storage = .value(newValue) }
    }

    init(definition: ArgumentDefinition) {
        storage = .definition(definition)
    }

    // Makes `@Option var x: T` (no arguments) default-initializable, which the compiler
    // only checks against the type's own initializers; the constrained initializers in the
    // extensions below are the ones actually chosen, and this one reports unsupported types.
    @available(*, unavailable, message: "the property's type must conform to ExpressibleByArgument, or be an optional or array of such a type")
    public init(name: NameSpecification = .long, help: ArgumentHelp = "") {
        preconditionFailure("unavailable")
    }

    /// Reads the parsed value; only the argument parser's decoder can provide it.
    public init(from decoder: any Decoder) throws {
        storage = .value(try ArgumentDecoder.value(of: Value.self, from: decoder))
    }
}

extension Option: ArgumentDefinitionProvider {
    func argumentDefinitions(for key: InputKey) -> [ArgumentDefinition] {
        storage.definitions(for: key)
    }
}

extension Option where Value: ExpressibleByArgument {
    /// An option with a default value, used when the option is absent.
    public init(wrappedValue: Value, name: NameSpecification = .long, help: ArgumentHelp = "") {
        self.init(definition: .single(Value.self, kind: .option(name), help: help, initial: wrappedValue))
    }

    /// A required option.
    public init(name: NameSpecification = .long, help: ArgumentHelp = "") {
        self.init(definition: .single(Value.self, kind: .option(name), help: help, initial: nil))
    }
}

extension Option {
    /// An optional option: `nil` when absent.
    public init<Element: ExpressibleByArgument>(
        name: NameSpecification = .long, help: ArgumentHelp = ""
    ) where Value == Element? {
        self.init(definition: .optional(Element.self, kind: .option(name), help: help, initial: nil))
    }

    /// An optional option with an explicit initial value (usually `nil`).
    public init<Element: ExpressibleByArgument>(
        wrappedValue: Element?, name: NameSpecification = .long, help: ArgumentHelp = ""
    ) where Value == Element? {
        self.init(definition: .optional(Element.self, kind: .option(name), help: help, initial: wrappedValue))
    }

    /// A repeatable option collecting every value; `wrappedValue` is used when it is absent.
    public init<Element: ExpressibleByArgument>(
        wrappedValue: [Element], name: NameSpecification = .long, help: ArgumentHelp = ""
    ) where Value == [Element] {
        self.init(definition: .array(Element.self, kind: .option(name), help: help, initial: wrappedValue))
    }

    /// A repeatable option collecting every value; empty when absent.
    public init<Element: ExpressibleByArgument>(
        name: NameSpecification = .long, help: ArgumentHelp = ""
    ) where Value == [Element] {
        self.init(definition: .array(Element.self, kind: .option(name), help: help, initial: []))
    }
}
