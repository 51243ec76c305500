import Foundation
import Testing

/// `deck open`: the interactive session, through a pseudo-terminal and from a pipe.
@Suite struct OpenSessionTests {
    typealias Step = PseudoTerminal.Step

    private func cards(_ play: Playground, _ deck: String = "D.sampledeck") throws -> [[String: Any]] {
        let list = try play.run("list", deck, "--format", "json")
        #expect(list.status == 0, "\(list.stderr)")
        return try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]] ?? []
    }

    private func deck(_ play: Playground) throws {
        #expect(try play.run("create", "D.sampledeck").status == 0)
        #expect(try play.run("add", "D.sampledeck", "--front", "un", "--back", "one", "--tag", "numbers").status == 0)
    }

    @Test func editUndoRedoAndSaveOnQuit() throws {
        let play = try Playground()
        try deck(play)
        let result = try PseudoTerminal.run(["open", "D.sampledeck", "--no-autosave"], in: play.url, steps: [
            Step(expect: "D.sampledeck> "),
            Step(send: "add chat cat animals\r", expect: "added 2"),
            Step(expect: "D.sampledeck*> "),
            Step(send: "edit 1 back='the one' +digits\r", expect: "edited 1"),
            Step(send: "list\r", expect: "the one"),
            Step(send: "undo\r", expect: "undid edit 1"),
            Step(send: "search one\r", expect: "one"),
            Step(send: "undo\r", expect: "undid add 2"),
            Step(send: "redo\r", expect: "redid add 2"),
            Step(send: "lsit\r", expect: "did you mean 'list'?"),
            Step(send: "quit\r", expect: "[y]es, [n]o, [c]ancel"),
            Step(send: "y\r", expect: "saved D.sampledeck"),
        ])
        #expect(result.timedOut == nil, "\(result.transcript)")
        #expect(result.status == 0, "\(result.transcript)")
        let saved = try cards(play)
        #expect(saved.count == 2)
        #expect(saved.first { $0["id"] as? Int == 1 }?["back"] as? String == "one", "the edit was undone")
        #expect(saved.first { $0["id"] as? Int == 2 }?["front"] as? String == "chat", "the redone card keeps its id")
        #expect(try play.run("check", "D.sampledeck").status == 0)
    }

    @Test func quitCanDiscardOrCancel() throws {
        let play = try Playground()
        try deck(play)
        let result = try PseudoTerminal.run(["open", "D.sampledeck", "--no-autosave"], in: play.url, steps: [
            Step(send: "rm 1\r", expect: "removed 1 card"),
            Step(send: "quit\r", expect: "[c]ancel"),
            Step(send: "c\r", expect: "D.sampledeck*> "),
            Step(send: "list\r", expect: "no cards"),
            Step(send: "quit\r", expect: "[c]ancel"),
            Step(send: "n\r", expect: "changes discarded"),
        ])
        #expect(result.timedOut == nil, "\(result.transcript)")
        #expect(result.status == 0)
        #expect(try cards(play).count == 1, "discarded changes never reach the deck")
    }

    @Test func lineEditingRecallsHistory() throws {
        let play = try Playground()
        try deck(play)
        let result = try PseudoTerminal.run(["open", "D.sampledeck", "--no-autosave"], in: play.url, steps: [
            Step(send: "add deux two\r", expect: "added 2"),
            // Up arrow recalls the line, two backspaces and an "o" turn "two" into "to".
            Step(send: "\u{1B}[A", expect: "add deux two"),
            Step(send: "\u{7F}\u{7F}o\r", expect: "added 3"),
            // Ctrl-C drops the line being typed; the session goes on.
            Step(send: "rm 1 2 3", expect: "rm 1 2 3"),
            Step(send: "\u{03}", expect: "^C"),
            Step(send: "save\r", expect: "saved"),
            Step(send: "quit\r"),
        ])
        #expect(result.timedOut == nil, "\(result.transcript)")
        #expect(result.status == 0)
        let backs = try cards(play).compactMap { $0["back"] as? String }.sorted()
        #expect(backs == ["one", "to", "two"], "\(result.transcript)")
        #expect(!result.transcript.contains("removed"), "the interrupted line never ran")
    }

    @Test(arguments: ["TERM", "HUP"])
    func aSignalEndsTheSessionKeepingItsWork(_ signal: String) throws {
        let play = try Playground()
        try deck(play)
        let temporary = play.url.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
        let result = try PseudoTerminal.run(["open", "D.sampledeck", "--no-autosave"], in: play.url, steps: [
            Step(send: "add quatre four\r", expect: "added 2"),
            Step(expect: "D.sampledeck*> "),
            Step(expect: "saved D.sampledeck", signal: signal),
        ], environment: ["TMPDIR": temporary.path])
        #expect(result.timedOut == nil, "\(result.transcript)")
        #expect(result.status == 0, "\(result.transcript)")
        #expect(try cards(play).count == 2, "the unsaved card was saved on \(signal)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty, "the working copy is removed")
    }

    @Test func autosaveWhileIdleAndLockHeld() throws {
        let play = try Playground()
        try deck(play)
        let result = try PseudoTerminal.run(["open", "D.sampledeck", "--autosave", "1"], in: play.url, steps: [
            Step(send: "add trois three\r", expect: "added 2"),
            Step(expect: "autosaved D.sampledeck", timeout: 15,
                 sideCommand: ["list", "D.sampledeck", "--format", "tsv"]),
            Step(sideCommand: ["add", "D.sampledeck", "--front", "x", "--back", "y"]),
            Step(send: "quit\r"),
        ])
        #expect(result.timedOut == nil, "\(result.transcript)")
        #expect(result.status == 0)
        #expect(result.side.count == 2)
        #expect(result.side.first?.stdout.contains("trois") == true, "a reader sees the autosaved card while the session runs")
        #expect(result.side.last?.status == 74, "a second writer is refused while the session holds the deck")
        #expect(result.side.last?.stderr.hasPrefix("deck: error: D.sampledeck: ") == true)
    }

    @Test func scriptedSessionFromAPipe() throws {
        let play = try Playground()
        try deck(play)
        let script = """
            add "le chat" cat animals
            add chien dog
            rm 1
            undo
            edit 2 front=chaton -animals
            bogus
            list
            """
        let result = try play.run("open", "D.sampledeck", stdin: script + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("> "), "no prompt when input is not a terminal")
        #expect(result.stdout.contains("added 2\nadded 3\nremoved 1 card\nundid rm 1\nedited 2\n"))
        #expect(result.stderr == "error: unknown command 'bogus'; type 'help' for the commands\n")
        let saved = try cards(play)
        #expect(saved.count == 3, "changes are saved at the end of piped input")
        #expect(saved.first { $0["id"] as? Int == 2 }?["front"] as? String == "chaton")
        #expect(saved.first { $0["id"] as? Int == 2 }?["tags"] as? [String] == [])
    }

    @Test func missingDeckAndUsage() throws {
        let play = try Playground()
        let missing = try play.run("open", "Nope.sampledeck")
        #expect(missing.status == 66)
        #expect(missing.stderr == "deck: error: Nope.sampledeck: no such deck\n")
        let usage = try play.run("open", "Nope.sampledeck", "--autosave", "-3")
        #expect(usage.status == 64)
    }
}
