/// A card template that cannot be parsed or rendered, with the message current Anki shows for it.
///
/// Anki reports these instead of a card: `card.question()` then returns ``html(side:)``.
/// ``message`` is Anki's English text, for example
/// `Found '{{Bak}}', but there is no field called 'Bak'`.
///
/// ```swift
/// do { _ = try ParsedTemplate("{{#Front}}x") }
/// catch { print(error.message) }   // Missing '{{/Front}}'
/// ```
public enum TemplateError: Error, Sendable, Hashable {
    /// `{{#Key}}` or `{{^Key}}` without its `{{/Key}}`.
    case conditionalNotClosed(key: String)
    /// `{{/Key}}` closing nothing (`currentlyOpen` is nil) or the wrong section.
    case conditionalNotOpen(closed: String, currentlyOpen: String?)
    /// `{{filters:Field}}` naming a field the note type does not have. `filters` is written as in
    /// the template, left to right, each followed by `:` (`"text:hint:"`, or `""` with none).
    case fieldNotFound(field: String, filters: String)
    /// `{{#Key}}` / `{{^Key}}` naming no field (`condition` includes the `#` or `^`).
    case noSuchConditional(condition: String)
    /// A card ordinal the note type has no template for (a standard type with fewer templates,
    /// or a type with none). Not one of Anki's template messages: Anki refuses such a card.
    case missingTemplate(ordinal: Int)

    /// Anki's English description of the problem (the `card-template-rendering-*` messages).
    public var message: String {
        switch self {
        case .conditionalNotClosed(let key):
            return "Missing '{{/\(key)}}'"
        case .conditionalNotOpen(let closed, let open?):
            return "Found '{{/\(closed)}}', but expected '{{/\(open)}}'"
        case .conditionalNotOpen(let closed, nil):
            return "Found '{{/\(closed)}}', but missing '{{#\(closed)}}' or '{{^\(closed)}}'"
        case .fieldNotFound(let field, let filters):
            return "Found '{{\(filters)\(field)}}', but there is no field called '\(field)'"
        case .noSuchConditional(let condition):
            return "Found '{{\(condition)}}', but there is no field called '\(condition.dropFirst())'"
        case .missingTemplate(let ordinal):
            return "The note type has no card template \(ordinal + 1)"
        }
    }

    /// The side of the card whose template has the problem.
    public enum Side: Sendable, Hashable {
        case question, answer
    }

    /// The HTML Anki renders in place of both sides of the card: a header naming the side, the
    /// escaped ``message`` and a link to Anki's manual.
    public func html(side: Side, browser: Bool = false) -> String {
        let header: String
        switch (side, browser) {
        case (.question, false): header = "Front template has a problem:"
        case (.answer, false): header = "Back template has a problem:"
        case (.question, true): header = "Browser-specific front template has a problem:"
        case (.answer, true): header = "Browser-specific back template has a problem:"
        }
        let details = HTMLEscaping.minimal(message)
        return "\(header)<br>\(details)<br><a href='\(Self.syntaxErrorLink)'>More information</a>"
    }

    static let syntaxErrorLink = "https://docs.ankiweb.net/templates/errors.html#template-syntax-error"
}
