import Foundation
import Testing

/// Every command's --json output validated against Schemas/output.schema.json with Python's
/// `jsonschema` (one python3 process for all of them), and instances that break the convention
/// refused by it, so the schema can't be vacuous.
@Suite struct OutputSchemaTests {
    static let schema = DeckProcess.packageRoot.appendingPathComponent("Schemas/output.schema.json")

    @Test func everyCommandsJSONFitsTheSchema() async throws {
        let play = try Playground()
        let deck = play.path("French.sampledeck")
        let fixture = DeckProcess.packageRoot.appendingPathComponent("Fixtures/csv/french-verbs.csv").path
        var samples: [(String, String)] = []
        func run(_ definition: String, _ arguments: String..., stream: KeyPath<DeckProcess.Result, String> = \.stdout,
                 lines: Bool = false, status: Int32 = 0) async {
            let result = await InProcessDeck.run(arguments)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            let text = result[keyPath: stream]
            if lines {
                for line in text.split(separator: "\n") { samples.append((definition, String(line))) }
            } else {
                samples.append((definition, text))
            }
        }
        await run("info", "create", deck, "--json")
        await run("import", "import", deck, fixture, "--json")
        await run("info", "info", deck, "--json")
        await run("list", "list", deck, "--limit", "3", "--json")
        await run("list", "list", deck, "--limit", "3", "--cards", "--columns", ListColumns.all, "--json")
        await run("list", "search", deck, "etre", "--json")
        await run("card", "add", deck, "--front", "chat", "--back", "cat", "--json")
        await run("card", "edit", deck, "44", "--back", "the cat", "--json")
        await run("editWhere", "edit", deck, "--where", "tag = modal", "--tag", "+aux", "--deck", "Modal", "--yes", "--json")
        await run("editWhere", "edit", deck, "--where", "tag = modal", "--back", "?", "--dry-run", "--json")
        await run("rm", "rm", deck, "--where", "tag = re", "--dry-run", "--json")
        await run("rm", "rm", deck, "44", "--json")
        await run("check", "check", deck, "--json")
        await run("decks", "decks", deck, "--json")
        await run("decksCreate", "decks", "create", deck, "A::B", "--json")
        await run("decksRename", "decks", "rename", deck, "A", "C", "--json")
        await run("decksDescribe", "decks", "describe", deck, "C", "text", "--json")
        await run("tags", "tags", deck, "--json")
        await run("tagsRename", "tags", "rename", deck, "aux", "auxiliary", "--json")
        await run("tagsRemove", "tags", "remove", deck, "auxiliary", "--json")
        await run("notetypes", "notetypes", deck, "--json")
        await run("notetypesShow", "notetypes", "show", deck, "cloze", "--json")
        await run("cardState", "suspend", deck, "1", "2", "--json")
        await run("cardState", "unsuspend", deck, "--where", "is = suspended", "--json")
        await run("cardState", "flag", deck, "3", "5", "--json")
        await run("review", "review", deck, "3", "good", "--at", "2026-12-01T09:30:00Z", "--json")
        await run("due", "due", deck, "--at", "2026-12-01T09:30:00Z", "--json")
        await run("stats", "stats", deck, "--at", "2026-12-01T09:30:00Z", "--json")
        await run("export", "export", deck, "-o", play.path("out.json"), "--format", "json", "--json")
        await run("import", "import", deck, play.path("out.json"), "--update", "never", "--verbose", "--json")
        await run("archive", "archive", deck, "-o", play.path("French.zip"), "--json")
        try FileManager.default.createDirectory(atPath: play.path("x"), withIntermediateDirectories: false)
        await run("unarchive", "unarchive", play.path("French.zip"), "-C", play.path("x"), "--json")
        await run("migrate", "migrate", deck, "--json")
        await run("convert", "convert", fixture, "--to", "json", "--out-dir", play.path("converted"), "--json", lines: true)
        await run("error", "info", play.path("Nope.sampledeck"), "--json", stream: \.stderr, status: 66)
        await run("error", "list", deck, "--where", "front ~ x", "--json", stream: \.stderr, status: 64)

        // Broken on purpose: each must be refused.
        let refused: [(String, String)] = [
            ("info", #"{"path": "a", "title": "t", "documentID": "x", "formatVersion": 2, "created": "2026-01-01T00:00:00.000Z", "modified": "2026-01-01T00:00:00.000Z", "notes": 0, "cards": 0}"#),
            ("card", #"{"id": 1, "created": "2026-01-01T00:00:00Z"}"#),
            ("convert", #"{"input": "a", "ok": true, "skipped": false, "notes": 1, "seconds": 0.5}"#),
            ("cardState", #"{"deck": "d", "matched": -1, "changed": 0}"#),
            // A new card's position under `due` (one key, two types, as before position had its own).
            ("review", #"{"card": 1, "state": "new", "stability": null, "difficulty": null, "interval": 0, "due": 3, "position": 3, "reps": 0, "lapses": 0}"#),
            ("review", #"{"card": 1, "state": "new", "stability": null, "difficulty": null, "interval": 0, "due": null, "reps": 0, "lapses": 0}"#),
            ("import", #"{"deck": "d", "input": ["f"], "imported": 0, "notes": 0, "cards": 0, "duplicatesSkipped": 0, "media": 0, "missingMedia": 0, "reviews": 0, "update": "sometimes", "added": 0, "updated": 0, "unchanged": 0, "skipped": 0, "noteTypes": []}"#),
        ]
        let report = try Self.validate(accepted: samples, refused: refused)
        #expect(report == "ok", "\(report)")
    }

    /// Runs one python3 process: validates `accepted` (must pass) and `refused` (must fail); prints "ok" or the failures.
    static func validate(accepted: [(String, String)], refused: [(String, String)]) throws -> String {
        let play = try Playground()
        let input = play.url.appendingPathComponent("samples.json")
        let encode = { (pairs: [(String, String)]) in pairs.map { ["definition": $0.0, "text": $0.1] } }
        try JSONSerialization.data(withJSONObject: ["accepted": encode(accepted), "refused": encode(refused)]).write(to: input)
        let script = """
            import json, sys
            from jsonschema import Draft202012Validator, FormatChecker
            schema = json.load(open(sys.argv[1]))
            samples = json.load(open(sys.argv[2]))
            Draft202012Validator.check_schema(schema)
            def validator(name):
                assert name in schema["$defs"], "no definition " + name
                return Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/" + name}, format_checker=FormatChecker())
            failures = []
            for sample in samples["accepted"]:
                try:
                    instance = json.loads(sample["text"])
                except Exception as error:
                    failures.append("%s: not JSON (%s): %r" % (sample["definition"], error, sample["text"][:200]))
                    continue
                for error in validator(sample["definition"]).iter_errors(instance):
                    failures.append("%s: %s at %s in %s" % (sample["definition"], error.message, list(error.absolute_path), sample["text"][:300]))
            for sample in samples["refused"]:
                if validator(sample["definition"]).is_valid(json.loads(sample["text"])):
                    failures.append("%s: accepted %s" % (sample["definition"], sample["text"]))
            print("\\n".join(failures) if failures else "ok")
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, schema.path, input.path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 ? text : "python3 failed (\(process.terminationStatus)): \(String(decoding: errors, as: UTF8.self))"
    }
}

enum ListColumns {
    static let all = "id,note,kind,notetype,template,deck,front,back,tags,created,modified,state,due,interval,ease,reps,lapses,flag"
}
