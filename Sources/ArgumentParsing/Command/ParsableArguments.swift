/// A type whose properties are command-line arguments: the base of commands and of
/// reusable option groups.
///
/// Declare the arguments with ``Option``, ``Flag``, ``Argument`` and ``OptionGroup``; the
/// compiler's synthesized `Decodable` conformance is how the parser fills them in, so any
/// other stored property must be left out of the type's `CodingKeys`.
public protocol ParsableArguments: Decodable, SendableMetatype {
    /// Creates a declaration of the arguments, with default values; the parser calls it to
    /// discover the properties (like swift-argument-parser, through reflection).
    init()

    /// Checks the parsed values before anything runs.
    ///
    /// Throw a ``ValidationError`` for a combination that makes no sense; the tool prints it
    /// with the usage line and exits 64. Touch no files here.
    mutating func validate() throws
}

extension ParsableArguments {
    /// Accepts every combination.
    public mutating func validate() throws {}
}
