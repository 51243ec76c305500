extension NoteLayout {
    /// The highest card ordinal a cloze note can have (cloze number 500; higher numbers share it).
    public static let maximumClozeOrdinal = 499

    /// The special field names Anki fills in for every card.
    public static let specialFieldNames: Set<String> = ["FrontSide", "Card", "CardFlag", "Deck", "Subdeck", "Tags", "Type", "CardID"]

    /// The card ordinals current Anki generates for a note, ascending.
    ///
    /// - Standard: each template whose question renders non-empty
    ///   (``ParsedTemplate/rendersNonEmpty(nonEmptyFields:)``), counting the note's non-empty
    ///   fields (``FieldText/isEmpty(_:)`` decides) and the special fields that always have a value
    ///   (`Card`, `CardFlag`, `Deck`, `Subdeck`, `Type`, `CardID`, and `Tags` when the note has
    ///   tags). A template that does not parse makes no card.
    /// - Cloze: one per cloze number found in any of the note's fields (all of them, as Anki
    ///   looks), ordinal = number − 1, capped at ``maximumClozeOrdinal``.
    /// - When nothing qualifies and the note has no cards yet (`existing` empty), Anki still gives
    ///   it card 0, so the result is `[0]`.
    ///
    /// `existing` holds the ordinals the note already has: they are left out, so after an edit
    /// the result is the cards to add (Anki never removes cards here; its Empty Cards tool does).
    public func cardOrdinals(fieldValues: [String], tags: [String] = [], existing: Set<Int> = []) -> [Int] {
        let ordinals = nonEmptyOrdinals(fieldValues: fieldValues, tags: tags).filter { !existing.contains($0) }
        return ordinals.isEmpty && existing.isEmpty ? [0] : ordinals
    }

    /// The ordinals of the templates whose question renders non-empty (standard), or of the
    /// cloze numbers present (cloze), ascending, without Anki's card-0 fallback: the cards that
    /// are not "empty cards" in Anki's sense.
    public func nonEmptyOrdinals(fieldValues: [String], tags: [String] = []) -> [Int] {
        switch kind {
        case .standard:
            let nonEmpty = fieldNames.indices.map { $0 < fieldValues.count && !FieldText.isEmpty(fieldValues[$0]) }
            let hasTags = !tags.isEmpty
            return plans.indices.filter { plans[$0]?.rendersNonEmpty(nonEmpty, hasTags: hasTags) ?? false }
        case .cloze:
            let numbers = Cloze.numbers(inFields: fieldValues.prefix(fieldNames.count))
            return Set(numbers.map { min($0 - 1, Self.maximumClozeOrdinal) }).sorted()
        }
    }
}

/// A question template compiled for card generation: text dropped, each key resolved to the
/// note's field positions or to a special field, so deciding a note's cards hashes no strings.
struct GenerationPlan: Sendable {
    enum Key: Sendable {
        /// Note fields with this name (positions).
        case fields([Int])
        /// `Tags`: non-empty when the note has tags.
        case tags
        /// A special field that always has a value (`Card`, `Deck`, …).
        case always
        /// `FrontSide` or a name that is no field: always empty.
        case never
    }

    indirect enum Node: Sendable {
        case replacement(Key)
        case section(Key, negated: Bool, [Node])
    }

    let nodes: [Node]

    init(_ template: ParsedTemplate, fieldNames: [String]) {
        var positions: [String: [Int]] = [:]
        for (index, name) in fieldNames.enumerated() { positions[name, default: []].append(index) }
        func key(_ name: String) -> Key {
            if let at = positions[name] { return .fields(at) }
            guard name != "FrontSide", NoteLayout.specialFieldNames.contains(name) else { return .never }
            return name == "Tags" ? .tags : .always
        }
        func compile(_ nodes: [TemplateNode]) -> [Node] {
            nodes.compactMap { node in
                switch node {
                case .text, .comment: return nil
                case .replacement(let name, _): return .replacement(key(name))
                case .conditional(let name, let children): return .section(key(name), negated: false, compile(children))
                case .negated(let name, let children): return .section(key(name), negated: true, compile(children))
                }
            }
        }
        nodes = compile(template.nodes)
    }

    /// Anki's rule (``ParsedTemplate/rendersNonEmpty(nonEmptyFields:)``) on resolved keys.
    func rendersNonEmpty(_ nonEmpty: [Bool], hasTags: Bool) -> Bool {
        func filled(_ key: Key) -> Bool {
            switch key {
            case .fields(let at): return at.contains { nonEmpty[$0] }
            case .tags: return hasTags
            case .always: return true
            case .never: return false
            }
        }
        func renders(_ nodes: [Node]) -> Bool {
            for node in nodes {
                switch node {
                case .replacement(let key):
                    if filled(key) { return true }
                case .section(let key, let negated, let children):
                    if filled(key) != negated, renders(children) { return true }
                }
            }
            return false
        }
        return renders(nodes)
    }
}
