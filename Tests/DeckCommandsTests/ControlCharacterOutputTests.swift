import Foundation
import Testing

/// Names and titles from files or the command line cannot forge lines or send escape
/// sequences to a terminal: every message, `check`'s problems and `info`'s text escape them.
@Suite struct ControlCharacterOutputTests {
    static let hostileTitle = "T\u{1B}]0;pwned\u{07}\ndeck: error: forged\u{202E}txt\u{9B}2J"

    @Test func infoEscapesTheTitleAndPath() throws {
        let play = try Playground()
        #expect(try play.run("create", "T.sampledeck", "--title", Self.hostileTitle).status == 0)
        let info = try play.run("info", "T.sampledeck")
        #expect(info.status == 0, "\(info.stderr)")
        let lines = info.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 9, "eight lines and the final newline: \(lines)")
        #expect(info.stdout.contains("title:           T\\x1B]0;pwned\\x07\\ndeck: error: forged\\u{202E}txt\\x9B2J\n"))
        #expect(!info.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E || $0.value == 0x9B })
        // JSON escapes them too (as \u escapes), and stays valid JSON with the title intact.
        let json = try play.run("info", "T.sampledeck", "--json")
        #expect(!json.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E || $0.value == 0x9B })
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["title"] as? String == Self.hostileTitle)
    }

    @Test func errorLinesNameTheFileOnOneLine() throws {
        let play = try Playground()
        let result = try play.run("info", "a\ndeck: error: forged\u{1B}[2J.sampledeck")
        #expect(result.status == 66)
        #expect(result.stderr == "deck: error: a\\ndeck: error: forged\\x1B[2J.sampledeck: no such deck\n")
    }

    @Test func checkPrintsOneLinePerProblem() throws {
        let play = try Playground()
        #expect(try play.run("create", "C.sampledeck").status == 0)
        let media = play.url.appendingPathComponent("C.sampledeck/Media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: false)
        try Data("x".utf8).write(to: media.appendingPathComponent("stray\nC.sampledeck: ok\u{1B}[1A"))
        let check = try play.run("check", "C.sampledeck")
        let lines = check.stdout.split(separator: "\n")
        #expect(lines.count == 1, "one problem, one line: \(lines)")
        #expect(lines.first?.contains("stray\\nC.sampledeck: ok\\x1B[1A") == true)
        #expect(!check.stdout.contains("\u{1B}"))
    }

    @Test func statusMessagesEscapeNames() throws {
        let play = try Playground()
        let created = try play.run("create", "new\nline.sampledeck")
        #expect(created.status == 0)
        #expect(created.stdout == "created new\\nline.sampledeck\n")
    }
}
