/// What one column of a text import holds.
///
/// Anki's text files describe their columns with header lines (`#tags column:3`,
/// `#columns:Front\tBack\tTags`); ``TextImportSettings/columnRoles(count:)`` turns those
/// into one role per column.
public enum TextImportRole: Hashable, Sendable, CustomStringConvertible {
    /// The first field of the note: the front of a card (a cloze note's text).
    case front
    /// The second field: the back of a card.
    case back
    /// Space-separated tags.
    case tags
    /// Anki's note identifier, used to update a note imported before.
    case guid
    /// The name (or id) of the note type.
    case notetype
    /// The name (or id) of the deck.
    case deck
    /// Another note field, with its column label when the file names its columns.
    case extra(name: String?)

    /// The role a column label stands for (`Front`, `question`, `Tags`, `deck`, … in any
    /// case), or `nil` for a label that names no role.
    ///
    /// With the fields of the target note type, its first field's name also means
    /// ``front`` and its second's ``back`` (`Text` and `Back Extra` for Cloze).
    public init?(label: String, fieldNames: [String]? = nil) {
        let key = label.trimmingASCIISpaces().lowercased()
        if let fieldNames, let index = fieldNames.firstIndex(where: { $0.lowercased() == key }), index < 2 {
            self = index == 0 ? .front : .back
            return
        }
        switch key {
        case "front", "question": self = .front
        case "back", "answer": self = .back
        case "tags", "tag": self = .tags
        case "guid": self = .guid
        case "notetype", "note type", "kind": self = .notetype
        case "deck": self = .deck
        default: return nil
        }
    }

    /// The label a writer puts in `#columns:` for this role.
    public var label: String {
        switch self {
        case .front: "Front"
        case .back: "Back"
        case .tags: "Tags"
        case .guid: "GUID"
        case .notetype: "Notetype"
        case .deck: "Deck"
        case .extra(let name): name ?? ""
        }
    }

    public var description: String {
        switch self {
        case .extra(let name): "extra(\(name ?? "unnamed"))"
        default: label.lowercased()
        }
    }
}
