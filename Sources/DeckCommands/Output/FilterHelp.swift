import DeckDocument

/// The filter language as `--help` and the manual pages describe it (docs/FILTERS.md in full);
/// a test checks that every field the translator knows is named here.
enum FilterHelp {
    static let text = """
        A filter reads like: front contains "chat" and (tag = verbs or created > 2026-01-01) and not kind = cloze. \
        Grammar: filter = term { (and | or) term }, 'and' binding tighter; term = [not] ( "(" filter ")" | comparison ); \
        comparison = field op value | field [not] in (value, …) | is [not] state; op = '=' '==' '!=' '<' '<=' '>' '>=' 'contains' \
        'starts with' 'not contains'; values are "quoted strings", bare words, numbers, dates (2026-01-01) or \
        date-times (2026-01-01T10:00:00Z). Fields: front, back (the first two fields), text (any field), \
        field.<name> (the field of that name in the note's type, e.g. field.Reading), tag (a tag and the tags below \
        it: tag = lang matches lang::fr), kind (basic, reversible, cloze), notetype (its name), deck (a deck and its \
        subdecks: deck = Languages matches Languages::French), card (the template: card = 2 or card = "Card 2"; the \
        cloze number for cloze notes), is (new, learning, review, due, suspended, buried: is new, is not suspended, is = due), flag (0-7), id (the \
        card's), note (the note's key), created, modified (the note's), due (a date), interval (days), ease (2.5), \
        reps, lapses. Without --cards the card fields are the note's first card's. contains and starts with ignore \
        case and accents as search does (contains "cafe" matches Café); a date without a time is the whole UTC day.
        """

    /// The fields ``text`` must name: those the translator accepts.
    static var fieldNames: [String] { DeckDocument.filterFieldNames }
}
