import Foundation
import Testing

/// Packages built at test time by current Anki's own Python API (Peers/build_anki_collection.py),
/// once per test process, with the JSON the builder prints of what the collection holds.
///
/// Fails (not skips) when python3 or the `anki` package is missing: `make pydeps` installs them.
enum AnkiPeerCollection {
    /// The packages the builder writes, by file name.
    static let packageNames = ["current.apkg", "legacy2.apkg", "legacy1.apkg", "full.colpkg"]

    /// The folder with the packages and `truth.json`, built on first use (about 5 s).
    static func built() throws -> (folder: URL, truth: Truth) {
        try cache.get()
    }

    private static let cache: Result<(folder: URL, truth: Truth), Error> = Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("anki-peer-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Peers").appendingPathComponent("build_anki_collection.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, folder.path]
        // Not the test's folder: a directory named like a Python package there would shadow `anki`.
        process.currentDirectoryURL = folder
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PeerFailure(message: "python3 build_anki_collection.py failed (\(process.terminationStatus)): "
                              + String(decoding: stderr, as: UTF8.self))
        }
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: folder.appendingPathComponent("truth.json")))
        return (folder, truth)
    }

    struct PeerFailure: Error, CustomStringConvertible { let message: String; var description: String { message } }

    /// What the builder's collection holds (schema-11 keys, as Anki's `col.models`, `col.decks`,
    /// `col.dconf` and its tables spell them).
    struct Truth: Decodable {
        struct Field: Decodable {
            let name: String, ord: Int, font: String, size: Int, rtl: Bool, sticky: Bool
            let plainText: Bool?, collapsed: Bool?, excludeFromSearch: Bool?, description: String?
            let id: Int64?
        }
        struct Template: Decodable {
            let name: String, ord: Int, qfmt: String, afmt: String, bqfmt: String, bafmt: String
            let bfont: String, bsize: Int, did: Int64?, id: Int64?
        }
        struct NoteType: Decodable {
            let id: Int64, name: String, type: Int, sortf: Int, css: String, latexPre: String, latexPost: String
            let latexsvg: Bool, mod: Int64, originalStockKind: Int?, flds: [Field], tmpls: [Template]
        }
        struct Term: Decodable {
            let search: String, limit: Int, order: Int
            init(from decoder: Decoder) throws {
                var container = try decoder.unkeyedContainer()
                search = try container.decode(String.self)
                limit = try container.decode(Int.self)
                order = try container.decode(Int.self)
            }
        }
        struct Deck: Decodable {
            let id: Int64, name: String, desc: String, dyn: Int, conf: Int64?, md: Bool?, collapsed: Bool
            let terms: [Term]?, resched: Bool?, mod: Int64
        }
        struct Preset: Decodable {
            struct New: Decodable { let perDay: Int, delays: [Double], ints: [Int], initialFactor: Int, bury: Bool }
            struct Rev: Decodable { let perDay: Int, maxIvl: Int, ease4: Double, hardFactor: Double, ivlFct: Double, bury: Bool }
            struct Lapse: Decodable { let delays: [Double], mult: Double, minInt: Int, leechFails: Int }
            let id: Int64, name: String, mod: Int64, new: New, rev: Rev, lapse: Lapse
            let desiredRetention: Double, fsrsParams6: [Double]?, buryInterdayLearning: Bool?
        }
        struct Note: Decodable { let id: Int64, guid: String, mid: Int64, mod: Int64, tags: [String], fields: [String] }
        struct Card: Decodable {
            let id, nid, did: Int64, ord: Int, mod: Int64, type, queue: Int, due: Int64, ivl, factor, reps, lapses, left: Int
            let odue, odid: Int64, flags: Int, data: String
            let stability, difficulty, desiredRetention: Double?
            let customData: String
        }
        struct Review: Decodable { let id, cid: Int64, usn, ease, ivl, lastIvl, factor, time, type: Int }

        let crt: Int64
        /// Anki's `col.sched.today` when the state was read: the day number of now.
        let today: Int64?
        let fsrs: Bool
        let noteTypes: [NoteType]
        let decks: [Deck]
        let presets: [Preset]
        let notes: [Note]
        let cards: [Card]
        let revlog: [Review]
        /// Media name → SHA-1 (lowercase hex).
        let media: [String: String]
        let filteredDeckID: Int64
        /// Package file name → its zip entries.
        let packages: [String: [String]]
    }
}
