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
            let nonEmpty = nonEmptyFieldsForGeneration(fieldValues, hasTags: !tags.isEmpty)
            return templates.indices.filter { index in
                let parsed: ParsedTemplate
                do { parsed = try ParsedTemplate(templates[index].questionFormat) } catch { return false }
                return parsed.rendersNonEmpty(nonEmptyFields: nonEmpty)
            }
        case .cloze:
            let numbers = Cloze.numbers(inFields: fieldValues.prefix(fieldNames.count))
            return Set(numbers.map { min($0 - 1, Self.maximumClozeOrdinal) }).sorted()
        }
    }

    private func nonEmptyFieldsForGeneration(_ values: [String], hasTags: Bool) -> Set<String> {
        var nonEmpty = Set<String>()
        for (index, name) in fieldNames.enumerated() where index < values.count && !FieldText.isEmpty(values[index]) {
            nonEmpty.insert(name)
        }
        let names = Set(fieldNames)
        for special in Self.specialFieldNames where special != "FrontSide" && !names.contains(special) {
            if special == "Tags" && !hasTags { continue }
            nonEmpty.insert(special)
        }
        return nonEmpty
    }
}
