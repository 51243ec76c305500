/// A property that brings in a reusable group of options, declared once as a
/// ``ParsableArguments`` type and shared by several commands.
///
/// The group's options are parsed, shown in help and documented as if the command had
/// declared them itself; the group's `validate()` runs before the command's.
///
/// ```swift
/// struct OutputOptions: ParsableArguments {
///     @Flag(help: "Print JSON.") var json = false
///     @Flag(name: .shortAndLong, help: "Print nothing but errors.") var quiet = false
/// }
///
/// struct Info: ParsableCommand {
///     @OptionGroup var output: OutputOptions
/// }
/// ```
@propertyWrapper
public struct OptionGroup<Value: ParsableArguments>: Decodable {
    /// `nil` until parsed (or assigned): the group is then only a declaration.
    var parsedValue: Value?

    /// The group's parsed values; before parsing, a group holding its defaults.
    public var wrappedValue: Value {
        get { parsedValue ?? Value() }
        set { parsedValue = newValue }
    }

    /// Declares the group.
    public init() {
        parsedValue = nil
    }

    /// Decodes the group's values and validates them.
    ///
    /// - Throws: whatever the group's `validate()` throws.
    public init(from decoder: any Decoder) throws {
        var value = try Value(from: decoder)
        try value.validate()
        parsedValue = value
    }
}

extension OptionGroup: ArgumentDefinitionProvider {
    func argumentDefinitions(for key: InputKey) -> [ArgumentDefinition] {
        guard parsedValue == nil else { return [] }
        return ArgumentSet.discover(Value.self, under: key.path)
    }
}
