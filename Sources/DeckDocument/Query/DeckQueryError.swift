/// A well-formed filter or sort that doesn't fit the deck: an unknown field, an operator
/// the field doesn't support, a value of the wrong type.
///
/// ``description`` names the field and, for unknown fields, lists the known ones. A
/// command-line tool treats it as a usage error (exit 64).
public struct DeckQueryError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The field the problem is about, as written.
    public let field: String
    /// What is wrong.
    public let message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { message }
}
