import ArgumentParsing
import DeckDocument
import DeckFilter
import FileSafety
import Foundation

/// An interactive session on one deck (`deck open`): commands edit a private working copy
/// of the deck; `save` (or autosave) writes the working copy into the deck in one
/// transaction with SQLite's backup API.
///
/// The deck's write lock is held for the whole session, so nobody else writes it meanwhile
/// (readers are not blocked). The working copy lives in a private temporary directory
/// removed at the end; if the process dies, the deck holds what was last saved. Undo and
/// redo are the working copy's model context's own undo stack: each changing command is
/// one undo group, named after the command.
final class DeckSession {
    /// The session's commands, for `help`, completion and suggestions.
    static let commands: [(name: String, usage: String, abstract: String)] = [
        ("list", "list [<filter>]", "list the cards, all or those matching a filter (as deck list --where)"),
        ("search", "search <text>", "find cards by text, ignoring case and accents"),
        ("add", "add <front> <back> [+<tag>]...", "add a basic card (quote a front or back holding blanks)"),
        ("edit", "edit <id> [front=<text>] [back=<text>] [+<tag>] [-<tag>]...", "change a card"),
        ("rm", "rm <id>...", "remove cards"),
        ("suspend", "suspend <card-id>...", "take cards out of study, keeping their scheduling"),
        ("unsuspend", "unsuspend <card-id>...", "put suspended cards back in their queue"),
        ("flag", "flag <0-7> <card-id>...", "set the flag of cards (0 clears it, 1 red to 7 purple)"),
        ("undo", "undo", "undo the last change"),
        ("redo", "redo", "redo the last undone change"),
        ("save", "save", "write the changes to the deck"),
        ("quit", "quit", "leave (asks first when changes are unsaved)"),
        ("help", "help", "show this list"),
    ]

    /// How session lines are split into words, for `help`, `deck open --help` and the man page.
    static let quotingRules = """
        Words are separated by blanks; a text holding blanks is quoted with '…' or "…", and a backslash \
        escapes the next character outside single quotes (add "la luna" "the moon" +spanish). Tags are \
        written +tag, so add la luna the moon is refused rather than read as front la, back luna and two tags.
        """

    let path: String
    private let deck: OpenDeck
    private let scratch: StagingDirectory
    private let workingPath: String
    private let working: OpenDeck
    /// When the oldest unsaved change was made; nil when everything is saved.
    private(set) var unsavedSince: Date?
    /// Seconds unsaved changes may wait before they are saved; 0 saves after every change; nil never.
    let autosaveInterval: Double?
    private let terminal: Terminal
    /// `--json`: every result and message is one JSON object per line (cards as an array).
    var printsJSON = false
    /// `--quiet`: only listings and errors are printed.
    var isQuiet = false
    /// Set when the working copy must outlive the session (the last save failed).
    private var keepsWorkingCopy = false

    /// Opens `path` for writing (taking its lock) and makes the working copy.
    init(path: String, autosaveInterval: Double?, wait: DeckLockWait = .none, terminal: Terminal = .current) throws {
        self.path = path
        self.autosaveInterval = autosaveInterval
        self.terminal = terminal
        deck = try OpenDeck.open(at: path, readOnly: false, wait: wait)
        // A private folder of TMPDIR, registered with CleanupRegistry: removed if a signal ends
        // the process before the session handles signals itself (then by the normal path).
        do {
            scratch = try StagingDirectory(in: Leftovers.temporaryDirectory, for: "deck-open")
        } catch {
            throw DeckFailure(.io, path: error.path, reason: "cannot create the session's working directory (\(error.reason))")
        }
        let package = scratch.url.appendingPathComponent("Working.sampledeck")
        workingPath = package.path
        do {
            try deck.copyPackage(to: package.path, includingMedia: false)
            working = try OpenDeck.open(at: package.path, readOnly: false)
            working.document.mainContext.isUndoEnabled = true
            working.document.mainContext.undoLevels = 0
        } catch {
            scratch.remove()
            throw error
        }
    }

    deinit {
        try? working.document.close()
        if keepsWorkingCopy { scratch.keep() } else { scratch.remove() }
    }

    var hasUnsavedChanges: Bool { unsavedSince != nil }

    // MARK: - The loop

    /// Reads and runs commands until `quit` or the end of input.
    func run(editor: LineEditor) throws {
        if editor.isInteractive {
            say("\(path): \(try working.cardCount()) cards. Type 'help' for the commands.")
        }
        while true {
            let prompt = (deck.path as NSString).lastPathComponent + (hasUnsavedChanges ? "*" : "") + "> "
            let line = try editor.readLine(prompt: prompt, idleAfter: idleDelay(), idle: { [self] in autosaveIfDue(force: true) })
            guard let line else {
                // End of input: a person is asked; a script's changes are kept.
                if editor.isInteractive, !editor.wasTerminated, hasUnsavedChanges, try !confirmQuit(editor: editor) { continue }
                if hasUnsavedChanges { try finalSave(); say("saved \(path)") }
                return
            }
            if try !execute(line, editor: editor) { return }
            try? terminal.stdout.flush()
        }
    }

    /// The save that ends a session: when it fails the working copy is kept, and the
    /// message says where, so no unsaved card is lost.
    private func finalSave() throws {
        do {
            try saveOrFail()
        } catch let failure as DeckFailure {
            keepsWorkingCopy = true
            throw DeckFailure(failure.kind, path: failure.path,
                              reason: failure.reason + "; the unsaved changes are kept in \(keepWorkingCopy())")
        }
    }

    /// Moves the working copy out of its temporary folder to a name no sweep of leftovers
    /// touches (`deck-open-unsaved-<uuid>` in TMPDIR), and returns its path.
    private func keepWorkingCopy() -> String {
        scratch.keep()
        let kept = (Leftovers.temporaryDirectory as NSString).appendingPathComponent("deck-open-unsaved-\(UUID().uuidString)")
        guard rename(scratch.path, kept) == 0 else { return workingPath }
        return (kept as NSString).appendingPathComponent((workingPath as NSString).lastPathComponent)
    }

    /// What Tab offers for `word`, given the line before it: command names for the first
    /// word, then tags (with +/- kept), `front=`/`back=` after edit <id>, and filter words.
    func completions(before: String, word: String) -> [String] {
        let previous = before.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let command = previous.first else {
            return Self.commands.map(\.name).filter { $0.hasPrefix(word) }
        }
        var prefix = ""
        var stem = Substring(word)
        if let first = word.first, first == "+" || (first == "-" && command == "edit") {
            prefix = String(first)
            stem = word.dropFirst()
        }
        var words = ((try? working.document.allTags()) ?? []).map { prefix + $0.name }
        if prefix.isEmpty {
            switch command {
            case "edit" where previous.count >= 2: words += ["front=", "back="]
            case "list", "ls": words += ["front", "back", "tag", "kind", "created", "modified", "contains", "and", "or", "not"]
            default: break
            }
        }
        return words.filter { $0.dropFirst(prefix.count).hasPrefix(stem) }.sorted()
    }

    /// Runs one command line; false when the session ends.
    func execute(_ line: String, editor: LineEditor) throws -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return true }
        let name = String(trimmed.prefix { !$0.isWhitespace })
        let rest = String(trimmed.dropFirst(name.count)).trimmingCharacters(in: .whitespaces)
        do {
            switch name {
            case "help", "?": help()
            case "list", "ls": try list(rest)
            case "search": try search(rest)
            case "add": try change("add") { try add(SessionWords.split(rest)) }
            case "edit": try change("edit") { try edit(SessionWords.split(rest)) }
            case "rm": try change("rm") { try remove(SessionWords.split(rest)) }
            case "suspend", "unsuspend":
                try change(name) { try setCardState(name, SessionWords.split(rest)) { try $0.setSuspended(name == "suspend", cards: $1) } }
            case "flag":
                try change("flag") {
                    let words = try SessionWords.split(rest)
                    guard let flag = words.first.flatMap({ Int($0) }) else { throw SessionUsage("usage: flag <0-7> <card-id>...") }
                    return try setCardState("flag \(flag)", Array(words.dropFirst())) { try $0.setFlag(flag, cards: $1) }
                }
            case "undo": try undo()
            case "redo": try redo()
            case "save":
                // Nothing changed since the last save: nothing is written (copying the store
                // over the deck's rewrote it whole, through a WAL of its size).
                guard hasUnsavedChanges else {
                    say("nothing to save: no changes since \(path) was last saved")
                    break
                }
                try saveOrFail()
                say("saved \(path)")
            case "quit", "exit", "q":
                if hasUnsavedChanges, try !confirmQuit(editor: editor) { return true }
                return false
            default:
                let hint = Self.suggestion(for: name).map { "; did you mean '\($0)'?" } ?? "; type 'help' for the commands"
                complain("unknown command '\(name)'\(hint)")
            }
        } catch let failure as SessionUsage {
            complain(failure.message)
        } catch {
            // No mistake in one command ends the session (its unsaved work would go with it).
            let mapped = ErrorMapping.map(error, path: path)
            let message = (mapped as? any CommandError)?.message ?? (mapped as? ValidationError)?.message ?? String(describing: mapped)
            complain(message.replacingOccurrences(of: workingPath, with: path))
        }
        autosaveIfDue(force: false)
        return true
    }

    // MARK: - Commands

    private func list(_ filter: String) throws {
        let expression: FilterExpression?
        do {
            expression = try filter.isEmpty ? nil : FilterParser.parse(filter)
        } catch {
            throw SessionUsage("list: \(error.description)")
        }
        show(try working.cards(where: expression, sortedBy: [], limit: nil, offset: 0))
    }

    private func search(_ text: String) throws {
        guard !text.isEmpty else { throw SessionUsage("usage: search <text>") }
        show(try working.search(text, limit: nil))
    }

    private func show(_ cards: [CardRecord]) {
        if printsJSON {
            terminal.stdout.write(CardPrinter.json(cards).replacingOccurrences(of: "\n", with: "") + "\n")
        } else if cards.isEmpty {
            say("no cards")
        } else {
            terminal.stdout.write(CardPrinter.table(cards, width: terminal.width))
        }
    }

    private func add(_ words: [String]) throws -> String {
        guard words.count >= 2, !words[0].isEmpty else { throw SessionUsage("usage: add <front> <back> [+<tag>]...") }
        var tags: [String] = []
        for word in words.dropFirst(2) {
            guard word.hasPrefix("+"), word.count > 1 else {
                throw SessionUsage("add: '\(word)' is not a tag: tags are written +tag, and a front or back holding blanks is quoted, "
                                   + "as in add \"la luna\" \"the moon\" +spanish")
            }
            tags.append(String(word.dropFirst()))
        }
        let added = try working.add([(kind: "basic", front: words[0], back: words[1], tags: tags)])
        let id = added.first.map { String($0.id) } ?? "?"
        say("added \(id)")
        return "add \(id)"
    }

    private func edit(_ words: [String]) throws -> String {
        guard let first = words.first, let id = Int64(first), words.count >= 2 else {
            throw SessionUsage("usage: edit <id> [front=<text>] [back=<text>] [+<tag>] [-<tag>]...")
        }
        guard var card = try working.card(id: id) else { throw SessionUsage("no card with id \(id)") }
        // Tags in a set beside the list: each +tag and -tag costs the same however many the
        // card has (a list search per word made an edit of 20,000 tags quadratic).
        var present = Set(card.tags)
        for word in words.dropFirst() {
            if word.hasPrefix("front=") {
                card.front = String(word.dropFirst(6))
                if card.front.isEmpty { throw SessionUsage("the front must not be empty") }
            } else if word.hasPrefix("back=") {
                card.back = String(word.dropFirst(5))
            } else if word.hasPrefix("+"), word.count > 1 {
                let tag = String(word.dropFirst())
                if present.insert(tag).inserted { card.tags.append(tag) }
            } else if word.hasPrefix("-"), word.count > 1 {
                present.remove(String(word.dropFirst()))
            } else {
                throw SessionUsage("edit: '\(word)' is not front=<text>, back=<text>, +<tag> or -<tag>")
            }
        }
        var kept: Set<String> = []
        card.tags = card.tags.filter { present.contains($0) && kept.insert($0).inserted }
        _ = try working.update(card)
        say("edited \(id)")
        return "edit \(id)"
    }

    private func remove(_ words: [String]) throws -> String {
        guard !words.isEmpty else { throw SessionUsage("usage: rm <id>...") }
        var ids: [Int64] = []
        for word in words {
            guard let id = Int64(word) else { throw SessionUsage("rm: '\(word)' is not a card id") }
            guard try working.card(id: id) != nil else { throw SessionUsage("no card with id \(id); nothing removed") }
            ids.append(id)
        }
        try working.delete(ids: ids)
        say("removed \(ids.count) card\(ids.count == 1 ? "" : "s")")
        return "rm " + words.joined(separator: " ")
    }

    /// Suspends, unsuspends or flags the cards `words` name (card ids, every one existing),
    /// as `deck suspend`, `unsuspend` and `flag` do, and saves the working copy.
    private func setCardState(_ label: String, _ words: [String],
                              _ apply: (DeckDocument, [DeckSchemaV2.Card]) throws -> BulkChange) throws -> String {
        guard !words.isEmpty else { throw SessionUsage("usage: \(label) <card-id>...") }
        var cards: [DeckSchemaV2.Card] = []
        for word in words {
            guard let id = Int64(word) else { throw SessionUsage("\(label): '\(word)' is not a card id") }
            guard let card = try working.perform({ try $0.card(id: id) }) else {
                throw SessionUsage("no card with id \(id); nothing changed")
            }
            cards.append(card)
        }
        let change = try working.perform { try apply($0, cards) }
        try working.saveChanges()
        say("\(label): \(change.changed) of \(change.matched) card\(change.matched == 1 ? "" : "s") changed")
        return label + " " + words.joined(separator: " ")
    }

    /// Runs a changing command as one undoable step of the working copy's context, named
    /// after what the command did. A command that fails part-way is reverted.
    private func change(_ name: String, _ body: () throws -> String) throws {
        let context = working.document.mainContext
        context.beginUndoGrouping()
        let label: String
        do {
            label = try body()
        } catch {
            context.endUndoGrouping()
            if context.hasChanges {
                context.undo()
                do {
                    try working.saveChanges()
                } catch let saving {
                    // The working copy may now hold part of the failed command: say so.
                    complain("cannot revert the failed command in the working copy: \(ErrorMapping.map(saving, path: path))")
                }
            }
            throw error
        }
        context.setUndoActionName(label)
        context.endUndoGrouping()
        // A step that changed nothing is not recorded (and leaves the deck unchanged).
        if context.canUndo, context.undoActionName == label { markChanged() }
    }

    private func undo() throws {
        let context = working.document.mainContext
        guard context.canUndo else { return say("nothing to undo") }
        let label = context.undoActionName
        context.undo()
        try working.saveChanges()
        markChanged()
        say("undid \(label)")
    }

    private func redo() throws {
        let context = working.document.mainContext
        guard context.canRedo else { return say("nothing to redo") }
        let label = context.redoActionName
        context.redo()
        try working.saveChanges()
        markChanged()
        say("redid \(label)")
    }

    private func help() {
        let width = Self.commands.map(\.usage.count).max() ?? 0
        for command in Self.commands {
            terminal.stdout.write("  " + command.usage.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + command.abstract + "\n")
        }
        terminal.stdout.write("""

              Quote a text holding blanks with '…' or "…"; a backslash escapes the next character.
              Tags are written +tag: add "la luna" "the moon" +spanish

            """)
    }

    // MARK: - Saving

    /// Writes the working copy into the deck: its store copied over the deck's with the
    /// backup API (one write transaction), then the manifest.
    func save() throws {
        try deck.replaceStore(withContentsOf: working)
        unsavedSince = nil
    }

    private func saveOrFail() throws {
        do {
            try save()
        } catch let failure as DeckFailure {
            throw DeckFailure(.io, path: path, reason: "cannot save: \(failure.reason)")
        }
    }

    private func markChanged() {
        if unsavedSince == nil { unsavedSince = Date() }
    }

    /// Seconds to wait at the prompt before autosaving, when changes are unsaved.
    private func idleDelay() -> Double? {
        guard let autosaveInterval, let unsavedSince else { return nil }
        return max(0, autosaveInterval - Date().timeIntervalSince(unsavedSince))
    }

    /// Saves when autosave is on and the oldest unsaved change is old enough (or `force`).
    private func autosaveIfDue(force: Bool) {
        guard let autosaveInterval, let unsavedSince else { return }
        guard force || Date().timeIntervalSince(unsavedSince) >= autosaveInterval else { return }
        do {
            try save()
            if autosaveInterval > 0 { note("autosaved \(path)") }
        } catch {
            complain("autosave failed: \(ErrorMapping.map(error, path: path))")
        }
    }

    /// Asks what to do with unsaved changes; true when the session may end.
    private func confirmQuit(editor: LineEditor) throws -> Bool {
        while true {
            guard let answer = try editor.readLine(prompt: "Save changes to \(path) before quitting? [y]es, [n]o, [c]ancel: ") else {
                try saveOrFail()
                say("saved \(path)")
                return true
            }
            switch answer.trimmingCharacters(in: .whitespaces).lowercased() {
            case "y", "yes":
                try saveOrFail()
                say("saved \(path)")
                return true
            case "n", "no":
                say("changes discarded")
                return true
            case "c", "cancel", "":
                return false
            default:
                continue
            }
        }
    }

    // MARK: - Messages

    private func say(_ text: String) {
        if isQuiet { return }
        terminal.stdout.write(printsJSON ? "{\"message\": \(JSONText.quoted(text))}\n" : text.escapingControlCharacters() + "\n")
    }
    private func note(_ text: String) {
        if isQuiet { return }
        terminal.stderr.write(printsJSON ? "{\"message\": \(JSONText.quoted(text))}\n" : text.escapingControlCharacters() + "\n")
    }
    private func complain(_ text: String) {
        terminal.stderr.write(printsJSON ? "{\"error\": {\"message\": \(JSONText.quoted(text))}}\n" : "error: \(text.escapingControlCharacters())\n")
    }

    static func suggestion(for name: String) -> String? {
        let names = commands.map(\.name)
        if let prefixed = names.filter({ $0.hasPrefix(name) }).first, !name.isEmpty, names.filter({ $0.hasPrefix(name) }).count == 1 {
            return prefixed
        }
        return names.min { distance(name, $0) < distance(name, $1) }.flatMap { distance(name, $0) <= 2 ? $0 : nil }
    }

    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}

/// A mistake in a session command: reported, and the session goes on.
struct SessionUsage: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
