import ArgumentParsing
import Foundation
import Testing

/// Card tables line up whatever the text: wide CJK, emoji, combining accents; and text from
/// a card never drives the terminal (issue 16).
@Suite struct TableWidthTests {
    @Test func columnsLineUpWithWideAndCombiningText() throws {
        let play = try Playground()
        #expect(try play.run("create", "W.sampledeck").status == 0)
        for (front, back) in [("chat", "cat"), ("日本語の単語", "Japanese word"), ("👨‍👩‍👧 famille", "family"),
                              ("e\u{301}le\u{300}ve", "pupil"), ("한국어", "Korean")] {
            #expect(try play.run("add", "W.sampledeck", "--front", front, "--back", back).status == 0)
        }
        let table = try play.run("list", "W.sampledeck")
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        // The BACK column starts at the same terminal cell on every line.
        func backStart(_ line: String, _ back: String) -> Int? {
            guard let range = line.range(of: back, options: .backwards) else { return nil }
            return line[..<range.lowerBound].terminalCellWidth
        }
        let header = try #require(backStart(lines[0], "BACK"))
        for (line, back) in zip(lines.dropFirst(), ["cat", "Japanese word", "family", "pupil", "Korean"]) {
            #expect(backStart(line, back) == header, "\(line)")
        }
    }

    @Test func longWideTextIsCutToTheCellsAvailable() throws {
        let play = try Playground()
        #expect(try play.run("create", "W.sampledeck").status == 0)
        let long = String(repeating: "語", count: 60)
        #expect(try play.run("add", "W.sampledeck", "--front", long, "--back", "x").status == 0)
        let table = try DeckProcess.run(["list", "W.sampledeck"], in: play.url, columns: 60)
        for line in table.stdout.split(separator: "\n") {
            #expect(line.terminalCellWidth <= 60, "\(line)")
        }
        #expect(table.stdout.contains("…"))
    }

    @Test func escapeSequencesInCardsAreShownEscaped() throws {
        let play = try Playground()
        #expect(try play.run("create", "W.sampledeck").status == 0)
        #expect(try play.run("add", "W.sampledeck", "--front", "\u{1B}[2J\u{1B}]0;pwned\u{07}red", "--back", "b\u{9B}31m").status == 0)
        let table = try play.run("list", "W.sampledeck")
        #expect(!table.stdout.contains("\u{1B}") && !table.stdout.contains("\u{9B}") && !table.stdout.contains("\u{07}"))
        #expect(table.stdout.contains("\\x1B[2J"), "\(table.stdout)")
        let search = try play.run("search", "W.sampledeck", "red")
        #expect(!search.stdout.contains("\u{1B}"))
    }
}
