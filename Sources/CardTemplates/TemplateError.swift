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

    /// Anki's English description of the problem (the `card-template-rendering-*` messages),
    /// for example `Found '{{Bak}}', but there is no field called 'Bak'`.
    public var message: String { text(isolating: false) }

    /// The message; with `isolating`, each inserted value is wrapped in U+2068 … U+2069 as
    /// Anki's localization (Fluent) does in the HTML it renders.
    func text(isolating: Bool) -> String {
        func v(_ value: String) -> String { isolating ? "\u{2068}\(value)\u{2069}" : value }
        switch self {
        case .conditionalNotClosed(let key):
            return "Missing '\(v("{{/\(key)}}"))'"
        case .conditionalNotOpen(let closed, let open?):
            return "Found '\(v("{{/\(closed)}}"))', but expected '\(v("{{/\(open)}}"))'"
        case .conditionalNotOpen(let closed, nil):
            return "Found '\(v("{{/\(closed)}}"))', but missing '\(v("{{#\(closed)}}"))' or '\(v("{{^\(closed)}}"))'"
        case .fieldNotFound(let field, let filters):
            return "Found '\(v("{{\(filters)\(field)}}"))', but there is no field called '\(v(field))'"
        case .noSuchConditional(let condition):
            return "Found '\(v("{{\(condition)}}"))', but there is no field called '\(v(String(condition.dropFirst())))'"
        case .missingTemplate(let ordinal):
            return "The note type has no card template \(v(String(ordinal + 1)))"
        }
    }

    /// The side of the card whose template has the problem.
    public enum Side: Sendable, Hashable {
        /// The question (front) format.
        case question
        /// The answer (back) format.
        case answer
    }

    /// The HTML Anki renders in place of both sides of the card: a header naming the side, the
    /// escaped ``message`` (with Unicode isolation marks around the quoted parts, as Anki's) and
    /// a link to Anki's manual.
    public func html(side: Side, browser: Bool = false) -> String {
        let header: String
        switch (side, browser) {
        case (.question, false): header = "Front template has a problem:"
        case (.answer, false): header = "Back template has a problem:"
        case (.question, true): header = "Browser-specific front template has a problem:"
        case (.answer, true): header = "Browser-specific back template has a problem:"
        }
        let details = HTMLEscaping.minimal(text(isolating: true))
        return "\(header)<br>\(details)<br><a href='\(Self.syntaxErrorLink)'>More information</a>"
    }

    static let syntaxErrorLink = "https://docs.ankiweb.net/templates/errors.html#template-syntax-error"
}
