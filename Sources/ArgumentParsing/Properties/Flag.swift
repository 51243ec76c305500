/// A property set by a flag: an option without a value.
///
/// A `Bool` flag is `true` when given; with an inversion, the inverted spelling sets it
/// back to `false`, so the default can be either. An `Int` flag counts its occurrences
/// (`-vvv` gives 3). Short flags combine: `-qv`.
///
/// ```swift
/// @Flag(help: "Print JSON.") var json = false
/// @Flag(inversion: .prefixedNo, help: "Show progress.") var progress = true
/// @Flag(name: .short, help: "More output.") var verbose: Int
/// ```
@propertyWrapper
public struct Flag<Value>: Decodable {
    var storage: PropertyStorage<Value>

    /// The parsed value.
    public var wrappedValue: Value {
        get { storage.value(wrapper: "@Flag") }
        set { storage = .value(newValue) }
    }

    init(definition: ArgumentDefinition) {
        storage = .definition(definition)
    }

    // Makes `@Flag var x: T` (no arguments) default-initializable, which the compiler
    // only checks against the type's own initializers; the constrained initializers in the
    // extensions below are the ones actually chosen, and this one reports unsupported types.
    @available(*, unavailable, message: "@Flag properties must be Bool or Int")
    public init(name: NameSpecification = .long, help: ArgumentHelp = "") {
        preconditionFailure("unavailable")
    }

    /// Reads the parsed value; only the argument parser's decoder can provide it.
    public init(from decoder: any Decoder) throws {
        storage = .value(try ArgumentDecoder.value(of: Value.self, from: decoder))
    }
}

extension Flag: ArgumentDefinitionProvider {
    func argumentDefinitions(for key: InputKey) -> [ArgumentDefinition] {
        storage.definitions(for: key)
    }
}

extension Flag where Value == Bool {
    /// A Boolean flag, `false` unless given.
    public init(name: NameSpecification = .long, help: ArgumentHelp = "") {
        self.init(wrappedValue: false, name: name, help: help)
    }

    /// A Boolean flag with an explicit default (without an inversion, only `false` is useful).
    public init(wrappedValue: Bool, name: NameSpecification = .long, help: ArgumentHelp = "") {
        self.init(definition: ArgumentDefinition(
            kind: .flag(name, inversion: nil, isCounting: false), help: help,
            update: .flag { isOn, _ in isOn }, initial: wrappedValue,
            defaultValueDescription: nil, allValues: [], isRepeating: false))
    }

    /// A Boolean flag with two spellings, one that sets it and one that clears it.
    public init(
        wrappedValue: Bool, name: NameSpecification = .long, inversion: FlagInversion, help: ArgumentHelp = ""
    ) {
        self.init(definition: ArgumentDefinition(
            kind: .flag(name, inversion: inversion, isCounting: false), help: help,
            update: .flag { isOn, _ in isOn }, initial: wrappedValue,
            defaultValueDescription: nil, allValues: [], isRepeating: false))
    }
}

extension Flag where Value == Int {
    /// A counting flag: the number of times it was given.
    public init(name: NameSpecification = .long, help: ArgumentHelp = "") {
        self.init(definition: ArgumentDefinition(
            kind: .flag(name, inversion: nil, isCounting: true), help: help,
            update: .flag { _, current in ((current as? Int) ?? 0) + 1 }, initial: 0,
            defaultValueDescription: nil, allValues: [], isRepeating: true))
    }
}
