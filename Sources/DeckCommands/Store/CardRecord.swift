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
}

/// The kinds of card `deck add --kind` accepts.
enum CardKindArgument: String, CaseIterable, Sendable {
    case basic, reversible, cloze
}
