extension NoteLayout {
    /// Renders card `ordinal` of a note: question and answer HTML and the CSS, as current Anki
    /// renders them.
    ///
    /// - Parameters:
    ///   - ordinal: the template ordinal (standard) or cloze number − 1 (cloze).
    ///   - fieldValues: the note's fields in ``fieldNames`` order (missing ones count as empty).
    ///   - context: tags, deck, flag and card id for the special fields.
    ///   - browser: use the templates' browser formats where set (and never report a standard
    ///     card blank), as Anki's card list does.
    ///   - ankiPlayTags: replace `[sound:name]` and `[anki:tts …]…[/anki:tts]` with
    ///     `[anki:play:q:0]`, `[anki:play:a:0]`, … (numbered per side) as `card.question()` /
    ///     `card.answer()` return them; off by default, which keeps the tags for exporters and
    ///     terminals.
    /// - Returns: the card. Template problems do not throw: as in Anki, both sides then hold the
    ///   error text and ``RenderedCard/error`` says what failed. Costs one parse and one pass over
    ///   each side's template.
    public func render(ordinal: Int, fieldValues: [String], context: CardContext = CardContext(),
                       browser: Bool = false, ankiPlayTags: Bool = false) -> RenderedCard {
        let index: Int
        switch kind {
        case .standard:
            guard templates.indices.contains(ordinal) else { return failure(.missingTemplate(ordinal: ordinal), side: .question, browser: browser) }
            index = ordinal
        case .cloze:
            guard !templates.isEmpty, ordinal >= 0 else { return failure(.missingTemplate(ordinal: ordinal), side: .question, browser: browser) }
            index = 0
        }
        let template = templates[index]
        let fields = fieldMap(fieldValues, ordinal: ordinal, template: template, context: context)
        let questionSource = browser && !template.browserQuestionFormat.isEmpty
            ? Result { () throws(TemplateError) in try ParsedTemplate(template.browserQuestionFormat) } : parsed[index].question
        let answerSource = browser && !template.browserAnswerFormat.isEmpty
            ? Result { () throws(TemplateError) in try ParsedTemplate(template.browserAnswerFormat) } : parsed[index].answer

        let renderer = TemplateRenderer(fields: fields, ordinal: ordinal)
        let questionTemplate: ParsedTemplate
        var question: String
        do {
            questionTemplate = try questionSource.get()
            question = try renderer.render(questionTemplate, frontSide: nil)
        } catch {
            return failure(error, side: .question, browser: browser)
        }

        if let blank = blankMessage(questionTemplate, renderer: renderer, ordinal: ordinal, browser: browser) {
            question += blank
            return RenderedCard(question: ankiPlayTags ? PlayTags.replace(question, side: "q") : question,
                                answer: blank, css: css, isEmpty: true)
        }
        if ankiPlayTags { question = PlayTags.replace(question, side: "q") }

        var answer: String
        do {
            answer = try renderer.render(try answerSource.get(), frontSide: question)
        } catch {
            return failure(error, side: .answer, browser: browser)
        }
        if ankiPlayTags { answer = PlayTags.replace(answer, side: "a") }
        return RenderedCard(question: question, answer: answer, css: css)
    }

    private func failure(_ error: TemplateError, side: TemplateError.Side, browser: Bool) -> RenderedCard {
        let html = error.html(side: side, browser: browser)
        return RenderedCard(question: html, answer: html, css: css, error: error)
    }

    /// Anki's explanation appended to a blank card, or nil when the card is not blank.
    private func blankMessage(_ question: ParsedTemplate, renderer: TemplateRenderer, ordinal: Int, browser: Bool) -> String? {
        switch kind {
        case .cloze:
            guard !Cloze.numbers(inFields: renderer.fields.values).contains(ordinal + 1) else { return nil }
            return "<div>No cloze \u{2068}\(ordinal + 1)\u{2069} found on card.\nPlease either add a cloze deletion, or use the Empty Cards tool."
                + "<br><a href='https://docs.ankiweb.net/templates/errors.html#no-cloze-filter-on-cloze-note-type'>More information</a></div>"
        case .standard:
            guard !browser, !question.rendersNonEmpty(nonEmptyFields: renderer.nonEmpty) else { return nil }
            return "<div>The front of this card is blank.<br>"
                + "<a href='https://docs.ankiweb.net/templates/errors.html#front-of-card-is-blank'>More information</a></div>"
        }
    }

    /// The note's fields by name, plus the special fields that no note field shadows, plus
    /// `c<number>` = `1` for the card's cloze number (so `{{#c2}}` is true on card 2).
    func fieldMap(_ values: [String], ordinal: Int, template: CardLayout, context: CardContext) -> [String: String] {
        var fields: [String: String] = [:]
        for (index, name) in fieldNames.enumerated() {
            fields[name] = index < values.count ? values[index] : ""
        }
        let deck = context.deckName
        let subdeck = deck.lastLevel
        let specials: [(String, String)] = [
            ("Tags", context.tags.joined(separator: " ")),
            ("Type", name),
            ("Subdeck", subdeck),
            ("Deck", deck),
            ("CardFlag", "flag\(context.flag)"),
            ("Card", template.name),
            ("CardID", String(context.cardID)),
            ("c\(ordinal + 1)", "1"),
        ]
        for (key, value) in specials where fields[key] == nil { fields[key] = value }
        return fields
    }
}

extension String {
    /// The part after the last `::` (the whole name without one).
    var lastLevel: String {
        let bytes = Array(utf8)
        var i = bytes.count - 2
        while i >= 0 {
            if bytes[i] == UInt8(ascii: ":"), bytes[i + 1] == UInt8(ascii: ":") {
                return String(decoding: bytes[(i + 2)...], as: UTF8.self)
            }
            i -= 1
        }
        return self
    }
}

extension ParsedTemplate {
    /// Renders the template with field values by name, as one side of a card.
    ///
    /// `fields` should hold every field the template may name, special fields included
    /// (``NoteLayout/render(ordinal:fieldValues:context:browser:ankiPlayTags:)`` adds them).
    /// `frontSide` is nil for a question (then `{{FrontSide}}` renders empty and cloze
    /// deletions are hidden) and the rendered question for an answer.
    ///
    /// - Throws: ``TemplateError`` for a field or section key that is not in `fields`.
    public func render(fields: [String: String], ordinal: Int, frontSide: String?) throws(TemplateError) -> String {
        try TemplateRenderer(fields: fields, ordinal: ordinal).render(self, frontSide: frontSide)
    }
}

/// One card's rendering state: the field map and which fields are non-empty.
struct TemplateRenderer {
    let fields: [String: String]
    let nonEmpty: Set<String>
    let ordinal: Int

    init(fields: [String: String], ordinal: Int) {
        self.fields = fields
        self.ordinal = ordinal
        nonEmpty = Set(fields.compactMap { FieldText.isEmpty($0.value) ? nil : $0.key })
    }

    func render(_ template: ParsedTemplate, frontSide: String?) throws(TemplateError) -> String {
        var out = ""
        try render(template.nodes, frontSide: frontSide, into: &out)
        return out
    }

    private func render(_ nodes: [TemplateNode], frontSide: String?, into out: inout String) throws(TemplateError) {
        for node in nodes {
            switch node {
            case .text(let text):
                out += text
            case .comment(let text):
                out += "<!--" + text + "-->"
            case .replacement(let key, _) where key == "FrontSide":
                out += frontSide ?? ""
            case .replacement(let key, let filters) where key.isEmpty && !filters.isEmpty:
                // `{{filter:}}`: Anki passes an empty text to add-on filters; none here
                continue
            case .replacement(let key, let filters):
                guard let value = fields[key] else {
                    let written = filters.reversed().map { $0 + ":" }.joined()
                    throw .fieldNotFound(field: key, filters: written)
                }
                out += Filters.apply(value, filters: filters, field: key,
                                     context: FilterContext(clozeNumber: ordinal + 1, questionSide: frontSide == nil))
            case .conditional(let key, let children):
                if try evaluate(key, negated: false) {
                    try render(children, frontSide: frontSide, into: &out)
                } else {
                    var discarded = ""
                    try render(children, frontSide: frontSide, into: &discarded)
                }
            case .negated(let key, let children):
                if try evaluate(key, negated: true) {
                    try render(children, frontSide: frontSide, into: &out)
                } else {
                    var discarded = ""
                    try render(children, frontSide: frontSide, into: &discarded)
                }
            }
        }
    }

    private func evaluate(_ key: String, negated: Bool) throws(TemplateError) -> Bool {
        if nonEmpty.contains(key) { return !negated }
        if fields[key] != nil || isClozeConditional(key) { return negated }
        throw .noSuchConditional(condition: (negated ? "^" : "#") + key)
    }
}

/// `[sound:name]` and `[anki:tts …]…[/anki:tts]` as the `[anki:play:q:N]` tags
/// `card.question()` returns (numbered in order per side).
enum PlayTags {
    static func replace(_ text: String, side: String) -> String {
        let b = Array(text.utf8)
        guard b.contains(UInt8(ascii: "[")) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        var count = 0
        var finders = (bracket: Finder("]"), ttsClose: Finder("[/anki:tts]"))
        while i < b.count {
            if b[i] == UInt8(ascii: "["), let end = soundTagEnd(b, i, &finders.bracket) ?? ttsTagEnd(b, i, &finders.bracket, &finders.ttsClose) {
                out.append(contentsOf: Array("[anki:play:\(side):\(count)]".utf8))
                count += 1
                i = end
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let soundOpen = Array("[sound:".utf8)
    private static let ttsOpen = Array("[anki:tts".utf8)
    private static let ttsCloseLength = "[/anki:tts]".utf8.count

    /// `[sound:` + at least one character other than `]` + `]`.
    private static func soundTagEnd(_ b: [UInt8], _ i: Int, _ bracket: inout Finder) -> Int? {
        guard TemplateLexer.matches(b, soundOpen, at: i),
              let close = bracket.find(in: b, from: i + soundOpen.count),
              close > i + soundOpen.count else { return nil }
        return close + 1
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A }

    /// Anki's directive syntax for `tts`: `[anki:tts` + white space-separated `key=value`
    /// options (values may be double-quoted) + `]`, content, `[/anki:tts]`; the `lang` option
    /// must be set (otherwise Anki writes an error message instead, which is not reproduced).
    private static func ttsTagEnd(_ b: [UInt8], _ start: Int, _ bracket: inout Finder, _ ttsClose: inout Finder) -> Int? {
        guard TemplateLexer.matches(b, ttsOpen, at: start), bracket.find(in: b, from: start) != nil else { return nil }
        var i = start + ttsOpen.count
        guard i < b.count, b[i] == UInt8(ascii: "]") || isSpace(b[i]) else { return nil }
        while i < b.count, isSpace(b[i]) { i += 1 }
        var lang = false
        while i < b.count, b[i] != UInt8(ascii: "]") {
            let keyStart = i
            while i < b.count, !isSpace(b[i]), b[i] != UInt8(ascii: "]"), b[i] != UInt8(ascii: "=") { i += 1 }
            guard i > keyStart, i < b.count, b[i] == UInt8(ascii: "=") else { return nil }
            let key = String(decoding: b[keyStart..<i], as: UTF8.self)
            i += 1
            let valueStart = i
            if i < b.count, b[i] == UInt8(ascii: "\"") {
                guard let close = b[(i + 1)...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
                if key == "lang", close > i + 1 { lang = true }
                i = close + 1
            } else {
                while i < b.count, !isSpace(b[i]), b[i] != UInt8(ascii: "]"), b[i] != UInt8(ascii: "\"") { i += 1 }
                if key == "lang", i > valueStart { lang = true }
            }
            while i < b.count, isSpace(b[i]) { i += 1 }
        }
        guard i < b.count, lang, let close = ttsClose.find(in: b, from: i + 1) else { return nil }
        return close + ttsCloseLength
    }
}
