import Foundation
import Testing

/// `--quiet`, `--json` and errors as a script reads them (issue 16, "output a person and a
/// script can trust").
@Suite struct OutputContractTests {
    private func deck(_ play: Playground) throws {
        #expect(try play.run("create", "D.sampledeck").status == 0)
        #expect(try play.run("add", "D.sampledeck", "--front", "chat", "--back", "cat").status == 0)
    }

    /// list, search and info print nothing with --quiet; the exit status still tells.
    @Test func quietIsHonouredByReaders() throws {
        let play = try Playground()
        try deck(play)
        for arguments in [["list", "D.sampledeck", "--quiet"], ["list", "D.sampledeck", "-q", "--format", "json"],
                          ["search", "D.sampledeck", "chat", "--quiet"], ["info", "D.sampledeck", "--quiet"]] {
            let result = try play.run(arguments)
            #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(arguments): \(result)")
        }
        let none = try play.run("search", "D.sampledeck", "zebra", "--quiet")
        #expect(none.status == 1 && none.stdout.isEmpty)
    }

    /// Under --json (or --format json) an error is one JSON object on standard error.
    @Test func errorsAreJSONUnderJSON() throws {
        let play = try Playground()
        let missing = try play.run("info", "Nope.sampledeck", "--json")
        #expect(missing.status == 66)
        let object = try JSONSerialization.jsonObject(with: Data(missing.stderr.utf8)) as? [String: Any]
        let error = try #require(object?["error"] as? [String: Any], "\(missing.stderr)")
        #expect(error["status"] as? Int == 66 && error["path"] as? String == "Nope.sampledeck")
        #expect((error["message"] as? String)?.contains("no such deck") == true)
        try deck(play)
        let usage = try play.run("list", "D.sampledeck", "--format", "json", "--where", "front ~ x")
        #expect(usage.status == 64)
        let usageObject = try JSONSerialization.jsonObject(with: Data(usage.stderr.utf8)) as? [String: Any]
        #expect((usageObject?["error"] as? [String: Any])?["status"] as? Int == 64, "\(usage.stderr)")
        // Without JSON, the one text line as before.
        #expect(try play.run("info", "Nope.sampledeck").stderr == "deck: error: Nope.sampledeck: no such deck\n")
    }

    /// deck open takes --json: each result is a line of JSON.
    @Test func openTakesJSON() throws {
        let play = try Playground()
        try deck(play)
        let result = try play.run("open", "D.sampledeck", "--json", stdin: "add chien dog\nlist\nbogus\n")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3, "\(result.stdout)")
        for line in lines { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)") }
        let cards = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [[String: Any]]
        #expect(cards?.count == 2)
        #expect(result.stderr.hasPrefix("{\"error\": {\"message\": "), "\(result.stderr)")
    }
}
