import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// One row of `Fixtures/malformed/cases.tsv`: an input, how it is put in place, the `deck`
/// command that reads it, and the exit status and message fragment it must give.
///
/// Columns: `name`, `input` (path under Fixtures/malformed, or `-`), `setup`, `command`,
/// `status`, `message`. Setups (comma-separated, applied in order):
/// - `file`: the input is copied into the working directory; `$IN` is its name.
/// - `deck`: `D.sampledeck` is a copy of a small valid deck; `$IN` is `D.sampledeck`.
/// - `manifest` / `store`: `deck`, with `manifest.json` / `Deck.sqlite` replaced by the input.
/// - `store-sql`: `deck`, with the input's SQL run on its store by `sqlite3`.
/// - `sql-store`: `deck`, with its store replaced by a new database built from the input's SQL.
/// - `text`: `$TEXT` is the input's contents (for `--where`).
/// - `rm=<rel>`, `mkdir=<rel>`: remove / create a directory at `D.sampledeck/<rel>`.
/// - `mode=<octal>:<rel>`: chmod a path relative to the working directory.
/// - `truncate=<bytes>:<rel>`: cut a file short; `put=<rel>`: copy the input to `D.sampledeck/<rel>`.
/// - `requires=<format>`: the case is for an import format; until `deck import --format` lists it,
///   only "no crash, nothing written outside the target" is checked.
/// - `nobody`: run `deck` as uid/gid 65534 (so permissions bite when the tests run as root).
/// In `command`, `$DECK` is `T.sampledeck` (a valid deck to write into) and `$OUT` an empty directory.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    var name: String
    var input: String
    var setup: [String]
    var command: [String]
    var status: Int32
    var message: String

    var testDescription: String { name }

    static let corpus = DeckBinary.packageRoot.appendingPathComponent("Fixtures/malformed")

    /// Every case of `cases.tsv` (comment lines start with `#`).
    static let all: [MalformedCase] = {
        guard let text = try? String(contentsOf: corpus.appendingPathComponent("cases.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> MalformedCase? in
            if line.hasPrefix("#") || line.trimmingCharacters(in: .whitespaces).isEmpty { return nil }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 6, let status = Int32(fields[4]) else {
                return MalformedCase(name: "unparsable line: \(line)", input: "-", setup: [], command: [], status: -1, message: "")
            }
            return MalformedCase(name: fields[0], input: fields[1], setup: fields[2].split(separator: ",").map(String.init),
                                 command: fields[3].split(separator: " ").map(String.init), status: status, message: fields[5])
        }
    }()
}

/// The formats `deck import --format` accepts, read from its help.
enum ImportFormats {
    static let supported: String = (try? DeckBinary.run(["import", "--help"], in: FileManager.default.temporaryDirectory).stdout)
        .map { $0.components(separatedBy: "--format").dropFirst().joined() } ?? ""
}

/// A small valid deck built once per test process and copied for each case.
enum TemplateDeck {
    static let url: URL? = {
        guard let scratch = try? FileManager.default.url(for: .itemReplacementDirectory, in: .userDomainMask,
                                                          appropriateFor: FileManager.default.temporaryDirectory, create: true)
        else { return nil }
        let steps: [[String]] = [
            ["create", "T.sampledeck", "--title", "Template"],
            ["add", "T.sampledeck", "--front", "chat", "--back", "cat", "--tag", "animals"],
            ["add", "T.sampledeck", "--front", "chien", "--back", "dog", "--tag", "animals"],
            ["add", "T.sampledeck", "--front", "être", "--back", "to be", "--kind", "reversible"],
        ]
        for step in steps {
            guard let run = try? DeckBinary.run(step, in: scratch), run.status == 0 else { return nil }
        }
        try? FileManager.default.removeItem(at: scratch.appendingPathComponent("T.sampledeck/.lock"))
        return scratch.appendingPathComponent("T.sampledeck")
    }()
}

/// A working tree for one case: `root/a/b/work` is the working directory, so an escape
/// through `..` still lands inside `root`, where it is seen.
struct CaseWorkspace {
    let root: Scratch
    let work: URL
    var inputName = ""
    var text = ""
    /// True when the case needs an import format the built tool lacks: only "no crash, nothing
    /// written outside the target" is checked then.
    var relaxed = false

    init() throws {
        root = try Scratch("malformed")
        work = root.url.appendingPathComponent("a/b/work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: work.appendingPathComponent("out"), withIntermediateDirectories: true)
        // Every level readable by an unprivileged user (for the `nobody` cases).
        var url = work
        while url.path.count >= root.url.path.count {
            _ = chmod(url.path, 0o777)
            url.deleteLastPathComponent()
        }
        _ = chmod(work.appendingPathComponent("out").path, 0o777)
    }

    /// Applies the case's setup; returns the arguments with placeholders filled in and whether to drop privileges.
    mutating func prepare(_ testCase: MalformedCase) throws -> (arguments: [String], asNobody: Bool) {
        guard let template = TemplateDeck.url else { throw StateError("could not build the template deck") }
        let fm = FileManager.default
        try fm.copyItem(at: template, to: work.appendingPathComponent("T.sampledeck"))
        let input = testCase.input == "-" ? nil : MalformedCase.corpus.appendingPathComponent(testCase.input)
        let deck = work.appendingPathComponent("D.sampledeck")
        var asNobody = false
        for step in testCase.setup {
            let parts = step.split(separator: "=", maxSplits: 1).map(String.init)
            let argument = parts.count > 1 ? parts[1] : ""
            switch parts[0] {
            case "file":
                guard let input else { throw StateError("file setup without input") }
                inputName = input.lastPathComponent
                try fm.copyItem(at: input, to: work.appendingPathComponent(inputName))
            case "deck", "manifest", "store", "store-sql", "sql-store":
                try fm.copyItem(at: template, to: deck)
                inputName = "D.sampledeck"
                guard parts[0] != "deck", let input else { break }
                switch parts[0] {
                case "manifest":
                    try fm.removeItem(at: deck.appendingPathComponent("manifest.json"))
                    try fm.copyItem(at: input, to: deck.appendingPathComponent("manifest.json"))
                case "store":
                    try fm.removeItem(at: deck.appendingPathComponent("Deck.sqlite"))
                    try fm.copyItem(at: input, to: deck.appendingPathComponent("Deck.sqlite"))
                case "store-sql":
                    try sqlite(deck.appendingPathComponent("Deck.sqlite"), script: input)
                default:
                    try fm.removeItem(at: deck.appendingPathComponent("Deck.sqlite"))
                    try sqlite(deck.appendingPathComponent("Deck.sqlite"), script: input)
                }
            case "text":
                guard let input else { throw StateError("text setup without input") }
                text = try String(contentsOf: input, encoding: .utf8)
            case "rm":
                try fm.removeItem(at: deck.appendingPathComponent(argument))
            case "mkdir":
                try fm.createDirectory(at: deck.appendingPathComponent(argument), withIntermediateDirectories: true)
            case "mode":
                let modeAndPath = argument.split(separator: ":", maxSplits: 1).map(String.init)
                guard modeAndPath.count == 2, let mode = mode_t(modeAndPath[0], radix: 8) else { throw StateError("bad mode setup \(step)") }
                _ = chmod(work.appendingPathComponent(modeAndPath[1]).path, mode)
            case "nobody":
                asNobody = getuid() == 0
            case "truncate":
                let sizeAndPath = argument.split(separator: ":", maxSplits: 1).map(String.init)
                guard sizeAndPath.count == 2, let size = off_t(sizeAndPath[0]) else { throw StateError("bad truncate setup \(step)") }
                _ = truncate(work.appendingPathComponent(sizeAndPath[1]).path, size)
            case "put":
                guard let input else { throw StateError("put setup without input") }
                try fm.copyItem(at: input, to: deck.appendingPathComponent(argument))
            case "requires":
                if !ImportFormats.supported.contains(argument) { relaxed = true }
            default:
                throw StateError("unknown setup \(step)")
            }
        }
        let arguments = testCase.command.map { word -> String in
            switch word {
            case "$IN": inputName
            case "$DECK": "T.sampledeck"
            case "$OUT": "out"
            case "$TEXT": text
            default: word
            }
        }
        return (arguments, asNobody)
    }

    private func sqlite(_ database: URL, script: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [database.path, ".read " + script.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw StateError("sqlite3 \(script.lastPathComponent) failed") }
    }

    /// Every file and directory under the root with its size and contents' hash (`.lock` files skipped).
    func snapshot() -> [String: String] {
        var files: [String: String] = [:]
        for name in FileManager.default.subpaths(atPath: root.url.path) ?? [] where !name.hasSuffix("/.lock") && name != ".lock" {
            let url = root.url.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { files[name] = "dangling"; continue }
            if isDirectory.boolValue { files[name] = "dir"; continue }
            let data = (try? Data(contentsOf: url)) ?? Data()
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            files[name] = "\(data.count):\(hash)"
        }
        return files
    }
}
