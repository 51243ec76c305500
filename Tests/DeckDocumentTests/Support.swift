import Foundation
import TestSupport
@testable import DeckDocument

/// A temporary directory, removed when released, with a sample deck on demand.
final class Playground: TemporaryTree {
    init() throws { try super.init(prefix: "deckdoc") }

    /// A closed deck with three cards.
    func sampleDeck(_ name: String = "French.sampledeck") throws -> URL {
        let url = file(name)
        let deck = try DeckDocument.create(at: url, title: "French")
        _ = try deck.addCard(kind: .basic, front: "chat", back: "cat", tags: ["animals", "nouns"])
        _ = try deck.addCard(kind: .reversible, front: "Café", back: "coffee", tags: ["drinks"])
        _ = try deck.addCard(kind: .cloze, front: "Paris is the capital of {{c1::France}}", back: "", tags: ["geo"])
        try deck.save()
        try deck.close()
        return url
    }
}

/// Every regular file under a directory with its bytes.
func snapshot(of directory: URL) throws -> [String: Data] {
    var result: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
    while let url = enumerator?.nextObject() as? URL {
        if (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
            result[String(url.path.dropFirst(directory.path.count))] = try Data(contentsOf: url)
        }
    }
    return result
}

/// Runs a program and returns its standard output and status.
func run(_ program: String, _ arguments: [String]) throws -> (output: String, status: Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: data, as: UTF8.self), process.terminationStatus)
}

extension Note {
    /// The first field (the front of a Basic note, the text of a Cloze note).
    var front: String { fields.first ?? "" }
    /// The second field.
    var back: String { fields.count > 1 ? fields[1] : "" }
}
