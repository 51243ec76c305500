import Foundation

/// The inputs the bars read, built once and kept between runs of `deck-bench` in a cache
/// folder (`$DECK_BENCH_TMP/deck-bench-cache`, else the temporary folder's), keyed by size:
/// building the 1,000,000-card ones takes longer than measuring them.
///
/// Each input's name says what it depends on, so a stale one is never read:
/// - the CSV of `n` cards depends only on its generator (`cards-<n>-v1.csv`);
/// - a deck is what the `deck` binary beside this one imported from that CSV, so its name
///   carries the binary's path (hashed), size and modification time (a rebuilt `deck` builds
///   new decks, and the old ones of that size and path are removed);
/// - the Anki package is what current Anki (its version in the name) built and exported.
///
/// Every input is built under a temporary name and renamed into place, so an interrupted or
/// concurrent run never leaves a half-built input under the final name. Decks from the cache
/// are only read (list, search of an indexed copy, archive, export); a bar that changes a
/// deck works on a copy.
enum BenchInputs {
    /// Bump when a generator changes what it writes.
    static let generation = "v1"

    static var directory: URL {
        let base = ProcessInfo.processInfo.environment["DECK_BENCH_TMP"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        return base.appendingPathComponent("deck-bench-cache")
    }

    /// Where the `deck` binary is (a hash of its path: worktrees sharing the cache keep apart).
    static var deckPathKey: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in ChildProcess.deckTool.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(format: "p%08llx", hash & 0xffff_ffff)
    }

    /// The `deck` binary's identity: its size and modification time.
    static var deckBinaryKey: String {
        let attributes = (try? FileManager.default.attributesOfItem(atPath: ChildProcess.deckTool)) ?? [:]
        let size = (attributes[.size] as? Int) ?? 0
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return String(format: "b%lx-%llx", size, UInt64(modified * 1000))
    }

    /// A CSV of `rows` cards, header `front,back` (``CLIBench/writeCSV(to:rows:tags:)``).
    static func csv(rows: Int, log: (String) -> Void) throws -> URL {
        try cached("cards-\(rows)-\(generation).csv", log: log) { url in try CLIBench.writeCSV(to: url, rows: rows) }
    }

    /// A deck of `cards` Basic notes: `deck import` of ``csv(rows:log:)`` into a new deck, as
    /// the current `deck` binary leaves it (its search index pending, as after any import).
    static func deck(cards: Int, log: (String) -> Void) throws -> URL {
        let csv = try csv(rows: cards, log: log)
        let name = "deck-\(cards)-\(deckPathKey)-\(deckBinaryKey).sampledeck"
        prune(prefix: "deck-\(cards)-\(deckPathKey)-", keeping: name)
        return try cached(name, log: log) { url in
            try ChildProcess.deck(["create", url.path, "--quiet"])
            try ChildProcess.deck(["import", url.path, csv.path, "--quiet", "--no-progress"])
        }
    }

    /// A package current Anki built and exported itself (`anki21b`, with scheduling, deck
    /// presets and media) holding `notes` Basic notes: the CSV imported by Anki, then 40 % of
    /// the cards in review with an FSRS memory state, 10 % learning, 5 % suspended, 5 % buried,
    /// some flagged, three review log rows per studied card, two tags per note and 21 media
    /// files (``PythonPeers/ankiBuildPackage``).
    static func ankiPackage(notes: Int, log: (String) -> Void) throws -> URL {
        let csv = try csv(rows: notes, log: log)
        let version = PythonPeers.version("anki")
        return try cached("anki-\(notes)-\(version)-\(generation).apkg", log: log) { url in
            let work = url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".collection")
            defer { try? FileManager.default.removeItem(at: work) }
            let result = try ChildProcess.run("python3", ["-c", PythonPeers.ankiBuildPackage, csv.path, url.path, work.path])
            log("built \(url.lastPathComponent) with Anki \(version): notes, cards, reviews, seconds = \(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    /// The cached file or folder `name`, built by `build` (into a temporary name) when missing.
    private static func cached(_ name: String, log: (String) -> Void, build: (URL) throws -> Void) throws -> URL {
        let final = directory.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: final.path) { return final }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let partial = directory.appendingPathComponent(".partial-\(getpid())-\(name)")
        try? FileManager.default.removeItem(at: partial)
        log("building bench input \(final.path)")
        do {
            try build(partial)
            try FileManager.default.moveItem(at: partial, to: final)
        } catch {
            try? FileManager.default.removeItem(at: partial)
            // Another run may have built it meanwhile.
            if FileManager.default.fileExists(atPath: final.path) { return final }
            throw error
        }
        return final
    }

    /// Removes the cached inputs named `prefix…` other than `keeping` (decks of older binaries).
    private static func prune(prefix: String, keeping: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) && name != keeping {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }
}
