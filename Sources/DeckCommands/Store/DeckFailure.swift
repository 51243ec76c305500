import ArgumentParsing

/// A failure opening, reading or writing a deck, with the file and what is wrong; maps
/// onto the tool's exit statuses.
struct DeckFailure: CommandError, Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        /// The path exists but is not a deck, or the deck is damaged (exit 65).
        case corrupt
        /// The deck does not exist (exit 66).
        case missing
        /// The deck or output already exists, or cannot be created (exit 73).
        case cannotCreate
        /// Reading or writing failed (exit 74).
        case io
        /// A card or other item was not found (exit 1).
        case notFound
        /// The command line names something that does not exist, such as a field (exit 64).
        case usage
    }

    var kind: Kind
    var path: String?
    var reason: String

    init(_ kind: Kind, path: String?, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    var exitCode: ExitCode {
        switch kind {
        case .corrupt: .dataError
        case .missing: .noInput
        case .cannotCreate: .cantCreate
        case .io: .ioError
        case .notFound: .failure
        case .usage: .usage
        }
    }

    var description: String { message }
}
