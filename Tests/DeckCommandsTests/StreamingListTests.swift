import Foundation
import Testing

/// `deck list` and `deck search` print cards as they are read (issue 16: big decks).
@Suite struct StreamingListTests {
    /// A deck of `count` cards imported from a generated CSV.
    private func bigDeck(_ play: Playground, count: Int) throws {
        var csv = "front,back,tags\n"
        for n in 0..<count { csv += "front \(n),back \(n) with a longer text to fill the pipe,tag\(n % 7) common\n" }
        try play.write("big.csv", csv)
        let imported = try play.run("import", "Big.sampledeck", "big.csv", "--create")
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    /// A reader that stops early (`| head -1`) ends the listing quietly: exit 0 and no error
    /// line, where the process used to die of SIGPIPE (status 141 under pipefail).
    @Test(arguments: ["table", "tsv", "json"])
    func aReaderThatStopsEarlyEndsTheListingQuietly(_ format: String) throws {
        let play = try Playground()
        try bigDeck(play, count: 6000)
        let script = "set -o pipefail; '\(DeckProcess.executable.path)' list Big.sampledeck --format \(format) | head -1; "
            + "'\(DeckProcess.executable.path)' search Big.sampledeck common --format \(format) | head -1"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = play.url
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(errors)")
        #expect(errors.isEmpty, "\(errors)")
        #expect(output.split(separator: "\n").count == 2)
    }

    /// Streamed output is what the whole listing printed before: every card once, in order,
    /// JSON still one array, a table's columns fitted to its first cards.
    @Test func streamedListingsAreComplete() throws {
        let play = try Playground()
        try bigDeck(play, count: 600)
        let tsv = try play.run("list", "Big.sampledeck", "--format", "tsv")
        #expect(tsv.status == 0)
        let lines = tsv.stdout.split(separator: "\n")
        #expect(lines.count == 601 && lines.first == "id\tkind\tfront\tback\ttags")
        #expect(lines[1] == "1\tbasic\tfront 0\tback 0 with a longer text to fill the pipe\tcommon tag0")
        let json = try play.run("list", "Big.sampledeck", "--format", "json", "--where", "tag = tag3", "--sort", "front:desc")
        let cards = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(cards.count == 86)
        #expect(cards.first?["front"] as? String == "front 94" && cards.first?["tags"] as? [String] == ["common", "tag3"])
        let table = try play.run("list", "Big.sampledeck")
        let rows = table.stdout.split(separator: "\n")
        #expect(rows.count == 601)
        // Every row's BACK column starts where the header's does.
        let backColumn = try #require(rows.first?.range(of: "BACK")).lowerBound.utf16Offset(in: rows[0])
        #expect(rows.dropFirst().allSatisfy { $0.dropFirst(backColumn).hasPrefix("back ") })
        let empty = try play.run("list", "Big.sampledeck", "--format", "json", "--where", "tag = none")
        #expect(empty.stdout == "[]\n")
        let search = try play.run("search", "Big.sampledeck", "front 42", "--format", "tsv")
        #expect(search.stdout.contains("\tfront 42\t"))
    }
}
