import Anki
import Foundation

/// `deck-bench apkg-read <package>`: the reading side of `deck import` of an `.apkg` alone, for
/// profiling — opening the package (the collection extracted), then one merged pass over the
/// notes with their first card and reviews, as the importer makes — with the process time of each step.
enum ApkgReadBench {
    static func run(_ path: String) throws {
        func cpu() -> Double {
            var t = timespec()
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
            return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
        }
        var last = cpu()
        func lap(_ step: String) {
            let now = cpu()
            print(step, String(format: "%.1f ms", (now - last) * 1000))
            last = now
        }
        let reader = try AnkiPackageReader(url: URL(fileURLWithPath: path))
        lap("open (collection extracted)")
        var notes = 0, cards = 0, reviews = 0
        try reader.forEachNoteWithCards { _, card, history in
            notes += 1
            cards += card == nil ? 0 : 1
            reviews += history.count
        }
        lap("notes with first card and reviews (\(notes) notes, \(cards) cards, \(reviews) reviews)")
        reader.close()
        lap("close")
    }
}
