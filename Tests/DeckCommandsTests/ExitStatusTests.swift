import Foundation
import Testing

/// Every exit status of the tool, on the built binary, with its one `deck: error:` line.
@Suite struct ExitStatusTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var status: Int32
        /// The start of standard error (empty: nothing printed there).
        var stderrPrefix: String
        var testDescription: String { "\(status): \(name)" }
    }

    static let cases: [Case] = [
        Case(name: "success", arguments: ["list", "French.sampledeck", "--limit", "1"], status: 0, stderrPrefix: ""),
        Case(name: "card not found", arguments: ["rm", "French.sampledeck", "999"], status: 1,
             stderrPrefix: "deck: error: French.sampledeck: no card with id 999; nothing removed"),
        Case(name: "search without matches", arguments: ["search", "French.sampledeck", "zzzz"], status: 1, stderrPrefix: ""),
        Case(name: "check finds errors", arguments: ["check", "Damaged.sampledeck"], status: 65,
             stderrPrefix: "deck: error: Damaged.sampledeck: "),
        Case(name: "unknown option", arguments: ["list", "French.sampledeck", "--colour"], status: 64,
             stderrPrefix: "deck: error: "),
        Case(name: "misspelled command", arguments: ["serach", "French.sampledeck", "x"], status: 64,
             stderrPrefix: "deck: error: "),
        Case(name: "bad filter", arguments: ["list", "French.sampledeck", "--where", "front ~ x"], status: 64,
             stderrPrefix: "deck: error: --where"),
        Case(name: "not a deck", arguments: ["info", "notes.txt"], status: 65, stderrPrefix: "deck: error: notes.txt: "),
        Case(name: "newer format", arguments: ["list", "Future.sampledeck"], status: 65, stderrPrefix: "deck: error: Future.sampledeck: "),
        Case(name: "missing deck", arguments: ["info", "Nope.sampledeck"], status: 66,
             stderrPrefix: "deck: error: Nope.sampledeck: no such deck"),
        Case(name: "missing import file", arguments: ["import", "French.sampledeck", "nope.csv"], status: 66,
             stderrPrefix: "deck: error: nope.csv: no such file"),
        Case(name: "deck exists", arguments: ["create", "French.sampledeck"], status: 73,
             stderrPrefix: "deck: error: French.sampledeck: already exists"),
        Case(name: "archive exists", arguments: ["archive", "French.sampledeck", "-o", "notes.txt"], status: 73,
             stderrPrefix: "deck: error: notes.txt: already exists"),
        Case(name: "folder of a new deck missing", arguments: ["create", "missing/dir/X.sampledeck"], status: 66,
             stderrPrefix: "deck: error: missing/dir/X.sampledeck: "),
        Case(name: "folder to unarchive into missing", arguments: ["unarchive", "French.zip", "-C", "missing"], status: 66,
             stderrPrefix: "deck: error: missing: no such directory"),
    ]

    /// A playground with the French deck, a plain file, a damaged deck and a deck from the future.
    private func playground() throws -> Playground {
        let play = try Playground()
        try play.frenchDeck()
        try play.write("notes.txt", "just text\n")
        #expect(try play.run("create", "Damaged.sampledeck").status == 0)
        let store = play.url.appendingPathComponent("Damaged.sampledeck/Deck.sqlite")
        var bytes = try Data(contentsOf: store)
        bytes.replaceSubrange(bytes.count - 2048..<bytes.count, with: Data(repeating: 0xA5, count: 2048))
        // The start of page 2 (the page size is the big-endian number at offset 16 of the header).
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        bytes.replaceSubrange(pageSize..<pageSize + 2048, with: Data(repeating: 0x5A, count: 2048))
        try bytes.write(to: store)
        #expect(try play.run("archive", "French.sampledeck", "-o", "French.zip").status == 0)
        #expect(try play.run("create", "Future.sampledeck").status == 0)
        let manifest = play.url.appendingPathComponent("Future.sampledeck/manifest.json")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        try text.replacingOccurrences(of: "\"formatVersion\" : 2", with: "\"formatVersion\" : 99")
            .replacingOccurrences(of: "\"formatVersion\": 2", with: "\"formatVersion\": 99")
            .write(to: manifest, atomically: true, encoding: .utf8)
        return play
    }

    @Test(arguments: cases)
    func exitStatus(_ test: Case) throws {
        let play = try playground()
        let result = try play.run(test.arguments)
        #expect(result.status == test.status, "\(result.stderr)")
        if test.stderrPrefix.isEmpty {
            #expect(result.stderr.isEmpty, "\(result.stderr)")
        } else {
            #expect(result.stderr.hasPrefix(test.stderrPrefix), "\(result.stderr)")
            #expect(result.stderr.hasSuffix("\n"))
            if test.status != 64 { #expect(result.stderr.split(separator: "\n").count == 1, "one error line") }
        }
    }

    /// 74: the deck is in use: another process has it open for writing.
    @Test func aDeckInUseExits74() throws {
        let play = try playground()
        let holder = Process()
        holder.executableURL = DeckProcess.executable
        holder.arguments = ["open", "French.sampledeck", "--no-autosave"]
        holder.currentDirectoryURL = play.url
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        // The session is ready once it answers a command.
        input.fileHandleForWriting.write(Data("help\n".utf8))
        _ = output.fileHandleForReading.availableData
        // --no-wait: refused at once (a writer waits 10 seconds by default).
        for arguments in [["add", "French.sampledeck", "--front", "x", "--back", "y"], ["rm", "French.sampledeck", "1"],
                          ["open", "French.sampledeck"], ["edit", "French.sampledeck", "1", "--back", "z"]] {
            let result = try play.run(arguments + ["--no-wait"])
            #expect(result.status == 74, "\(arguments): \(result.stderr)")
            #expect(result.stderr == "deck: error: French.sampledeck: deck is open for writing by another process\n")
        }
        let reader = try play.run("list", "French.sampledeck", "--limit", "1", "--format", "tsv")
        #expect(reader.status == 0, "readers are not blocked")
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        #expect(holder.terminationStatus == 0)
        #expect(try play.run("add", "French.sampledeck", "--front", "x", "--back", "y").status == 0, "the lock went with the session")
    }

    /// 74 when standard output can't be written (`/dev/full`), with exactly one error line,
    /// whether the command meets the failure itself (export, archive) or the final flush does.
    @Test(arguments: [["list", "French.sampledeck"], ["info", "French.sampledeck", "--json"],
                      ["list", "French.sampledeck", "--format", "json"],
                      ["export", "French.sampledeck", "-o", "-", "--format", "json"],
                      ["archive", "French.sampledeck", "-o", "-"]])
    func aFullStandardOutputExits74WithOneLine(_ arguments: [String]) throws {
        let play = try playground()
        let process = Process()
        process.executableURL = DeckProcess.executable
        process.arguments = arguments
        process.currentDirectoryURL = play.url
        let full = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        defer { try? full.close() }
        let errors = Pipe()
        process.standardOutput = full
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 74, "\(arguments): \(text)")
        // Under --json (or a reader's --format json) the one line is a JSON object; export's
        // --format names the file it writes, so its errors stay text.
        let asksForJSON = arguments.contains("--json") || (arguments.first != "export" && arguments.contains("json"))
        #expect(text.hasPrefix(asksForJSON ? "{\"error\": {\"message\": \"" : "deck: error: "), "\(text)")
        #expect(text.split(separator: "\n").count == 1, "one error line: \(text)")
    }

    @Test func theManualDocumentsEveryStatus() throws {
        let page = try String(contentsOf: DeckProcess.packageRoot.appendingPathComponent("man/deck.1"), encoding: .utf8)
        let section = page.components(separatedBy: ".Sh EXIT STATUS").last?.components(separatedBy: ".Sh ").first ?? ""
        for status in [0, 1, 64, 65, 66, 73, 74] {
            #expect(section.contains(".It \(status)"), "EXIT STATUS lists \(status)")
        }
        #expect(section.contains("in use"))
    }
}

extension Playground {
    func run(_ arguments: [String]) throws -> DeckProcess.Result {
        try DeckProcess.run(arguments, in: url)
    }
}
