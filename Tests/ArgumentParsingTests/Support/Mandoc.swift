import Foundation

/// The result of running `mandoc` on some pages.
struct MandocResult {
    var status: Int32
    var output: String
}

enum MandocError: Error, CustomStringConvertible {
    case notInstalled

    var description: String { "mandoc is not installed (make deps installs it)" }
}

/// Writes `pages` to a temporary directory and runs `mandoc` with `arguments` on them.
///
/// - Throws: ``MandocError/notInstalled`` when mandoc cannot be found (the test must fail,
///   not skip), or the error of writing the files or starting the process.
func runMandoc(_ arguments: [String], on pages: [(name: String, contents: String)]) throws -> MandocResult {
    let candidates = ["/usr/bin/mandoc", "/usr/local/bin/mandoc", "/opt/homebrew/bin/mandoc"]
    guard let executable = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) else {
        throw MandocError.notInstalled
    }
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("argument-parsing-man-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    var paths: [String] = []
    for page in pages {
        let url = directory.appendingPathComponent(page.name)
        try page.contents.write(to: url, atomically: true, encoding: .utf8)
        paths.append(url.path)
    }

    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments + paths
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let output = String(decoding: data, as: UTF8.self).replacing(directory.path + "/", with: "")
    return MandocResult(status: process.terminationStatus, output: output)
}
