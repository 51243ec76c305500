import DeckDocument
import Foundation

/// `deck archive` against `bsdtar` writing the same package at the same compression
/// (bar: at most 1.2x), on a deck of `cards` cards plus media files.
///
/// Both run as processes, alternately: `deck archive <deck> -o <file>` (a snapshot of the
/// store, then libarchive) and `bsdtar -cf <file> -C <dir> <package>` with the same
/// format and filter at their default levels (zip: deflate; tar.gz: gzip; tar.zst: zstd).
enum ArchiveBench {
    static let mediaFiles = 40
    static let mediaSize = 128 * 1024

    static func run(scratch: Scratch, cards: Int, runs: Int) throws -> [Measurement] {
        let directory = scratch.url.appendingPathComponent("archive-bench")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let package = try makeDeck(in: directory, cards: cards)
        let packageBytes = try FileManager.default.subpathsOfDirectory(atPath: package.path).reduce(0) { total, name in
            total + (((try? FileManager.default.attributesOfItem(atPath: package.appendingPathComponent(name).path)[.size]) as? Int) ?? 0)
        }
        var results: [Measurement] = []
        for (format, flags, reference) in [
            ("zip", ["--format", "zip"], "bsdtar --format zip (deflate, zlib's default level, as ours)"),
            ("tar.gz", ["--format", "pax", "-z"], "bsdtar --format pax -z (gzip, default level, as ours)"),
            ("tar.zst", ["--format", "pax", "--zstd"], "bsdtar --format pax --zstd (zstd, default level, as ours)"),
        ] {
            let ours = directory.appendingPathComponent("ours.\(format)")
            let theirs = directory.appendingPathComponent("bsdtar.\(format)")
            var measurement = try compareSamples("deck archive \(cards) cards + media, \(format)", runs: runs, bar: 1.2,
                ours: {
                    try? FileManager.default.removeItem(at: ours)
                    return try ChildProcess.deck(["archive", package.path, "-o", ours.path, "--quiet", "--no-progress"]).sample
                },
                reference: {
                    try? FileManager.default.removeItem(at: theirs)
                    return try ChildProcess.run("bsdtar", ["-cf", theirs.path] + flags + ["-C", directory.path, package.lastPathComponent]).sample
                })
            let sizes = [ours, theirs].map { ((try? FileManager.default.attributesOfItem(atPath: $0.path)[.size]) as? Int) ?? 0 }
            measurement.group = "archive"
            measurement.bar_text = "≤ 1.2x"
            measurement.reference_name = reference
            measurement.note = String(format: "Package %.1f MiB (%d cards, %d media files of %d KiB); archives: ours %.1f MiB, bsdtar %.1f MiB. "
                                      + "Ours archives a consistent snapshot of the store (a closed deck: the file in place under a shared lock, copied aside only if a writer comes; a deck open for writing: the file itself when its WAL is empty, else a backup-API copy); bsdtar copies the live files.",
                                      Double(packageBytes) / 1_048_576, cards, mediaFiles, mediaSize / 1024,
                                      Double(sizes[0]) / 1_048_576, Double(sizes[1]) / 1_048_576)
            results.append(measurement)
        }
        return results
    }

    /// A deck of `cards` cards (three kinds, tags) and ``mediaFiles`` media files of
    /// ``mediaSize`` bytes each (noise-like, so compression has real work to do).
    static func makeDeck(in directory: URL, cards: Int) throws -> URL {
        let url = directory.appendingPathComponent("Bench.sampledeck")
        let deck = try DeckDocument.create(at: url, title: "Archive benchmark")
        let kinds: [CardKind] = [.basic, .reversible, .cloze]
        let tags = try deck.tagModels(named: ["verbs", "nouns", "phrases", "irregular", "level-1", "level-2"])
        for index in 0..<cards {
            let card = try deck.addCard(kind: kinds[index % 3], front: "front \(index) le mot numéro \(index * 7919 % 100_003)",
                                        back: "back \(index): the meaning of word \(index), with an example sentence", tags: [])
            card.tags = [tags[index % tags.count], tags[(index / 7) % tags.count]]
            if index % 20_000 == 19_999 { try deck.save() }
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for file in 0..<mediaFiles {
            var bytes = [UInt8](repeating: 0, count: mediaSize)
            for i in 0..<mediaSize {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                // Half noise, half runs: compresses about 2:1, like real media mixes.
                bytes[i] = i % 2 == 0 ? UInt8(truncatingIfNeeded: state >> 56) : UInt8(truncatingIfNeeded: i >> 9)
            }
            _ = try deck.addMedia(Data(bytes), originalName: "media-\(file).bin")
        }
        try deck.save()
        try deck.close()
        return url
    }
}
