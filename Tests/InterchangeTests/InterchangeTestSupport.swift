import DeckDocument
import Foundation
import TestSupport
import Persistence

/// Shared helpers of the interchange tests: fixtures, a temporary folder, sample decks.
enum Fixtures {
    /// The repository's `Fixtures` folder.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func anki(_ name: String) -> URL { root.appendingPathComponent("anki").appendingPathComponent(name) }

    /// The four Anki fixtures (genanki, Anki legacy and current, a collection package).
    static let ankiPackages = ["genanki-legacy.apkg", "anki-legacy.apkg", "anki-current.apkg", "anki-collection.colpkg"]
}

/// A temporary directory removed when released, with sample decks on demand.
final class Scratch: TemporaryTree {
    init() throws { try super.init(prefix: "interchange") }

    /// A new empty deck.
    func deck(_ name: String = "Test.sampledeck", title: String = "Test") throws -> DeckDocument {
        try DeckDocument.create(at: file(name), title: title)
    }

    /// A deck with every card kind, tags, a deck path, scheduling, reviews and two media files.
    func richDeck(_ name: String = "Rich.sampledeck") throws -> DeckDocument {
        let deck = try self.deck(name, title: "Rich <deck> & \"quotes\"")
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
        let sound = Data((0..<300).map { UInt8(($0 * 7 + 3) % 256) })
        let image = try deck.addMedia(png, originalName: "red dot.png")
        let audio = try deck.addMedia(sound, originalName: "bonjour.mp3")
        try deck.bulkImport { session in
            let basic = ImportedNote(kind: .basic, front: "bonjour", back: "hello <img src=\"red dot.png\">")
            basic.deckPath = "French::Greetings"
            basic.due = Date(timeIntervalSince1970: 1_800_000_000)
            basic.interval = 12
            basic.ease = 2.65
            basic.repetitions = 2
            basic.lapses = 1
            let first = ReviewSnapshot(date: Date(timeIntervalSince1970: 1_790_000_000.25), ease: 3, interval: 4, duration: 6.5)
            let second = ReviewSnapshot(date: Date(timeIntervalSince1970: 1_790_500_000), ease: 1, interval: 12, duration: 3)
            try session.add(basic, tags: ["french", "greeting"], media: [image.originalName], reviews: [first, second])
            try session.add(ImportedNote(kind: .basic, front: "merci", back: "thank you [sound:bonjour.mp3]"), tags: ["french"],
                            media: [audio.originalName])
            try session.add(ImportedNote(kind: .reversible, front: "le chat", back: "the cat"), tags: ["french", "animals"])
            let cloze = ImportedNote(kind: .cloze, front: "{{c1::Paris}} is the capital of {{c2::France}}", back: "geography")
            cloze.deckPath = "Geography"
            try session.add(cloze, tags: ["geo"])
            try session.add(ImportedNote(kind: .basic, front: "<script>alert(1)</script> & é", back: "line one\nline two"))
        }
        return deck
    }
}

extension DeckDocument {
    /// Every note as a snapshot, in creation order.
    func allCards() throws -> [CardSnapshot] {
        try cardSnapshots().sorted { ($0.created, $0.front) < ($1.created, $1.front) }
    }

    func card(front: String) throws -> CardSnapshot? {
        try allCards().first { $0.front == front }
    }
}

/// Runs a program; returns its status, standard output and standard error.
func runProgram(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe()
    let err = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
    FileManager.default.createFile(atPath: err.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: err) }
    process.standardOutput = out
    process.standardError = try FileHandle(forWritingTo: err)
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let errText = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), errText)
}
