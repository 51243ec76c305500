import Foundation

/// Issue 14's size bar: the bytes on disk of 100,000 basic notes in a `.sampledeck` beside
/// current Anki's collection holding the same notes, both built from one CSV in one run.
enum SizeBench {
    /// Current Anki (the `anki` package) adds the CSV's rows as Basic notes to a new
    /// collection and closes it; prints the collection's size in bytes.
    static let ankiScript = """
        import csv, os, sys
        from anki.collection import Collection, AddNoteRequest
        source, path = sys.argv[1], sys.argv[2]
        col = Collection(path)
        basic = col.models.by_name('Basic')
        deck = col.decks.id('Default')
        requests = []
        with open(source, newline='', encoding='utf-8') as f:
            rows = csv.reader(f)
            next(rows)
            for row in rows:
                note = col.new_note(basic)
                note['Front'], note['Back'] = row[0], row[1]
                requests.append(AddNoteRequest(note=note, deck_id=deck))
        col.add_notes(requests)
        col.close(downgrade=False)
        print(os.path.getsize(path))
        """

    static func run(_ data: Scaling.Dataset, scratch: Scratch) throws -> [Measurement] {
        let deck = scratch.file("size-\(data.cards).sampledeck"), collection = scratch.file("size-\(data.cards).anki2")
        try? FileManager.default.removeItem(at: deck)
        _ = try ChildProcess.deck(["create", deck.path, "--quiet"])
        _ = try ChildProcess.deck(["import", deck.path, data.csv.path, "--quiet", "--no-progress"])
        let store = deck.appendingPathComponent("Deck.sqlite")
        let imported = try size(of: store)
        // The full-text index a bulk import defers (Anki keeps none), built as a search would.
        _ = try ChildProcess.deck(["search", deck.path, "--index", "--quiet"])
        let indexed = try size(of: store)
        let anki = try ChildProcess.run("python3", ["-c", ankiScript, data.csv.path, collection.path])
        guard let ankiBytes = Double(anki.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError("the anki peer printed \(anki.stdout)")
        }
        func row(_ name: String, _ bytes: Double, _ note: String) -> Measurement {
            let mib = 1_048_576.0
            var m = Measurement(name: name, ours_s: bytes / mib, reference_s: ankiBytes / mib, ratio: bytes / ankiBytes,
                                bar: 1, peak_mib: nil, met: bytes <= ankiBytes, runs: 1, spread: 1)
            m.group = "size"
            m.bar_text = "≤ 1x Anki's collection"
            m.judged_on = .size
            m.reference_name = "current Anki's collection.anki2 with the same notes (the anki package, closed)"
            m.note = note
            return m
        }
        return [row("size of \(data.cards) basic notes, as imported", imported,
                    "Deck.sqlite after deck import of the \(data.cards)-row CSV, before any search (16 KiB pages)."),
                row("size of \(data.cards) basic notes, with the search index", indexed,
                    "The same store after the first deck search built its full-text index (FTS5 with its content copy); Anki has no full-text index and scans the notes on every search.")]
    }

    private static func size(of file: URL) throws -> Double {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        return Double((attributes[.size] as? NSNumber)?.int64Value ?? 0)
    }
}
