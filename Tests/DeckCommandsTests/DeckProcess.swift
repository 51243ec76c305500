import Foundation

/// Runs the built `deck` binary and captures what it prints and its exit status.
struct DeckProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The built `deck` executable: next to the test bundle, or in the package's `.build/debug`.
    static let executable: URL = {
        var candidates: [URL] = []
        if let bundle = Bundle.main.executableURL?.deletingLastPathComponent() {
            candidates.append(bundle.appendingPathComponent("deck"))
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("deck"))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("deck"))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/deck"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[candidates.count - 1]
    }()

    /// The package root, for fixtures.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `deck arguments…` in `directory`, with `COLUMNS` fixed so tables are reproducible.
    static func run(_ arguments: [String], in directory: URL, stdin: String? = nil, stdinData: Data? = nil, columns: Int = 80,
                    environment extra: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = String(columns)
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        if let stdinData { input.fileHandleForWriting.write(stdinData) }
        try input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// A temporary directory removed when the test is done.
final class Playground {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("deck-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func run(_ arguments: String..., stdin: String? = nil, columns: Int = 80) throws -> DeckProcess.Result {
        try DeckProcess.run(arguments, in: url, stdin: stdin, columns: columns)
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: url.appendingPathComponent(name))
    }

    func exists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path)
    }

    /// A deck named `name` holding the French verbs fixture.
    func frenchDeck(_ name: String = "French.sampledeck") throws {
        let fixture = DeckProcess.packageRoot.appendingPathComponent("Fixtures/csv/french-verbs.csv").path
        let created = try run("import", name, fixture, "--create")
        precondition(created.status == 0, created.stderr)
    }
}
