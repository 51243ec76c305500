import Foundation
import Testing

/// Compares text with a file under `Snapshots/`. With `RECORD_SNAPSHOTS=1` in the
/// environment, (re)writes the file instead and records an issue so that a recording run
/// never passes by accident.
func expectSnapshot(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Snapshots")
    let file = directory.appendingPathComponent(name)
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try actual.write(to: file, atomically: true, encoding: .utf8)
            Issue.record("recorded snapshot \(name); run again without RECORD_SNAPSHOTS", sourceLocation: sourceLocation)
        } catch {
            Issue.record("cannot record snapshot \(name): \(error)", sourceLocation: sourceLocation)
        }
        return
    }
    guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
        Issue.record("missing snapshot \(name); run with RECORD_SNAPSHOTS=1 to record it", sourceLocation: sourceLocation)
        return
    }
    #expect(actual == expected, "snapshot \(name) differs", sourceLocation: sourceLocation)
}
