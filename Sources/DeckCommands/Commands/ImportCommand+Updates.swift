import ArgumentParsing
import DeckDocument
import Interchange

// The report of updates on import: what became of notes already in the deck and of note types.
extension ImportCommand {
    /// `; 2 updated, 40 unchanged, 3 skipped (1 older than the deck's, 2 of a changed note type)`, or "" when no
    /// note of the files was in the deck.
    static func updatesSentence(_ updates: ImportUpdateCounts) -> String {
        guard updates.updated + updates.unchanged + updates.skipped > 0 else { return "" }
        var line = "; \(updates.updated) updated, \(updates.unchanged) unchanged, \(updates.skipped) skipped"
        let reasons = [(ImportSkipReason.older, "older than the deck's"), (.never, "left by --update never"),
                       (.noteType, "of a changed note type")].compactMap { reason, words in
            let count = updates.skippedNotes.count(where: { $0.reason == reason })
            return count > 0 ? "\(count) \(words)" : nil
        }
        if !reasons.isEmpty, updates.skipped > 0 { line += " (\(reasons.joined(separator: ", ")))" }
        return line
    }

    /// A line about a note type the deck had, or nil when there is nothing to say (added, kept).
    static func sentence(_ decision: NoteTypeDecision) -> String? {
        switch decision.action {
        case .added, .kept: nil
        case .updated: "note type \(decision.deckName): updated in place (same fields and templates)"
        case .copied: "note type \(decision.name): its fields or templates changed; the deck's is kept and the file's added as \(decision.deckName) (Anki's default)"
        case .merged: "note type \(decision.deckName): its fields or templates changed; merged with the file's \(decision.name) (--merge-notetypes)"
        }
    }

    /// `decks: 1 updated, 5 unchanged; presets: 1 kept (the deck's is newer or --update never)`, or nil when
    /// no deck or preset of the files was in the deck already.
    static func decksSentence(_ updates: ImportUpdateCounts) -> String? {
        func part(_ label: String, _ counts: ImportRowCounts) -> String? {
            guard counts.existing > 0 else { return nil }
            var words = ["\(counts.updated) updated", "\(counts.unchanged) unchanged"]
            if counts.kept > 0 { words.append("\(counts.kept) kept as the deck has \(counts.kept == 1 ? "it" : "them")") }
            if counts.added > 0 { words.insert("\(counts.added) added", at: 0) }
            return "\(label): " + words.joined(separator: ", ")
        }
        let parts = [part("decks", updates.decks), part("presets", updates.presets)].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// Names each skipped note on standard error.
    static func name(_ skipped: [SkippedNote]) {
        let stderr = Terminal.current.stderr
        for note in skipped {
            stderr.write("deck: skipped note \(note.guid) (\(note.text)): \(note.reason.sentence)\n")
        }
    }

    /// The update keys of the JSON report.
    static func updatesJSON(_ updates: ImportUpdateCounts, added: Int, mode: UpdateMode, verbose: Bool) -> String {
        let types = updates.noteTypes.map {
            "{\"name\": \(JSONText.quoted($0.name)), \"action\": \"\($0.action.rawValue)\", \"deckName\": \(JSONText.quoted($0.deckName))}"
        }
        var text = "\"update\": \"\(mode.rawValue)\", \"added\": \(added), \"updated\": \(updates.updated), \"unchanged\": \(updates.unchanged), "
            + "\"skipped\": \(updates.skipped), \"noteTypes\": [\(types.joined(separator: ", "))], "
            + "\"decks\": \(rowCountsJSON(updates.decks)), \"presets\": \(rowCountsJSON(updates.presets))"
        if verbose {
            let notes = updates.skippedNotes.map {
                "{\"guid\": \(JSONText.quoted($0.guid)), \"text\": \(JSONText.quoted($0.text)), \"reason\": \"\($0.reason.rawValue)\"}"
            }
            text += ", \"skippedNotes\": [\(notes.joined(separator: ", "))]"
        }
        return text
    }

    /// `{"added": 1, "updated": 0, "unchanged": 5, "kept": 0}`.
    static func rowCountsJSON(_ counts: ImportRowCounts) -> String {
        "{\"added\": \(counts.added), \"updated\": \(counts.updated), \"unchanged\": \(counts.unchanged), \"kept\": \(counts.kept)}"
    }
}
