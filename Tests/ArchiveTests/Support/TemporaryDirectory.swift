import Foundation

/// A fresh directory under the system's temporary directory, removed when the test ends
/// (swift-foundation's `FilePlayground` shape).
struct TemporaryDirectory: ~Copyable {
    let url: URL

    init() throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        url = base.appendingPathComponent("ArchiveTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A path inside the directory (not created).
    func path(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Writes `contents` at `name` (intermediate directories created) and returns its URL.
    @discardableResult
    func write(_ name: String, _ contents: Data) throws -> URL {
        let file = path(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: file)
        return file
    }

    /// Creates a directory at `name` (intermediate directories created) and returns its URL.
    @discardableResult
    func makeDirectory(_ name: String) throws -> URL {
        let directory = path(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

/// Runs a program and returns its exit status and output (stdout and stderr together).
@discardableResult
func run(_ executable: String, _ arguments: [String], in directory: URL? = nil) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [executable] + arguments
    if let directory { process.currentDirectoryURL = directory }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Deterministic, poorly compressible bytes (so sizes and ratios in tests are predictable).
func pseudoRandomBytes(_ count: Int, seed: UInt64) -> Data {
    var state = seed &+ 0x9E37_79B9_7F4A_7C15
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        bytes[index] = UInt8(truncatingIfNeeded: state >> 33)
    }
    return Data(bytes)
}
