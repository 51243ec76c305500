import DeckDocument
import Foundation

/// The listing bars of issue 16 (big decks): `deck list --format tsv` of a whole deck against
/// the `sqlite3` shell printing the same columns from the same store (at most 3x, peak under
/// 64 MiB), and the time to the first line of `deck list` read through a pipe on a large
/// deck (under 100 ms, wall clock: what someone piping to `head -1` waits for).
enum ListBench {
    /// The columns `deck list --format tsv` prints (the id of each note's first card, its kind,
    /// its first two fields, its tags), as one SQL query on the format 2 store for the `sqlite3`
    /// shell: the first card by the same subquery, the fields out of the note's JSON array, the
    /// tags joined by a subquery, as deck does.
    static let referenceQuery = """
        SELECT (SELECT min(c.pk) FROM Card c WHERE c.note = n.pk), CASE WHEN t.kind = 1 THEN 'cloze' WHEN t.stockKind = 2 THEN 'reversible' ELSE 'basic' END, \
        json_extract(n.fields, '$[0]'), coalesce(json_extract(n.fields, '$[1]'), ''), coalesce((SELECT group_concat(x, ' ') FROM \
        (SELECT g.name AS x FROM Note_tags j JOIN Tag g ON g.pk = j.target WHERE j.source = n.pk ORDER BY g.name)), '') \
        FROM Note n JOIN NoteType t ON t.pk = n.noteType ORDER BY n.pk
        """

    static func listTSV(_ data: Scaling.Dataset, runs: Int) throws -> Measurement {
        let store = data.deck.appendingPathComponent(DeckManifest.defaultStoreName).path
        let ours = [ChildProcess.deckTool, "list", data.deck.path, "--format", "tsv"]
        let reference = ["sqlite3", "-readonly", "-separator", "\t", store, referenceQuery]
        let m = try compareSamples("deck list --format tsv, \(data.cards)-card deck", runs: runs, bar: 3,
            ours: { try ChildProcess.run(ours[0], Array(ours.dropFirst())).sample },
            reference: { try ChildProcess.run(reference[0], Array(reference.dropFirst())).sample })
        let peak = m.peak_mib ?? .infinity
        let judged = (m.judged_on == .wall ? m.ratio : m.cpu_ratio) ?? m.ratio
        var result = Measurement(name: m.name, ours_s: m.ours_s, reference_s: m.reference_s, ratio: m.ratio, ours_cpu_s: m.ours_cpu_s,
                                 reference_cpu_s: m.reference_cpu_s, cpu_ratio: m.cpu_ratio, bar: 3, peak_mib: m.peak_mib,
                                 met: judged <= 3 && peak < 64, runs: m.runs, spread: m.spread)
        result.group = "deck list (issue 16)"
        result.bar_text = "≤ 3x and < 64 MiB"
        result.judged_on = m.judged_on
        result.reference_name = "sqlite3 -separator TAB printing the same columns (tags by the same subquery)"
        result.reference_peak_mib = m.reference_peak_mib
        result.note = "Both write to a file. Ours streams rows from one query (DeckDocument.forEachCardRow)."
        result.command = shellCommand(ours) + " > out.tsv"
        result.reference_command = shellCommand(reference) + " > out.tsv"
        return result
    }

    /// Wall-clock time from starting `deck list <deck>` (default table format) to the first
    /// line on its standard output, read through a pipe that is then closed.
    static func firstLine(_ data: Scaling.Dataset, runs: Int) throws -> Measurement {
        var times: [Double] = []
        for _ in 0..<max(runs, 1) { times.append(try timeToFirstLine(["list", data.deck.path])) }
        times.sort()
        let median = times[times.count / 2]
        var m = Measurement(name: "deck list | head -1, \(data.cards)-card deck", ours_s: median, reference_s: 0.1, ratio: median / 0.1,
                            bar: 0.1, peak_mib: nil, met: median < 0.1, runs: times.count,
                            spread: (times.last ?? 0) / max(times.first ?? 1, 1e-9))
        m.group = "deck list (issue 16)"
        m.bar_text = "< 100 ms to the first line"
        m.judged_on = .wall
        m.reference_name = "the bar itself (100 ms)"
        m.note = "Wall clock from spawning deck to the first newline read from its standard output (a pipe, closed afterwards: deck stops on EPIPE)."
        m.command = shellCommand([ChildProcess.deckTool, "list", data.deck.path]) + " | head -1"
        return m
    }

    private static func timeToFirstLine(_ arguments: [String]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ChildProcess.deckTool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let start = Date()
        try process.run()
        var seen = Data()
        while !seen.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        let elapsed = Date().timeIntervalSince(start)
        try pipe.fileHandleForReading.close()
        process.waitUntilExit()
        guard seen.contains(UInt8(ascii: "\n")) else { throw BenchError("deck list printed no line") }
        return elapsed
    }
}
