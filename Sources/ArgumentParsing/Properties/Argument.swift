/// A property that takes its value from a positional argument.
///
/// Positional arguments are filled in declaration order. A plain value is required unless
/// it has a default, an optional may be omitted, and an array takes every remaining
/// positional value (it must come last; without a default it needs at least one).
///
/// ```swift
/// @Argument(help: "The deck to read.") var deck: String
/// @Argument(help: ArgumentHelp("Files to import.", valueName: "file")) var files: [String]
/// ```
@propertyWrapper
public struct Argument<Value>: Decodable {
    var storage: PropertyStorage<Value>

    /// The parsed value.
    public var wrappedValue: Value {
        get { storage.value(wrapper: "@Argument") }
        set { storage = .value(newValue) }
    }

    init(definition: ArgumentDefinition) {
        storage = .definition(definition)
    }

    // Makes `@Argument var x: T` (no arguments) default-initializable, which the compiler
    // only checks against the type's own initializers; the constrained initializers in the
    // extensions below are the ones actually chosen, and this one reports unsupported types.
    @available(*, unavailable, message: "the property's type must conform to ExpressibleByArgument, or be an optional or array of such a type")
    public init(help: ArgumentHelp = "") {
        preconditionFailure("unavailable")
    }

    /// Reads the parsed value; only the argument parser's decoder can provide it.
    public init(from decoder: any Decoder) throws {
        storage = .value(try ArgumentDecoder.value(of: Value.self, from: decoder))
    }
}

extension Argument: ArgumentDefinitionProvider {
    func argumentDefinitions(for key: InputKey) -> [ArgumentDefinition] {
        storage.definitions(for: key)
    }
}

extension Argument where Value: ExpressibleByArgument {
    /// An argument with a default value, used when it is absent.
    public init(wrappedValue: Value, help: ArgumentHelp = "") {
        self.init(definition: .single(Value.self, kind: .positional, help: help, initial: wrappedValue))
    }

    /// A required argument.
    public init(help: ArgumentHelp = "") {
        self.init(definition: .single(Value.self, kind: .positional, help: help, initial: nil))
    }
}

extension Argument {
    /// An optional argument: `nil` when absent.
    public init<Element: ExpressibleByArgument>(help: ArgumentHelp = "") where Value == Element? {
        self.init(definition: .optional(Element.self, kind: .positional, help: help, initial: nil))
    }

    /// A variadic argument; `wrappedValue` (often `[]`) is used when no value is given.
    public init<Element: ExpressibleByArgument>(
        wrappedValue: [Element], help: ArgumentHelp = ""
    ) where Value == [Element] {
        self.init(definition: .array(Element.self, kind: .positional, help: help, initial: wrappedValue))
    }

    /// A variadic argument that needs at least one value.
    public init<Element: ExpressibleByArgument>(help: ArgumentHelp = "") where Value == [Element] {
        self.init(definition: .array(Element.self, kind: .positional, help: help, initial: nil))
    }
}
