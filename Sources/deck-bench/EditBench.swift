import DeckDocument
import Foundation

/// Issue 16's bulk-edit bar: `deck edit --where` changing 10,000 notes of a 100,000-card deck
/// (a field set and a tag added, in one transaction) under 1 s, the whole command, beside the
/// `sqlite3` shell making the same change with plain SQL in one transaction.
enum EditBench {
    static func run(deck source: URL, cards: Int, notes: Int, runs: Int, scratch: Scratch) throws -> Measurement {
        // An indexed copy, as a deck someone searched is: the edit keeps the index up to date.
        let template = scratch.file("edit-template.sampledeck")
        CLIBench.remove(template)
        try FileManager.default.copyItem(at: source, to: template)
        _ = try ChildProcess.deck(["search", template.path, "--index", "--quiet"])
        let deck = scratch.file("edit.sampledeck")
        let store = deck.appendingPathComponent(DeckManifest.defaultStoreName).path
        let filter = "note <= \(notes)"
        let ours = [ChildProcess.deckTool, "edit", deck.path, "--where", filter, "--field", "Back=edited back", "--tag", "+edited", "--yes"]
        let sql = """
            BEGIN; UPDATE Note SET fields = json_set(fields, '$[1]', 'edited back'), modified = (julianday('now') - 2440587.5) * 86400.0 WHERE pk <= \(notes); \
            INSERT OR IGNORE INTO Tag (name, collapsed) VALUES ('edited', 0); \
            INSERT OR IGNORE INTO Note_tags (source, target) SELECT pk, (SELECT pk FROM Tag WHERE name = 'edited') FROM Note WHERE pk <= \(notes); \
            COMMIT;
            """
        let reference = ["sqlite3", store, sql]
        var printed = ""
        let m = try compareSamples("deck edit --where of \(notes) notes", runs: runs, bar: nil, judge: .wall,
            setup: { CLIBench.remove(deck); try FileManager.default.copyItem(at: template, to: deck) },
            ours: {
                let result = try ChildProcess.run(ours[0], Array(ours.dropFirst()))
                printed = result.stdout
                return result.sample
            },
            reference: { try ChildProcess.run(reference[0], Array(reference.dropFirst())).sample })
        CLIBench.remove(deck, template)
        guard printed.contains("edited \(notes) notes") else { throw BenchError("deck edit --where printed \(printed.prefix(300))") }
        var result = Measurement(name: m.name, ours_s: m.ours_s, reference_s: m.reference_s, ratio: m.ratio, ours_cpu_s: m.ours_cpu_s,
                                 reference_cpu_s: m.reference_cpu_s, cpu_ratio: m.cpu_ratio, bar: 1, peak_mib: m.peak_mib,
                                 met: m.ours_s < 1, runs: m.runs, spread: m.spread)
        result.group = "edit --where (issue 16)"
        result.bar_text = "< 1 s"
        result.judged_on = .wall
        result.reference_name = "sqlite3 shell: the same field and tag change in plain SQL, one transaction (no search index, no checks)"
        result.reference_peak_mib = m.reference_peak_mib
        result.note = "On a copy (not timed) of the \(cards)-card bench deck, searched once so its index is complete. The whole command, median wall clock: the notes matched, each checked, the field set and the tag added in one transaction, the search index kept up to date."
        result.command = "cp -R deck.sampledeck edit.sampledeck && " + shellCommand(ours)
        result.reference_command = shellCommand(reference)
        return result
    }
}
