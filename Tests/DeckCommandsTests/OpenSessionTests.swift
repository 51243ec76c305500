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
            Step(send: "add chat cat +animals\r", expect: "added 2"),
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
            add "le chat" cat +animals
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

    /// `save` with nothing changed since the last save writes nothing: the manifest keeps its
    /// bytes and time and the store its pages (it copied the whole store through a WAL of its
    /// size, then rewrote the manifest); after a change it saves as before. Opening and closing
    /// the deck (the journal mode set and reset) bumps the store header's change counter, so
    /// the 100-byte header is left out of the store's comparison.
    @Test func aSaveWithoutChangesWritesNothing() throws {
        let play = try Playground()
        try deck(play)
        let store = play.file("D.sampledeck/Deck.sqlite"), manifest = play.file("D.sampledeck/manifest.json")
        func stamp(_ url: URL) throws -> (Data, Date?) {
            (try Data(contentsOf: url), try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date)
        }
        let storeBefore = try Data(contentsOf: store), (manifestBefore, manifestTime) = try stamp(manifest)
        Thread.sleep(forTimeInterval: 0.01)
        let idle = try play.run("open", "D.sampledeck", stdin: "list\nsave\nsave\n")
        #expect(idle.status == 0 && idle.stdout.contains("nothing to save"), "\(idle)")
        let storeAfter = try Data(contentsOf: store), (manifestAfter, manifestTimeAfter) = try stamp(manifest)
        #expect(storeAfter.count == storeBefore.count && storeAfter.dropFirst(100) == storeBefore.dropFirst(100), "the store's pages are unchanged")
        #expect(manifestAfter == manifestBefore && manifestTimeAfter == manifestTime, "the manifest is not rewritten")
        let changed = try play.run("open", "D.sampledeck", stdin: "add deux two\nsave\nsave\n")
        #expect(changed.status == 0 && changed.stdout.contains("added 2\nsaved D.sampledeck\nnothing to save"), "\(changed)")
        #expect(try cards(play).count == 2)
    }

    /// Suspending, unsuspending and flagging in a session are steps undo and redo take back.
    @Test func cardStatesAreUndoableSteps() throws {
        let play = try Playground()
        try deck(play)
        #expect(try play.run("add", "D.sampledeck", "--front", "deux", "--back", "two").status == 0)
        let script = """
            suspend 1 2
            flag 3 2
            undo
            flag 9 1
            flag 5 7
            unsuspend 2
            undo
            redo
            """
        let result = try play.run("open", "D.sampledeck", stdin: script + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("suspend: 2 of 2 cards changed\nflag 3: 1 of 1 card changed\nundid flag 3 2\n"), "\(result.stdout)")
        #expect(result.stdout.contains("undid unsuspend 2\nredid unsuspend 2\n"), "\(result.stdout)")
        #expect(result.stderr.contains("a flag is 0 (none) to 7, not 9"), "\(result.stderr)")
        #expect(result.stderr.contains("no card with id 7; nothing changed"), "\(result.stderr)")
        let suspended = try play.run("list", "D.sampledeck", "--cards", "--where", "is = suspended", "--format", "tsv")
        #expect(suspended.stdout.split(separator: "\n").count == 2, "card 1 stays suspended, 2 was unsuspended: \(suspended.stdout)")
        #expect(suspended.stdout.contains("\tun\t"), "\(suspended.stdout)")
        let flagged = try play.run("list", "D.sampledeck", "--cards", "--where", "flag != 0", "--format", "tsv")
        #expect(flagged.stdout.split(separator: "\n").count == 1, "the flag was undone: \(flagged.stdout)")
    }

    /// 20,000 tags through a session that autosaves after every change (issue 17: tag links
    /// are linear on every path): added, half removed and one re-added by edit, then listed,
    /// searched and checked. An edit's +tag and -tag apply in order.
    @Test func aSessionAutosavesTwentyThousandTags() throws {
        let play = try Playground()
        try deck(play)
        let names = (0..<20_000).map { "t\($0)" }
        let removed = names.suffix(10_000).map { "-" + $0 }.joined(separator: " ")
        let script = """
            add many tags \(names.map { "+" + $0 }.joined(separator: " "))
            edit 2 \(removed) +t19999 +fresh -fresh +again -t0 +t0
            """
        let result = try play.run("open", "D.sampledeck", "--autosave", "0", stdin: script + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("added 2\nedited 2\n"), "\(result.stdout.prefix(500))")
        let saved = try cards(play).first { $0["id"] as? Int == 2 }
        let tags = try #require(saved?["tags"] as? [String])
        #expect(Set(tags) == Set(names.prefix(10_000) + ["t19999", "again"]))
        #expect(tags.count == 10_002)
        #expect(try play.run("search", "D.sampledeck", "t19999").stdout.contains("many"))
        #expect(try play.run("search", "D.sampledeck", "t10000").status == 1, "a removed tag is gone from the index")
        let check = try play.run("check", "D.sampledeck")
        #expect(check.status == 0, "\(check.stdout)")
    }

    @Test func missingDeckAndUsage() throws {
        let play = try Playground()
        let missing = try play.run("open", "Nope.sampledeck")
        #expect(missing.status == 66)
        #expect(missing.stderr == "deck: error: Nope.sampledeck: no such deck\n")
        let usage = try play.run("open", "Nope.sampledeck", "--autosave", "-3")
        #expect(usage.status == 64)
    }

    // MARK: - Typing, mistakes, signals, history, completion (issue 16)

    /// Accented and CJK text typed at a terminal arrives whole, whatever locale the
    /// environment names (the line editor decodes keys as UTF-8).
    @Test(arguments: [[:], ["LC_ALL": "C"], ["LC_ALL": "POSIX", "LANG": ""]])
    func typedUTF8ArrivesIntact(_ locale: [String: String]) throws {
        let play = try Playground()
        try deck(play)
        let result = try PseudoTerminal.run(["open", "D.sampledeck", "--no-autosave"], in: play.url, steps: [
            Step(expect: "D.sampledeck> "),
            Step(send: "add \"árbol grande\" \"big tree\"\r", expect: "added 2"),
            Step(send: "add 大きな木 \"ça va\" +日本語\r", expect: "added 3"),
            Step(send: "save\r", expect: "saved"),
            Step(send: "quit\r"),
        ], environment: locale)
        #expect(result.timedOut == nil, "\(result.transcript)")
        #expect(result.status == 0, "\(result.transcript)")
        let saved = try cards(play)
        #expect(saved.first { $0["id"] as? Int == 2 }?["front"] as? String == "árbol grande", "\(result.transcript)")
        #expect(saved.first { $0["id"] as? Int == 3 }?["front"] as? String == "大きな木")
        #expect(saved.first { $0["id"] as? Int == 3 }?["back"] as? String == "ça va")
        #expect(saved.first { $0["id"] as? Int == 3 }?["tags"] as? [String] == ["日本語"])
    }

    /// A filter that does not parse, or a failing command, is reported and the session
    /// goes on: the cards added before and after it are saved.
    @Test func aMistakeNeverEndsTheSession() throws {
        let play = try Playground()
        try deck(play)
        let script = """
            add chat cat
            list (
            list front contains
            rm 99
            edit 99 front=x
            add chien dog
            """
        let result = try play.run("open", "D.sampledeck", stdin: script + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("added 2\n") && result.stdout.contains("added 3\n"), "\(result.stdout)")
        let errors = result.stderr.split(separator: "\n")
        #expect(errors.count == 4, "\(result.stderr)")
        #expect(errors.first?.hasPrefix("error: list: ") == true, "\(result.stderr)")
        #expect(try cards(play).count == 3)
    }

    /// `add la luna the moon` is not read as front la, back luna and two tags: it is
    /// refused with a hint about quoting; quoted texts and +tags work.
    @Test func unquotedBlanksAreRefusedWithAHint() throws {
        let play = try Playground()
        try deck(play)
        let result = try play.run("open", "D.sampledeck", stdin: "add la luna the moon\nadd \"la luna\" 'the moon' +spanish\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("'the' is not a tag"), "\(result.stderr)")
        #expect(result.stderr.contains("add \"la luna\" \"the moon\""), "\(result.stderr)")
        let saved = try cards(play)
        #expect(saved.count == 2)
        #expect(saved.first { $0["id"] as? Int == 2 }?["back"] as? String == "the moon")
        #expect(saved.first { $0["id"] as? Int == 2 }?["tags"] as? [String] == ["spanish"])
        let help = try play.run("open", "--help")
        #expect(help.stdout.contains("+tag"), "the quoting rules are in deck open --help")
        #expect(help.stdout.contains("la luna"))
    }

    /// SIGTERM and SIGHUP on a session reading a pipe save its work, as on a terminal.
    @Test(arguments: [SIGTERM, SIGHUP])
    func aSignalOnAPipeSavesTheWork(_ signal: Int32) throws {
        let play = try Playground()
        try deck(play)
        let process = Process()
        process.executableURL = DeckProcess.executable
        process.arguments = ["open", "D.sampledeck", "--no-autosave"]
        process.currentDirectoryURL = play.url
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data("add cinq five\n".utf8))
        // Wait (with a generous limit) until the session has added the card.
        let seen = DispatchSemaphore(value: 0)
        let reader = Thread {
            var text = ""
            while !text.contains("added 2") {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            seen.signal()
        }
        reader.start()
        #expect(seen.wait(timeout: .now() + 60) == .success, "the session added the card")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0,
                "\(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
        try input.fileHandleForWriting.close()
        #expect(try cards(play).count == 2, "the unsaved card was saved on signal \(signal)")
    }

    /// Lines typed in one session are recalled (Up arrow) in the next; an empty
    /// DECK_HISTORY_FILE keeps none.
    @Test func historyIsKeptBetweenSessions() throws {
        let play = try Playground()
        try deck(play)
        let first = try PseudoTerminal.run(["open", "D.sampledeck", "--no-autosave"], in: play.url, steps: [
            Step(send: "add deux two\r", expect: "added 2"),
            Step(send: "save\r", expect: "saved"),
            Step(send: "quit\r"),
        ])
        #expect(first.timedOut == nil && first.status == 0, "\(first.transcript)")
        let history = play.url.appendingPathComponent("state/deck/history")
        #expect(FileManager.default.fileExists(atPath: history.path))
        let second = try PseudoTerminal.run(["open", "D.sampledeck", "--no-autosave"], in: play.url, steps: [
            Step(expect: "D.sampledeck> "),
            // Up three times: past "quit" and "save" to the add of the first session.
            Step(send: "\u{1B}[A\u{1B}[A\u{1B}[A", expect: "add deux two"),
            Step(send: "\u{7F}\u{7F}\u{7F}deux\r", expect: "added 3"),
            Step(send: "save\r", expect: "saved"),
            Step(send: "quit\r"),
        ])
        #expect(second.timedOut == nil && second.status == 0, "\(second.transcript)")
        #expect(try cards(play).compactMap { $0["back"] as? String }.sorted() == ["deux", "one", "two"])

        let none = try Playground()
        try deck(none)
        let off = try PseudoTerminal.run(["open", "D.sampledeck", "--no-autosave"], in: none.url, steps: [
            Step(send: "add trois three\r", expect: "added 2"),
            Step(send: "quit\r", expect: "[c]ancel"),
            Step(send: "n\r", expect: "discarded"),
        ], environment: ["DECK_HISTORY_FILE": ""])
        #expect(off.timedOut == nil && off.status == 0, "\(off.transcript)")
        #expect(!FileManager.default.fileExists(atPath: none.url.appendingPathComponent("state").path), "no history written")
    }

    /// Tab completes command names and tags.
    @Test func tabCompletesCommandsAndTags() throws {
        let play = try Playground()
        try deck(play)
        let result = try PseudoTerminal.run(["open", "D.sampledeck", "--no-autosave"], in: play.url, steps: [
            Step(expect: "D.sampledeck> "),
            Step(send: "sea\t", expect: "rch "),
            Step(send: "un\r", expect: "one"),
            Step(send: "edit 1 +num\t", expect: "bers "),
            Step(send: " +x\r", expect: "edited 1"),
            Step(send: "save\r", expect: "saved"),
            Step(send: "quit\r"),
        ])
        #expect(result.timedOut == nil, "\(result.transcript)")
        #expect(result.status == 0)
        #expect(try cards(play).first?["tags"] as? [String] == ["numbers", "x"], "\(result.transcript)")
    }
}
