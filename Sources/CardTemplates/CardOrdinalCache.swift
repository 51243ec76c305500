/// ``NoteLayout/cardOrdinals(fieldValues:tags:existing:)`` for many new notes of one layout (a
/// bulk import), remembered by what the answer depends on.
///
/// For a standard layout the cards a new note makes depend only on which of its fields are
/// non-empty (``FieldText/isEmpty(_:)``) and whether it has tags: the answer for each such
/// pattern is worked out once and returned again for every note with the same pattern. Cloze
/// layouts (whose cards depend on the cloze numbers in the text) and layouts of more than 63
/// fields are worked out for each note.
///
/// ```swift
/// let cards = CardOrdinalCache(layout: basic)
/// cards.cardOrdinals(fieldValues: ["chat", "cat"], tags: [])   // [0], worked out
/// cards.cardOrdinals(fieldValues: ["chien", "dog"], tags: [])  // [0], remembered
/// ```
///
/// Cost: one emptiness check per field; memory: at most ``maximumPatterns`` answers.
public final class CardOrdinalCache {
    /// The layout whose cards are generated.
    public let layout: NoteLayout
    /// The most patterns remembered (a layout of many fields could have a new one per note).
    public static let maximumPatterns = 1024
    @exclusivity(unchecked) private var known: [UInt64: [Int]] = [:]
    private let remembers: Bool

    /// A cache for notes of `layout`.
    public init(layout: NoteLayout) {
        self.layout = layout
        remembers = layout.kind == .standard && layout.fieldNames.count < 64
    }

    /// The card ordinals of a new note (no cards yet) with these field values and tags: what
    /// ``NoteLayout/cardOrdinals(fieldValues:tags:existing:)`` returns for them.
    public func cardOrdinals(fieldValues: [String], tags: [String]) -> [Int] {
        guard remembers else { return layout.cardOrdinals(fieldValues: fieldValues, tags: tags) }
        var pattern: UInt64 = tags.isEmpty ? 0 : 1 << 63
        for index in 0..<min(fieldValues.count, layout.fieldNames.count) where !FieldText.isEmpty(fieldValues[index]) {
            pattern |= 1 << UInt64(index)
        }
        if let ordinals = known[pattern] { return ordinals }
        let ordinals = layout.cardOrdinals(fieldValues: fieldValues, tags: tags)
        if known.count < Self.maximumPatterns { known[pattern] = ordinals }
        return ordinals
    }
}
