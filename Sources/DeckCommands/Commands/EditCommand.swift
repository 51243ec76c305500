import ArgumentParsing
import DeckDocument
import DeckFilter

/// `deck edit <deck> (<card-id> | --where <filter>) [--front <text>] [--back <text>] [--field <name>=<text>]... [--tag +<tag>|-<tag>]... [--deck <path>] [--dry-run] [--yes]`
struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change the fields, tags or deck of a note, or of every note a filter matches.",
        discussion: """
            A card id edits the note of that card; --where edits every note the filter matches (as deck list \
            --where lists them), all in one transaction: every note is checked first, and a note the edit can't \
            apply to (a field its type lacks, a cloze note left without a cloze deletion) changes nothing at all. \
            --front and --back set the first two fields, --field Name=text a field by name; --tag +name adds a tag, \
            --tag=-name removes one (the = keeps -name from reading as an option); --deck moves every card of the \
            note to that deck (created when missing). --dry-run prints what would change, note by note, and \
            changes nothing. Changing more than one note asks first on a terminal; elsewhere (a script, a pipe) \
            it needs --yes. Exits 1 when the card does not exist.
            """,
        examples: [.init("Fix a back and add a tag.", command: "deck edit French.sampledeck 3 --back \"to go\" --tag +motion"),
                   .init("See what a bulk edit would do, then do it.",
                         command: "deck edit French.sampledeck --where 'tag = modal' --tag +auxiliary --deck French::Modal --dry-run"),
                   .init("Retag every irregular verb from a script.",
                         command: "deck edit French.sampledeck --where 'tag = irregular' --tag=-irregular --tag +irr --yes")])

    @Argument(help: ArgumentHelp("The deck holding the card.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The identifier of a card whose note to edit.", valueName: "card-id")) var cardID: Int64?
    @Option(name: .customLong("where"), help: ArgumentHelp("Edit every note matching this filter.", valueName: "filter")) var filter: String?
    @Option(help: ArgumentHelp("The new front (first field).", valueName: "text")) var front: String?
    @Option(help: ArgumentHelp("The new back (second field).", valueName: "text")) var back: String?
    @Option(name: .customLong("field"), help: ArgumentHelp("A field by name, as Name=text (repeatable).", valueName: "name=text"))
    var fields: [String] = []
    @Option(name: .customLong("tag"), help: ArgumentHelp("+tag adds a tag, -tag removes one (repeatable).", valueName: "+tag|-tag"))
    var tagChanges: [String] = []
    @Option(name: .customLong("deck"), help: ArgumentHelp("Move the note's cards to this deck (a :: path, created when missing).", valueName: "path"))
    var deckPath: String?
    @OptionGroup var confirmation: BulkConfirmation
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    init() {}

    mutating func validate() throws {
        if (cardID == nil) == (filter == nil) { throw ValidationError("give either a card identifier or --where, not both or neither") }
        if front == nil, back == nil, fields.isEmpty, tagChanges.isEmpty, deckPath == nil {
            throw ValidationError("nothing to change: give --front, --back, --field, --tag or --deck")
        }
        if front == "" { throw ValidationError("--front must not be empty") }
        for change in tagChanges where !(change.hasPrefix("+") || change.hasPrefix("-")) || change.count < 2 {
            throw ValidationError("--tag '\(change)' must be +name or -name")
        }
        _ = try edit()
    }

    /// The edit the options describe.
    func edit() throws -> NoteEdit {
        var edit = NoteEdit(deck: deckPath)
        if let front { edit.fieldsByOrdinal[0] = front }
        if let back { edit.fieldsByOrdinal[1] = back }
        for field in fields {
            guard let equals = field.firstIndex(of: "="), equals != field.startIndex else {
                throw ValidationError("--field '\(field)' must be Name=text")
            }
            edit.fieldsByName.append((String(field[..<equals]), String(field[field.index(after: equals)...])))
        }
        for change in tagChanges {
            let names = OpenDeck.splitTags([String(change.dropFirst())])
            if change.hasPrefix("+") { edit.addTags += names } else { edit.removeTags += names }
        }
        return edit
    }

    mutating func run() async throws {
        let edit = try edit()
        let store = try OpenDeck.open(at: deck, readOnly: confirmation.dryRun, wait: waiting.policy)
        let (cardID, filter, deck) = (cardID, filter, deck)
        let noteIDs: [Int64] = try store.perform { document in
            if let cardID {
                guard let note = try document.note(forCard: cardID) else { throw DeckFailure(.notFound, path: deck, reason: "no card with id \(cardID)") }
                return [note.id]
            }
            let expression = try ErrorMapping.run { try FilterParser.parse(filter ?? "") }
            return try document.noteIDs(where: expression)
        }
        // One plan, read by SQL: shown (--dry-run), confirmed, then written as it is.
        let plan = try store.perform { try $0.planEdit(ids: noteIDs, edit) }
        if confirmation.dryRun { return report(plan.changes, matched: noteIDs.count, dryRun: true) }
        try confirmation.confirm(plan.changes.count, noun: "note", verb: "changed")
        try store.perform { try $0.applyEdit(plan) }
        let changes = plan.changes
        if let cardID, filter == nil {
            // One card: the note as it is now (the classic output).
            guard let updated = try store.card(id: cardID) else { throw DeckFailure(.notFound, path: deck, reason: "no card with id \(cardID)") }
            if output.json {
                Terminal.current.stdout.write(CardPrinter.object(updated) + "\n")
            } else {
                output.say("edited \(updated.id)")
            }
            return
        }
        report(changes, matched: noteIDs.count, dryRun: false)
    }

    /// Prints the changes: with --dry-run (or --json) note by note, else a count.
    func report(_ changes: [NoteChange], matched: Int, dryRun: Bool) {
        if output.json {
            Terminal.current.stdout.write(JSONValue.object([
                ("deck", .string(deck)), ("dryRun", .bool(dryRun)), ("matched", .int(matched)), ("changed", .int(changes.count)),
                ("notes", .array(changes.map(Self.json))),
            ]).text + "\n")
            return
        }
        guard !output.quiet else { return }
        if dryRun {
            var text = ""
            for change in changes { text += Self.describe(change) }
            text += "would change \(changes.count) of \(matched) note\(matched == 1 ? "" : "s") (nothing changed: --dry-run)\n"
            Terminal.current.stdout.write(text)
        } else {
            output.say("edited \(changes.count) note\(changes.count == 1 ? "" : "s")" + (matched > changes.count ? " (\(matched - changes.count) already were as asked)" : ""))
        }
    }

    static func json(_ change: NoteChange) -> JSONValue {
        .object([("note", .integer(change.note)), ("card", .integer(change.card)),
                 ("fields", .array(change.fields.map { .object([("name", .string($0.name)), ("old", .string($0.old)), ("new", .string($0.new))]) })),
                 ("addedTags", .strings(change.addedTags)), ("removedTags", .strings(change.removedTags)),
                 ("fromDecks", .strings(change.fromDecks)), ("toDeck", change.toDeck.map { .string($0) } ?? .null)])
    }

    /// `card 3 (note 3): Back: "to go" → "to go (away)"; tags +motion -verbs; deck Default → French`, escaped, one line per note.
    static func describe(_ change: NoteChange) -> String {
        var parts: [String] = []
        for field in change.fields {
            parts.append("\(field.name): \(JSONText.quoted(CardPrinter.truncate(field.old, to: 40))) → \(JSONText.quoted(CardPrinter.truncate(field.new, to: 40)))")
        }
        let tags = change.addedTags.map { "+" + $0 } + change.removedTags.map { "-" + $0 }
        if !tags.isEmpty { parts.append("tags " + tags.joined(separator: " ")) }
        if let to = change.toDeck { parts.append("deck \(change.fromDecks.joined(separator: ", ")) → \(to)") }
        return "card \(change.card) (note \(change.note)): \(parts.joined(separator: "; "))".escapingControlCharacters() + "\n"
    }
}
