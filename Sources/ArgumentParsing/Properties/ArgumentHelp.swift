/// The help text of an option, flag or argument: a one-line abstract, an optional
/// discussion, and the name shown for its value.
///
/// A string literal is an abstract:
///
/// ```swift
/// @Option(help: "The title of the deck.") var title: String?
/// @Option(help: ArgumentHelp("Where to write.", valueName: "file")) var output: String
/// ```
public struct ArgumentHelp: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// Whether an option appears in help and man pages.
    public enum Visibility: Sendable, Hashable {
        /// Listed in help, usage and man pages.
        case `default`
        /// Accepted but never shown.
        case hidden
    }

    /// One sentence saying what the option does.
    public var abstract: String
    /// More text, shown after the abstract; paragraphs are separated by blank lines.
    public var discussion: String
    /// The name of the value in usage and help (`<file>`); defaults to the property's name in kebab case.
    public var valueName: String?
    /// Whether the option is shown.
    public var visibility: Visibility

    /// Creates help text.
    public init(
        _ abstract: String = "",
        discussion: String = "",
        valueName: String? = nil,
        visibility: Visibility = .default
    ) {
        self.abstract = abstract
        self.discussion = discussion
        self.valueName = valueName
        self.visibility = visibility
    }

    /// Help with `value` as its abstract.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// Help for an option that is accepted but not shown.
    public static var hidden: ArgumentHelp { ArgumentHelp(visibility: .hidden) }
}
