import DeckDocument
import Foundation

/// One card as the commands see it: plain values, whatever store they came from.
struct CardRecord: Sendable, Hashable {
    var id: Int64
    var kind: String
    var front: String
    var back: String
    var tags: [String]
    var created: Date
    var modified: Date
    /// Deck, note type, template and scheduling state, when the listing read them.
    var details: CardDetails? = nil
}

/// The kinds of card `deck add --kind` accepts.
enum CardKindArgument: String, CaseIterable, Sendable {
    case basic, reversible, cloze
}
