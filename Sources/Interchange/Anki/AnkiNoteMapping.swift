import Anki
import DeckDocument

/// How the notes of one Anki note type become cards: which card kind, and which fields go
/// to the front and the back.
///
/// | Anki note type | card kind | front | back |
/// | --- | --- | --- | --- |
/// | Basic (two fields, one template asking the first) | basic | field 1 | field 2 |
/// | Basic (and reversed card) (two fields, two templates asking each) | reversible | field 1 | field 2 |
/// | Cloze (any cloze type) | cloze | field 1 (the cloze text) | the other fields |
/// | any other | basic | field 1 | the other fields, each as `Name: value` |
///
/// The mapping looks at the type's structure (kind, fields and templates), not at its name,
/// so renamed or translated stock types map as their originals.
public struct AnkiNoteMapping: Sendable, Hashable {
    /// Which of the rows of the table above applies.
    public enum Rule: String, Sendable, Hashable, CaseIterable {
        /// A basic note type.
        case basic
        /// A basic-and-reversed note type.
        case reversible
        /// A cloze note type.
        case cloze
        /// Any other note type: first field in front, the rest labelled on the back.
        case other
    }

    /// The rule chosen for the note type.
    public let rule: Rule
    /// The note type's field names, in order.
    public let fieldNames: [String]

    /// The mapping of a note type.
    public init(_ noteType: AnkiNoteType) {
        fieldNames = noteType.fieldNames
        rule = Self.rule(for: noteType)
    }

    init(rule: Rule, fieldNames: [String]) {
        self.rule = rule
        self.fieldNames = fieldNames
    }

    /// The card kind notes of this type become.
    public var cardKind: CardKind {
        switch rule {
        case .basic, .other: .basic
        case .reversible: .reversible
        case .cloze: .cloze
        }
    }

    /// The front and back of a note's card.
    public func sides(of fields: [String]) -> (front: String, back: String) {
        let front = fields.first ?? ""
        switch rule {
        case .basic, .reversible:
            return (front, fields.count > 1 ? fields[1] : "")
        case .cloze where fields.count <= 2:
            return (front, fields.count > 1 ? fields[1] : "")
        case .cloze, .other:
            var lines: [String] = []
            for index in fields.indices.dropFirst() where !fields[index].isEmpty {
                let name = index < fieldNames.count ? fieldNames[index] : "Field \(index + 1)"
                lines.append("\(name): \(fields[index])")
            }
            return (front, lines.joined(separator: "\n"))
        }
    }

    static func rule(for noteType: AnkiNoteType) -> Rule {
        if noteType.kind == .cloze { return .cloze }
        guard noteType.fields.count == 2 else { return .other }
        let first = noteType.fields[0].name, second = noteType.fields[1].name
        let templates = noteType.templates.sorted { $0.ordinal < $1.ordinal }
        if templates.count == 1, asks(templates[0].questionFormat, for: first) {
            return .basic
        }
        if templates.count == 2, asks(templates[0].questionFormat, for: first), asks(templates[1].questionFormat, for: second) {
            return .reversible
        }
        return .other
    }

    /// Whether a question template shows `field` (`{{Front}}`, `{{ Front }}`, `{{text:Front}}`).
    static func asks(_ template: String, for field: String) -> Bool {
        var rest = Substring(template)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { return false }
            var name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            if let colon = name.lastIndex(of: ":") { name = String(name[name.index(after: colon)...]) }
            if name == field { return true }
            rest = rest[close.upperBound...]
        }
        return false
    }
}
