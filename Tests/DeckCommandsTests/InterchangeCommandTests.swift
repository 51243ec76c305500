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

    @Test func importAnkiKeepsNoteTypesAndSkipsDuplicates() throws {
        let play = try Playground()
        let first = try play.run("import", "A.sampledeck", Self.anki("genanki-legacy.apkg"), "--create")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "imported 5 notes into A.sampledeck\n", "no note is mapped onto another note type")
        let again = try play.run("import", "A.sampledeck", Self.anki("genanki-legacy.apkg"), "--json")
        #expect(again.status == 0)
        #expect(again.stdout.contains("\"imported\": 0, \"notes\": 5, \"cards\": 7, \"duplicatesSkipped\": 0"))
        #expect(again.stdout.contains("\"update\": \"newer\", \"added\": 0, \"updated\": 0, \"unchanged\": 5, \"skipped\": 0"))
        let list = try play.run("list", "A.sampledeck", "--format", "tsv")
        #expect(list.stdout.contains("maison"))
        #expect(list.stdout.contains("\thouse\t"), "the second field, not labelled lines")
    }

    /// A package or text file given where a deck belongs says what it is and what reads it, not
    /// what the deck-archive reader found odd inside it.
    @Test func aFileDeckImportReadsIsNotTakenForADeckArchive() throws {
        let play = try Playground()
        try play.write("words.csv", "front,back\nchat,cat\n")
        try play.write("words.json", "{\"notes\": []}\n")
        for (file, kind) in [(Self.anki("anki-current.apkg"), "an Anki package"), (Self.anki("anki-collection.colpkg"), "an Anki package"),
                             ("words.csv", "a text file (CSV or TSV)"), ("words.json", "a JSON file")] {
            for command in ["info", "list", "check"] {
                let result = try play.run(command, file)
                #expect(result.status == 65, "\(command) \(file)")
                #expect(result.stderr.hasPrefix("deck: error: \(file): is \(kind), not a deck: 'deck import <deck> \(file)'"), "\(result.stderr)")
            }
        }
    }

    /// A media file the deck lists but lacks is the deck's fault: the error names the deck and
    /// the file, not the output being written, and no output is left behind.
    @Test(arguments: ["out.apkg", "out.html", "out.colpkg"])
    func aMissingMediaFileNamesTheDeckNotTheOutput(_ output: String) throws {
        let play = try Playground()
        let imported = try play.run("import", "A.sampledeck", Self.anki("anki-current.apkg"), "--create")
        #expect(imported.status == 0, "\(imported.stderr)")
        let media = play.url.appendingPathComponent("A.sampledeck/Media")
        let files = try FileManager.default.contentsOfDirectory(atPath: media.path)
        #expect(!files.isEmpty)
        for name in files { try FileManager.default.removeItem(at: media.appendingPathComponent(name)) }
        let result = try play.run("export", "A.sampledeck", "-o", output)
        #expect(result.status == 66)
        #expect(result.stderr.hasPrefix("deck: error: A.sampledeck: media file Media/"), "\(result.stderr)")
        #expect(result.stderr.hasSuffix(" is missing\n"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: play.url.appendingPathComponent(output).path))
    }

    /// `deck import --update`: the report line counts updated, unchanged and skipped notes,
    /// --verbose names each skipped note and why, --json carries the counts (and with --verbose
    /// the skipped notes); a re-import never adds a note twice.
    @Test func importUpdateReport() throws {
        let play = try Playground()
        func write(_ name: String, _ text: String, modified: Date) throws {
            try play.write(name, text)
            try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: play.url.appendingPathComponent(name).path)
        }
        try write("v1.csv", "#separator:comma\n#guid column:1\ng1,chat,cat\ng2,chien,dog\ng3,oiseau,bird\n", modified: Date().addingTimeInterval(-86_400))
        let first = try play.run("import", "A.sampledeck", "v1.csv", "--create")
        #expect(first.stdout == "imported 3 notes into A.sampledeck\n", "\(first.stderr)")
        try write("v2.csv", "#separator:comma\n#guid column:1\ng1,chat,a kitten\ng2,chien,dog\ng3,oiseau,a bird\ng4,poisson,fish\n",
                  modified: Date().addingTimeInterval(3600))
        let never = try play.run("import", "A.sampledeck", "v2.csv", "--update", "never", "--verbose")
        #expect(never.status == 0, "\(never.stderr)")
        #expect(never.stdout == "imported 1 note into A.sampledeck; 0 updated, 1 unchanged, 2 skipped (2 left by --update never)\n")
        #expect(never.stderr.contains("deck: skipped note g1 (chat): --update never\n"), "\(never.stderr)")
        #expect(never.stderr.contains("deck: skipped note g3 (oiseau): --update never\n"), "\(never.stderr)")
        let newer = try play.run("import", "A.sampledeck", "v2.csv", "--json", "--verbose")
        #expect(newer.status == 0, "\(newer.stderr)")
        #expect(newer.stdout.contains("\"update\": \"newer\", \"added\": 0, \"updated\": 2, \"unchanged\": 2, \"skipped\": 0, \"noteTypes\": [], "
                                      + "\"decks\": {\"added\": 0, \"updated\": 0, \"unchanged\": 0, \"kept\": 0}, "
                                      + "\"presets\": {\"added\": 0, \"updated\": 0, \"unchanged\": 0, \"kept\": 0}, \"skippedNotes\": []"),
                "\(newer.stdout)")
        #expect(newer.stdout.contains("\"notes\": 4, \"cards\": 4"))
        let list = try play.run("list", "A.sampledeck", "--format", "tsv")
        #expect(list.stdout.contains("a kitten") && list.stdout.contains("a bird") && !list.stdout.contains("\tcat\t"), "\(list.stdout)")
        let bad = try play.run("import", "A.sampledeck", "v2.csv", "--update", "sometimes")
        #expect(bad.status == 64)
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
        #expect(result.stdout == "exported 5 notes from A.sampledeck to out.\(format)\n")
        let bytes = try Data(contentsOf: play.url.appendingPathComponent("out.\(format)"))
        #expect(!bytes.isEmpty)
        let again = try play.run("export", "A.sampledeck", "-o", "out.\(format)")
        #expect(again.status == 73)
        #expect(again.stderr == "deck: error: out.\(format): already exists\n")
        let piped = try play.run("export", "A.sampledeck", "-o", "-", "--format", format)
        #expect(piped.status == 0)
        if format != "apkg" { #expect(Data(piped.stdout.utf8) == bytes) }
    }

    /// `--anki-format current` writes current Anki's layout (meta version 3, zstd collection.anki21b),
    /// `legacy` (the default) collection.anki21; both import back into the same notes; the option
    /// is refused for formats that aren't Anki packages.
    @Test func exportAnkiFormatPicksTheLayout() throws {
        let play = try Playground()
        #expect(try play.run("import", "A.sampledeck", Self.anki("anki-current.apkg"), "--create").status == 0)
        for (layout, entry) in [("current", "collection.anki21b"), ("legacy", "collection.anki21")] {
            for ext in ["apkg", "colpkg"] {
                let out = "\(layout).\(ext)"
                let result = try play.run("export", "A.sampledeck", "-o", out, "--anki-format", layout)
                #expect(result.status == 0, "\(result.stderr)")
                let bytes = try Data(contentsOf: play.url.appendingPathComponent(out))
                #expect(bytes.range(of: Data(entry.utf8)) != nil, "\(out) holds \(entry)")
                if layout == "legacy" { #expect(bytes.range(of: Data("collection.anki21b".utf8)) == nil, "\(out)") }
                let back = try play.run("import", "\(layout)-\(ext).sampledeck", out, "--create", "--json")
                #expect(back.status == 0, "\(back.stderr)")
                #expect(back.stdout.contains("\"imported\": 5"), "\(out): \(back.stdout)")
            }
        }
        let refused = try play.run("export", "A.sampledeck", "-o", "x.json", "--anki-format", "current")
        #expect(refused.status == 64)
        #expect(refused.stderr.hasPrefix("deck: error: --anki-format applies to apkg and colpkg exports only"))
        #expect(try play.run("export", "A.sampledeck", "-o", "x.apkg", "--anki-format", "newest").status == 64)
    }

    @Test func exportImportJSONThroughPipesIsLossless() throws {
        let play = try Playground()
        #expect(try play.run("import", "A.sampledeck", Self.anki("anki-current.apkg"), "--create").status == 0)
        let first = try play.run("export", "A.sampledeck", "-o", "-", "--format", "json")
        #expect(first.status == 0)
        #expect(first.stdout.contains("\"data\": "))  // media inside the file by default
        // Told from its bytes: no --format.
        let imported = try play.run("import", "B.sampledeck", "-", "--create", stdin: first.stdout)
        #expect(imported.status == 0, "\(imported.stderr)")
        let second = try play.run("export", "B.sampledeck", "-o", "-", "--format", "json")
        #expect(second.stdout == first.stdout)
        #expect(try play.run("check", "B.sampledeck").status == 0)
        // A media folder instead: the files beside, found again by import.
        let folder = try play.run("export", "A.sampledeck", "-o", "a.json", "--media-folder", "a-media")
        #expect(folder.status == 0, "\(folder.stderr)")
        let fromFolder = try play.run("import", "C.sampledeck", "a.json", "--create", "--media-folder", "a-media")
        #expect(fromFolder.status == 0, "\(fromFolder.stderr)")
        #expect(try play.run("export", "C.sampledeck", "-o", "-", "--format", "json").stdout == first.stdout)
        #expect(try play.run("export", "A.sampledeck", "-o", "x.csv", "--media-folder", "m").status == 64)
        // A page in a folder refers to its media folder relative to itself.
        try FileManager.default.createDirectory(at: play.url.appendingPathComponent("site"), withIntermediateDirectories: true)
        let page = try play.run("export", "A.sampledeck", "-o", "site/page.html", "--media-folder", "site/media")
        #expect(page.status == 0, "\(page.stderr)")
        let html = try String(contentsOf: play.url.appendingPathComponent("site/page.html"), encoding: .utf8)
        #expect(html.contains("<base href=\"media/\">"))
        #expect(!html.contains(";base64,"))
    }

    /// `deck import -` tells JSON, an Anki package and CSV/TSV from their bytes; anything else is exit 65.
    @Test func standardInputIsToldFromItsBytes() throws {
        let play = try Playground()
        let apkg = try Data(contentsOf: URL(fileURLWithPath: Self.anki("anki-current.apkg")))
        let fromPackage = try DeckProcess.run(["import", "A.sampledeck", "-", "--create"], in: play.url, stdinData: apkg)
        #expect(fromPackage.status == 0, "\(fromPackage.stderr)")
        #expect(fromPackage.stdout.hasPrefix("imported 5 notes into A.sampledeck\n"))
        let fromCSV = try play.run("import", "A.sampledeck", "-", stdin: "Front;Back\nchat;cat\nchien;dog\n")
        #expect(fromCSV.status == 0, "\(fromCSV.stderr)")
        #expect(fromCSV.stdout.hasPrefix("imported 2 notes"))
        try play.write("notes.data", "Front\tBack\nmaison\thouse\n")  // an unknown extension: told the same way
        #expect(try play.run("import", "A.sampledeck", "notes.data").status == 0)
        for (bytes, what) in [(Data("SQLite format 3\0xyz".utf8), "an SQLite database"), (Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2]), "binary data"),
                              (Data(), "the file is empty")] {
            let refused = try DeckProcess.run(["import", "A.sampledeck", "-"], in: play.url, stdinData: bytes)
            #expect(refused.status == 65)
            #expect(refused.stderr == "deck: error: -: \(what), not a file deck import reads (JSON, an Anki .apkg or .colpkg, CSV or TSV text)\n")
        }
        let list = try play.run("list", "A.sampledeck", "--format", "tsv")
        #expect(list.stdout.contains("chien") && list.stdout.contains("maison"))
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
        // One line per input as each finishes: with two jobs the order is the order of completion.
        let lines = result.stdout.split(separator: "\n").sorted()
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("converted "))
        #expect(lines[0].hasSuffix("out/anki-current.sampledeck (5 notes)"))
        #expect(lines[1].hasPrefix("converted "))
        #expect(lines[2].hasPrefix("failed "))
        #expect(result.stderr == "deck: error: 1 of 3 inputs failed\n")
        #expect(try play.run("check", "out/genanki-legacy.sampledeck").status == 0)

        let json = try play.run("convert", "out", "--to", "json", "--json")
        #expect(json.status == 0, "\(json.stderr)")
        let report = try Self.jsonLines(json.stdout)
        #expect(report.count == 3)
        #expect(report.last?["converted"] as? Int == 2)
        #expect(report.last?["failed"] as? Int == 0)
        #expect(play.exists("out/anki-current.json"))
        #expect(try play.run("convert", "x", "--to", "json", "--jobs", "0").status == 64)
    }

    static func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
        }
    }

    /// `deck convert --to apkg --anki-format current` writes the layout `deck export` does;
    /// legacy stays the default; the option is refused for other targets.
    @Test func convertAnkiFormatPicksTheLayout() throws {
        let play = try Playground()
        try play.write("vocab.csv", "chat,cat\nchien,dog\n")
        for (layout, outDir) in [("current", "now"), (nil, "old")] {
            let result = try DeckProcess.run(["convert", "vocab.csv", "--to", "apkg", "--out-dir", outDir] + (layout.map { ["--anki-format", $0] } ?? []), in: play.url)
            #expect(result.status == 0, "\(result.stderr)")
            let bytes = try Data(contentsOf: play.url.appendingPathComponent("\(outDir)/vocab.apkg"))
            #expect((bytes.range(of: Data("collection.anki21b".utf8)) != nil) == (layout == "current"), "\(outDir)")
            #expect(bytes.range(of: Data("collection.anki21".utf8)) != nil)
            let back = try play.run("import", "\(outDir).sampledeck", "\(outDir)/vocab.apkg", "--create", "--json")
            #expect(back.status == 0, "\(back.stderr)")
            #expect(back.stdout.contains("\"imported\": 2"), "\(back.stdout)")
        }
        let refused = try play.run("convert", "vocab.csv", "--to", "json", "--anki-format", "current")
        #expect(refused.status == 64)
        #expect(refused.stderr.hasPrefix("deck: error: --anki-format applies to --to apkg only"))
    }

    @Test func convertKeepsFoldersWhenNamesCollide() throws {
        let play = try Playground()
        try FileManager.default.createDirectory(at: play.url.appendingPathComponent("week1"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: play.url.appendingPathComponent("week2"), withIntermediateDirectories: true)
        try play.write("week1/vocab.csv", "chat,cat\n")
        try play.write("week2/vocab.csv", "chien,dog\nmaison,house\n")
        try play.write("other.csv", "un,one\n")
        let result = try play.run("convert", "week1/vocab.csv", "week2/vocab.csv", "other.csv", "--to", "json", "--out-dir", "out", "--jobs", "1")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.contains { $0.contains("/week1/vocab.csv -> ") && $0.hasSuffix("/out/week1/vocab.json (1 note)") })
        #expect(lines.contains { $0.contains("/week2/vocab.csv -> ") && $0.hasSuffix("/out/week2/vocab.json (2 notes)") })
        #expect(lines.contains { $0.contains("/other.csv -> ") && $0.hasSuffix("/out/other.json (1 note)") })  // no collision: no folder
        let one = try String(contentsOf: play.url.appendingPathComponent("out/week1/vocab.json"), encoding: .utf8)
        let two = try String(contentsOf: play.url.appendingPathComponent("out/week2/vocab.json"), encoding: .utf8)
        #expect(one.contains("chat") && !one.contains("chien"))
        #expect(two.contains("chien") && !two.contains("chat"))
        #expect(!play.exists("out/vocab.json"))

        // Outputs that would still collide: refused before anything is written, naming both inputs.
        try play.write("week1/vocab.tsv", "a\tb\n")
        let refused = try play.run("convert", "week1", "--to", "json", "--out-dir", "fresh")
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("week1/vocab.csv and "))
        #expect(refused.stderr.contains("week1/vocab.tsv would both be written to"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: play.url.appendingPathComponent("fresh").path).isEmpty)
        let twice = try play.run("convert", "other.csv", "other.csv", "--to", "json")
        #expect(twice.status == 73)
        #expect(!play.exists("other.json"))
    }

    @Test func convertSkipsOrReplacesExistingOutputs() throws {
        let play = try Playground()
        try play.write("a.csv", "chat,cat\n")
        try play.write("b.csv", "chien,dog\n")
        try play.write("a.json", "old")
        let plain = try play.run("convert", "a.csv", "b.csv", "--to", "json", "--jobs", "1")
        // The only failure is an output that exists: 73, as export and archive give.
        #expect(plain.status == 73)
        #expect(plain.stdout.contains("failed "))
        #expect(plain.stdout.contains("a.json: already exists"))
        #expect(try String(contentsOf: play.url.appendingPathComponent("a.json"), encoding: .utf8) == "old")
        #expect(play.exists("b.json"))

        let skipped = try play.run("convert", "a.csv", "b.csv", "--to", "json", "--skip-existing", "--json")
        #expect(skipped.status == 0, "\(skipped.stderr)")
        let lines = try Self.jsonLines(skipped.stdout)
        #expect(lines.count == 3)
        #expect(lines.dropLast().allSatisfy { $0["skipped"] as? Bool == true && $0["ok"] as? Bool == true })
        #expect(lines.last?["skipped"] as? Int == 2)
        #expect(try String(contentsOf: play.url.appendingPathComponent("a.json"), encoding: .utf8) == "old")

        let forced = try play.run("convert", "a.csv", "--to", "json", "--force")
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try String(contentsOf: play.url.appendingPathComponent("a.json"), encoding: .utf8).contains("chat"))
        #expect(try play.run("convert", "a.csv", "--to", "sampledeck").status == 0)
        try play.write("a.csv", "chat,cat\nchien,dog\n")
        let deck = try play.run("convert", "a.csv", "--to", "sampledeck", "--force")
        #expect(deck.status == 0, "\(deck.stderr)")
        #expect(deck.stdout.hasSuffix("a.sampledeck (2 notes)\n"))
        #expect(try play.run("check", "a.sampledeck").status == 0)
        #expect(try play.run("convert", "a.csv", "--to", "json", "--force", "--skip-existing").status == 64)
        // Nothing staged is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: play.url.path).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func convertReadsFilesFromAListAndReportsFailuresAsJSONLines() throws {
        let play = try Playground()
        try play.write("a.csv", "chat,cat\n")
        try play.write("b.csv", "chien,dog\n")
        try play.write("broken.apkg", "not a zip")
        try play.write("list.txt", "a.csv\n\nbroken.apkg\r\n")
        let result = try play.run("convert", "--files-from", "-", "--to", "json", "--out-dir", "out", "--json",
                                  stdin: "a.csv\nbroken.apkg\nb.csv")
        #expect(result.status == 1)
        #expect(result.stderr.contains("1 of 3 inputs failed"))
        let lines = try Self.jsonLines(result.stdout)
        #expect(lines.count == 4)
        func line(_ name: String) -> [String: Any]? {
            lines.dropLast().first { ($0["input"] as? String)?.hasSuffix("/" + name) == true }
        }
        #expect(line("a.csv")?["ok"] as? Bool == true)
        #expect(line("a.csv")?["notes"] as? Int == 1)
        #expect((line("a.csv")?["output"] as? String)?.hasSuffix("/out/a.json") == true)
        #expect(line("b.csv")?["ok"] as? Bool == true)
        #expect(line("broken.apkg")?["ok"] as? Bool == false)
        #expect((line("broken.apkg")?["error"] as? String)?.contains("broken.apkg") == true)
        #expect(lines.last?["summary"] as? Bool == true)
        #expect(lines.last?["converted"] as? Int == 2)
        #expect(lines.last?["failed"] as? Int == 1)
        #expect(play.exists("out/a.json") && play.exists("out/b.json") && !play.exists("out/broken.json"))

        let fromFile = try play.run("convert", "b.csv", "--files-from", "list.txt", "--to", "tsv")
        #expect(fromFile.status == 1)
        #expect(fromFile.stdout.split(separator: "\n").count == 3)
        #expect(play.exists("a.tsv") && play.exists("b.tsv"))
        #expect(try play.run("convert", "--files-from", "missing.txt", "--to", "json").status == 66)
        #expect(try play.run("convert", "--to", "json").status == 64)
    }
}
