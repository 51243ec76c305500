import Foundation
import Testing

/// `deck import`, `deck export` and `deck convert` run on the built binary.
@Suite struct InterchangeCommandTests {
    static func anki(_ name: String) -> String {
        DeckProcess.packageRoot.appendingPathComponent("Fixtures/anki/\(name)").path
    }

    @Test(arguments: ["export", "convert"])
    func helpAndListing(_ name: String) throws {
        let play = try Playground()
        #expect(try play.run("--help").stdout.contains(name))
        let help = try play.run(name, "--help")
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE"))
    }

    @Test func importAnkiReportsOtherNoteTypesAndSkipsDuplicates() throws {
        let play = try Playground()
        let first = try play.run("import", "A.sampledeck", Self.anki("genanki-legacy.apkg"), "--create")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "imported 5 cards into A.sampledeck\n1 note of other note types (Vocab (3 fields)) mapped as front + labelled back\n")
        let again = try play.run("import", "A.sampledeck", Self.anki("genanki-legacy.apkg"), "--json")
        #expect(again.status == 0)
        #expect(again.stdout.contains("\"imported\": 0, \"cards\": 5, \"duplicatesSkipped\": 5"))
        let list = try play.run("list", "A.sampledeck", "--format", "tsv")
        #expect(list.stdout.contains("maison"))
        #expect(list.stdout.contains("Meaning: house"))
    }

    @Test func importErrorsMapToExitStatuses() throws {
        let play = try Playground()
        try play.write("bad.apkg", "not a zip")
        let bad = try play.run("import", "B.sampledeck", "bad.apkg", "--create")
        #expect(bad.status == 65)
        #expect(bad.stderr.hasPrefix("deck: error: bad.apkg"))
        #expect(!play.exists("B.sampledeck"))  // a deck made for a failed import is removed
        try play.write("bad.json", "{\"format\": 1}")
        #expect(try play.run("import", "B.sampledeck", "bad.json", "--create").status == 65)
        #expect(try play.run("import", "B.sampledeck", "missing.apkg", "--create").status == 66)
    }

    @Test(arguments: ["csv", "tsv", "json", "apkg", "html"])
    func exportWritesEachFormatAndNeverOverwrites(_ format: String) throws {
        let play = try Playground()
        #expect(try play.run("import", "A.sampledeck", Self.anki("anki-current.apkg"), "--create").status == 0)
        let result = try play.run("export", "A.sampledeck", "-o", "out.\(format)")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "exported 5 cards from A.sampledeck to out.\(format)\n")
        let bytes = try Data(contentsOf: play.url.appendingPathComponent("out.\(format)"))
        #expect(!bytes.isEmpty)
        let again = try play.run("export", "A.sampledeck", "-o", "out.\(format)")
        #expect(again.status == 73)
        #expect(again.stderr == "deck: error: out.\(format): already exists\n")
        let piped = try play.run("export", "A.sampledeck", "-o", "-", "--format", format)
        #expect(piped.status == 0)
        if format != "apkg" { #expect(Data(piped.stdout.utf8) == bytes) }
    }

    @Test func exportImportJSONThroughPipesIsLossless() throws {
        let play = try Playground()
        #expect(try play.run("import", "A.sampledeck", Self.anki("anki-current.apkg"), "--create").status == 0)
        let first = try play.run("export", "A.sampledeck", "-o", "-", "--format", "json", "--embed-media")
        #expect(first.status == 0)
        let imported = try play.run("import", "B.sampledeck", "-", "--format", "json", "--create", stdin: first.stdout)
        #expect(imported.status == 0, "\(imported.stderr)")
        let second = try play.run("export", "B.sampledeck", "-o", "-", "--format", "json", "--embed-media")
        #expect(second.stdout == first.stdout)
        #expect(try play.run("check", "B.sampledeck").status == 0)
    }

    @Test func exportUsageErrors() throws {
        let play = try Playground()
        let noFormat = try play.run("export", "A.sampledeck", "-o", "-")
        #expect(noFormat.status == 64)
        #expect(noFormat.stderr.hasPrefix("deck: error: --format is required"))
        #expect(try play.run("export", "A.sampledeck", "-o", "x.unknown").status == 64)
        #expect(try play.run("export", "Missing.sampledeck", "-o", "x.json").status == 66)
    }

    @Test func convertReportsOneLinePerInputAndExitsOneOnFailure() throws {
        let play = try Playground()
        for name in ["genanki-legacy.apkg", "anki-current.apkg"] {
            try FileManager.default.copyItem(atPath: Self.anki(name), toPath: play.url.appendingPathComponent(name).path)
        }
        try play.write("broken.apkg", "not a zip")
        let result = try play.run("convert", "anki-current.apkg", "broken.apkg", "genanki-legacy.apkg", "--to", "sampledeck",
                                  "--out-dir", "out", "--jobs", "2")
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("converted "))
        #expect(lines[0].hasSuffix("out/anki-current.sampledeck (5 cards)"))
        #expect(lines[1].hasPrefix("failed "))
        #expect(lines[2].hasPrefix("converted "))
        #expect(result.stderr == "deck: error: 1 of 3 inputs failed\n")
        #expect(try play.run("check", "out/genanki-legacy.sampledeck").status == 0)

        let json = try play.run("convert", "out", "--to", "json", "--json")
        #expect(json.status == 0, "\(json.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(report?["converted"] as? Int == 2)
        #expect(report?["failed"] as? Int == 0)
        #expect(play.exists("out/anki-current.json"))
        #expect(try play.run("convert", "x", "--to", "json", "--jobs", "0").status == 64)
    }
}
