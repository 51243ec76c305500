import Foundation
import Testing

extension Tag {
    /// Tests that run a real peer (python3 with the fsrs or anki package).
    @Tag static var interop: Self
}

/// A small seeded generator (SplitMix64), so every run checks the same sequences.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum Peer {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers")

    /// Runs `python3 Peers/<script> in.json out.json [extra...]` once, with `input` encoded as
    /// JSON, and decodes what it wrote. Fails (not skips) when python3 or the package is missing.
    static func run<Input: Encodable, Output: Decodable>(_ script: String, input: Input, as: Output.Type,
                                                         environment: [String: String] = [:]) throws -> Output {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("sched-peer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inURL = scratch.appendingPathComponent("in.json")
        let outURL = scratch.appendingPathComponent("out.json")
        try JSONEncoder().encode(input).write(to: inURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", directory.appendingPathComponent(script).path, inURL.path, outURL.path, scratch.path]
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0,
                     "python3 \(script) failed (\(process.terminationStatus)): \(String(decoding: stderr, as: UTF8.self))")
        return try JSONDecoder().decode(Output.self, from: Data(contentsOf: outURL))
    }
}
