/// A reason current Anki refuses to save a note type's templates.
public struct TemplateProblem: Sendable, Hashable {
    /// What is wrong.
    public enum Kind: Sendable, Hashable {
        /// The question format is the same as that of template `sameAs` (allowed when it
        /// contains `{{Card}}`).
        case identicalFront(sameAs: Int)
        /// A side does not parse.
        case unparsable(TemplateError)
        /// The question names no field at all.
        case noFieldOnFront
        /// A side names a field the note type does not have (nor a special field).
        case unknownField(String)
        /// A cloze note type whose first template lacks `{{cloze:…}}` on either side.
        case missingCloze
    }

    /// The template's ordinal.
    public var ordinal: Int
    /// What is wrong.
    public var kind: Kind

    /// A problem of template `ordinal`.
    public init(ordinal: Int, kind: Kind) {
        self.ordinal = ordinal
        self.kind = kind
    }

    /// Anki's English description (`card-templates-*` messages; template syntax errors as
    /// ``TemplateError/message``).
    public var message: String {
        switch kind {
        case .identicalFront(let other): return "The front side is identical to card template \(other + 1)."
        case .unparsable(let error): return error.message
        case .noFieldOnFront: return "Expected to find a field replacement on the front of the card template."
        case .unknownField(let field): return "Field '\(field)' not found."
        case .missingCloze: return "Expected to find '{{cloze:Text}}' or similar on the front and back of the card template."
        }
    }
}

extension NoteLayout {
    /// The problems that make current Anki refuse these templates, in the order Anki checks
    /// them (Anki reports the first one): identical fronts, then per template a side that does
    /// not parse, a front without any field, a field that does not exist; then, for a cloze type,
    /// a first template without the `cloze` filter on both sides. Empty when Anki would accept
    /// the note type.
    public func templateProblems() -> [TemplateProblem] {
        var problems: [TemplateProblem] = []
        var firstWithFront: [String: Int] = [:]
        for (index, template) in templates.enumerated() {
            if let earlier = firstWithFront[template.questionFormat] {
                if !Self.mentionsCardName(template.questionFormat) {
                    problems.append(TemplateProblem(ordinal: index, kind: .identicalFront(sameAs: earlier)))
                }
            } else {
                firstWithFront[template.questionFormat] = index
            }
        }
        var firstSides: (ParsedTemplate, ParsedTemplate)?
        let known = Set(fieldNames).union(Self.specialFieldNames)
        for (index, template) in templates.enumerated() {
            let question: ParsedTemplate, answer: ParsedTemplate
            do {
                question = try ParsedTemplate(template.questionFormat)
                answer = try ParsedTemplate(template.answerFormat)
            } catch {
                problems.append(TemplateProblem(ordinal: index, kind: .unparsable(error)))
                continue
            }
            if index == 0 { firstSides = (question, answer) }
            let front = question.referencedFieldNames
            if front.isEmpty {
                problems.append(TemplateProblem(ordinal: index, kind: .noFieldOnFront))
                continue
            }
            let unknown = front.union(answer.referencedFieldNames).filter { !$0.isEmpty && !known.contains($0) }
            if let first = unknown.sorted().first {
                problems.append(TemplateProblem(ordinal: index, kind: .unknownField(first)))
            }
        }
        if kind == .cloze {
            let hasCloze = firstSides.map { !$0.0.clozeFieldNames.isEmpty && !$0.1.clozeFieldNames.isEmpty } ?? false
            if !hasCloze { problems.append(TemplateProblem(ordinal: 0, kind: .missingCloze)) }
        }
        return problems
    }

    /// `{{Card}}` with optional white space inside the braces.
    private static func mentionsCardName(_ format: String) -> Bool {
        var rest = Substring(format)
        while let open = rest.firstRange(of: "{{") {
            var inside = rest[open.upperBound...]
            inside = inside.drop { $0.isWhitespace }
            if inside.hasPrefix("Card") {
                let after = inside.dropFirst(4).drop { $0.isWhitespace }
                if after.hasPrefix("}}") { return true }
            }
            rest = rest[open.upperBound...]
        }
        return false
    }
}
