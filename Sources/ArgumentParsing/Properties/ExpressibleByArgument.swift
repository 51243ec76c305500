/// A type whose values can be read from one command-line argument.
///
/// `String`, the integer and floating-point types and `Bool` conform already. An enum with
/// `String` raw values that is `CaseIterable` only needs to declare the conformance; its
/// raw values are the accepted spellings, and help lists them:
///
/// ```swift
/// enum Format: String, CaseIterable, ExpressibleByArgument {
///     case csv, tsv, json
/// }
/// ```
///
/// Any other type implements ``init(argument:)``, returning `nil` for text it cannot read;
/// the parser then reports the value as invalid for the option that received it.
public protocol ExpressibleByArgument {
    /// Reads a value from the text of one argument, or returns `nil` when it is not valid.
    init?(argument: String)

    /// How a default value is shown in help (`default: csv`).
    var defaultValueDescription: String { get }

    /// Every accepted spelling, listed in help and in errors; empty when any text may be valid.
    static var allValueStrings: [String] { get }
}

extension ExpressibleByArgument {
    /// The value's `description`.
    public var defaultValueDescription: String { "\(self)" }

    /// None: any text may be valid.
    public static var allValueStrings: [String] { [] }
}

extension ExpressibleByArgument where Self: CaseIterable & RawRepresentable, RawValue == String {
    /// The case whose raw value is `argument`.
    public init?(argument: String) {
        self.init(rawValue: argument)
    }

    /// The raw value.
    public var defaultValueDescription: String { rawValue }

    /// Every case's raw value, in declaration order.
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
