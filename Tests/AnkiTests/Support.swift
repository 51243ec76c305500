import Foundation
import TestSupport
@testable import Anki

/// A temporary directory for one test (the shared ``TemporaryTree``).
typealias TemporaryDirectory = TemporaryTree

/// The committed fixtures in Fixtures/anki.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/anki", isDirectory: true)

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// The bytes the fixture script stores as "red dot.png" (a 2x2 PNG).
    static func redDot() throws -> Data { try Data(contentsOf: mediaSource("red dot.png")) }

    /// The bytes the fixture script stores as "bonjour.mp3": (i * 7 + 3) mod 256 for i in 0..<1000.
    static let bonjour = Data((0..<1000).map { UInt8(($0 * 7 + 3) % 256) })

    /// Media files as the fixtures hold them, by name, extracted once by the reader tests.
    static func mediaSource(_ name: String) -> URL { directory.appendingPathComponent("media/\(name)") }
}

/// Runs a process and returns (status, stdout, stderr).
func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws
    -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

extension AnkiNoteType {
    /// The type without what a writer adds on its own (modification time, the options Anki
    /// keeps that a value doesn't name), to compare what was written with what is read back.
    var shape: AnkiNoteType {
        var copy = self
        copy.modified = 0
        copy.options = "{}"
        copy.fields = copy.fields.map { var field = $0; field.options = "{}"; return field }
        copy.templates = copy.templates.map { var template = $0; template.options = "{}"; template.modified = 0; return template }
        return copy
    }
}
