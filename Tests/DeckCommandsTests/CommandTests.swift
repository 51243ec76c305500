import Foundation
import Testing

/// Each command run on the built binary: stdout, stderr and the exit status.
@Suite struct CommandTests {
    @Test func versionAndHelp() throws {
        let play = try Playground()
        let version = try play.run("--version")
        #expect(version.status == 0)
        let lines = version.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("deck ") == true)
        #expect(lines.first?.dropFirst(5).first?.isNumber == true, "deck <version>")
        #expect(lines.dropFirst().first?.hasPrefix("sampledeck format: reads and writes version 2;") == true)
        #expect(version.stdout.contains("upgraded by deck migrate"))
        let help = try play.run("--help")
        #expect(help.status == 0)
        for name in ["create", "info", "add", "list", "search", "edit", "rm", "notetypes", "decks", "tags", "suspend", "unsuspend", "flag", "open", "check", "import", "archive", "unarchive", "study", "review", "due", "stats"] {
            #expect(help.stdout.contains(name), "help lists \(name)")
        }
    }

    @Test(arguments: ["create", "info", "add", "list", "search", "edit", "rm", "notetypes", "decks", "tags", "suspend", "unsuspend", "flag", "open", "check", "import", "archive", "unarchive", "study", "review", "due", "stats"])
    func everySubcommandHasHelp(_ name: String) throws {
        let result = try Playground().run(name, "--help")
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE"))
        #expect(result.stderr.isEmpty)
    }

    @Test func usageErrorsExit64WithOneErrorLine() throws {
        let play = try Playground()
        let misspelled = try play.run("lsit", "x")
        #expect(misspelled.status == 64)
        #expect(misspelled.stdout.isEmpty)
        #expect(misspelled.stderr.hasPrefix("deck: error: "))
        #expect(misspelled.stderr.contains("list"))
        let badSort = try play.run("list", "x", "--sort", "colour")
        #expect(badSort.status == 64)
        let rmNeither = try play.run("rm", "x")
        #expect(rmNeither.status == 64)
    }

    @Test func missingDeckExits66() throws {
        let result = try Playground().run("list", "Nope.sampledeck")
        #expect(result.status == 66)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "deck: error: Nope.sampledeck: no such deck\n")
    }

    /// A deck made in a folder that doesn't exist: the error says which folder, not "no such deck".
    @Test func createInAMissingFolderNamesTheFolder() throws {
        let play = try Playground()
        let result = try play.run("create", "none/A.sampledeck")
        #expect(result.status == 66)
        #expect(result.stderr.hasPrefix("deck: error: none/A.sampledeck: the folder "), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("/none does not exist\n"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: play.url.appendingPathComponent("none").path))
    }

    @Test func createRefusesAnExistingPathWith73() throws {
        let play = try Playground()
        #expect(try play.run("create", "A.sampledeck").status == 0)
        let again = try play.run("create", "A.sampledeck")
        #expect(again.status == 73)
        #expect(again.stderr == "deck: error: A.sampledeck: already exists\n")
    }

    @Test func notADeckExits65() throws {
        let play = try Playground()
        try play.write("plain.txt", "hello")
        let result = try play.run("info", "plain.txt")
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("deck: error: plain.txt: "))
        try FileManager.default.createDirectory(at: play.url.appendingPathComponent("Empty.sampledeck"), withIntermediateDirectories: false)
        let empty = try play.run("check", "Empty.sampledeck")
        #expect(empty.status == 65)
        #expect(empty.stderr.contains("manifest.json"))
    }

    @Test func addEditRemove() throws {
        let play = try Playground()
        #expect(try play.run("create", "D.sampledeck", "--title", "D").status == 0)
        let add = try play.run("add", "D.sampledeck", "--front", "chat", "--back", "cat", "--tag", "animals")
        #expect(add.status == 0)
        let id = add.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(id) != nil)
        let edit = try play.run("edit", "D.sampledeck", id, "--back", "the cat", "--tag", "+pets", "--tag=-animals")
        #expect(edit.status == 0, "\(edit.stderr)")
        let list = try play.run("list", "D.sampledeck", "--format", "json")
        let cards = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]]
        #expect(cards?.first?["back"] as? String == "the cat")
        #expect(cards?.first?["tags"] as? [String] == ["pets"])
        let missing = try play.run("edit", "D.sampledeck", "999", "--back", "x")
        #expect(missing.status == 1)
        #expect(missing.stderr == "deck: error: D.sampledeck: no card with id 999\n")
        let rm = try play.run("rm", "D.sampledeck", id)
        #expect(rm.status == 0)
        #expect(rm.stdout == "removed 1 card\n")
        #expect(try play.run("list", "D.sampledeck", "--format", "tsv").stdout == "id\tkind\tfront\tback\ttags\n")
    }

    @Test func listFiltersAndFormats() throws {
        let play = try Playground()
        try play.frenchDeck()
        let tsv = try play.run("list", "French.sampledeck", "--where", "tag = \"re\" and front starts with \"at\"", "--format", "tsv")
        #expect(tsv.status == 0, "\(tsv.stderr)")
        #expect(tsv.stdout.split(separator: "\n").count == 2)
        #expect(tsv.stdout.contains("attendre\tto wait (for)"))
        let bad = try play.run("list", "French.sampledeck", "--where", "front contains")
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("deck: error: --where"))
        let page = try play.run("list", "French.sampledeck", "--sort", "front:desc", "--limit", "2", "--offset", "1", "--format", "json")
        let cards = try JSONSerialization.jsonObject(with: Data(page.stdout.utf8)) as? [[String: Any]]
        #expect(cards?.count == 2)
        let fronts = cards?.compactMap { $0["front"] as? String } ?? []
        #expect(fronts == fronts.sorted(by: >))
    }

    @Test func tablesFitTheTerminalAndTruncateVisibly() throws {
        let play = try Playground()
        #expect(try play.run("create", "T.sampledeck").status == 0)
        let long = String(repeating: "long text ", count: 20)
        #expect(try play.run("add", "T.sampledeck", "--front", "front", "--back", long).status == 0)
        let narrow = try play.run("list", "T.sampledeck", columns: 50)
        for line in narrow.stdout.split(separator: "\n") { #expect(line.count <= 50) }
        #expect(narrow.stdout.contains("…"))
        let tsv = try play.run("list", "T.sampledeck", "--format", "tsv", columns: 50)
        #expect(tsv.stdout.contains(long))
    }

    @Test func searchWithoutMatchesExits1() throws {
        let play = try Playground()
        try play.frenchDeck()
        let none = try play.run("search", "French.sampledeck", "zzzz")
        #expect(none.status == 1)
        let accent = try play.run("search", "French.sampledeck", "CONNAITRE", "--format", "tsv")
        #expect(accent.stdout.contains("connaître"))
    }

    /// `deck search` takes phrases, or, exclusions and groups, a --where filter and --sort keys;
    /// a search that only leaves notes out is a usage error.
    @Test func searchLanguageWhereAndSort() throws {
        let play = try Playground()
        try play.frenchDeck()
        func fronts(_ arguments: String...) throws -> [String] {
            let result = try DeckProcess.run(["search", "French.sampledeck"] + arguments + ["--format", "tsv"], in: play.url)
            #expect(result.status == 0 || result.status == 1, "\(result.stderr)")
            return result.stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: "\t")[2]) }
        }
        #expect(try fronts("\"to go out\"") == ["sortir"])
        #expect(try fronts("\"out to go\"").isEmpty)
        #expect(try Set(fronts("sleep or believe")) == ["dormir", "croire"])
        #expect(try fronts("modal -must -can") == ["vouloir"])
        #expect(try fronts("modal", "--sort", "front") == ["devoir", "pouvoir", "vouloir"])
        #expect(try fronts("modal or essential", "--where", "tag = modal", "--sort", "front:desc", "--limit", "2") == ["vouloir", "pouvoir"])
        let only = try play.run("search", "French.sampledeck", "--", "-modal")
        #expect(only.status == 64)
        #expect(only.stderr.hasPrefix("deck: error: search: '-modal' only leaves notes out"), "\(only.stderr)")
        #expect(try play.run("search", "French.sampledeck", "x", "--sort", "colour").status == 64)
        #expect(try play.run("search", "French.sampledeck", "x", "--where", "colour = 1").status == 64)
        #expect(try play.run("search", "French.sampledeck", "--index", "--where", "tag = modal").status == 64)
    }

    @Test func importErrors() throws {
        let play = try Playground()
        #expect(try play.run("create", "I.sampledeck").status == 0)
        let missing = try play.run("import", "I.sampledeck", "nope.csv")
        #expect(missing.status == 66)
        #expect(missing.stderr == "deck: error: nope.csv: no such file\n")
        try play.write("bad.csv", "front,back\n\"open,quote\n")
        let bad = try play.run("import", "I.sampledeck", "bad.csv")
        #expect(bad.status == 65)
        #expect(bad.stderr.hasPrefix("deck: error: "))
        #expect(bad.stderr.contains("bad.csv"))
        let fromStdin = try play.run("import", "I.sampledeck", "-", "--format", "tsv", stdin: "front\tback\nun\tone\n")
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        #expect(fromStdin.stdout == "imported 1 note into I.sampledeck\n")
    }

    @Test(arguments: ["zip", "tar.gz", "tar.xz", "tar.zst"])
    func archiveAndUnarchiveRoundTrip(_ format: String) throws {
        let play = try Playground()
        try play.frenchDeck()
        let archive = try play.run("archive", "French.sampledeck", "--format", format)
        #expect(archive.status == 0, "\(archive.stderr)")
        #expect(play.exists("French.sampledeck.\(format)"))
        let again = try play.run("archive", "French.sampledeck", "--format", format)
        #expect(again.status == 73)
        try FileManager.default.createDirectory(at: play.url.appendingPathComponent("out"), withIntermediateDirectories: false)
        let extract = try play.run("unarchive", "French.sampledeck.\(format)", "-C", "out")
        #expect(extract.status == 0, "\(extract.stderr)")
        let check = try play.run("check", "out/French.sampledeck")
        #expect(check.status == 0)
        let original = try play.run("list", "French.sampledeck", "--format", "tsv").stdout
        #expect(try play.run("list", "out/French.sampledeck", "--format", "tsv").stdout == original)
        let twice = try play.run("unarchive", "French.sampledeck.\(format)", "-C", "out")
        #expect(twice.status == 73)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: play.url.appendingPathComponent("out").path)
        #expect(leftovers == ["French.sampledeck"])
    }

    @Test func unarchiveRefusesGarbage() throws {
        let play = try Playground()
        try play.write("junk.zip", "not an archive at all")
        let junk = try play.run("unarchive", "junk.zip")
        #expect(junk.status == 65)
        #expect(junk.stderr.hasPrefix("deck: error: junk.zip"))
        let missing = try play.run("unarchive", "none.zip")
        #expect(missing.status == 66)
    }
}

/// Archives and decks from strangers: refused with exit 65, nothing left behind.
@Suite struct HostileInputTests {
    static let hostile: [String] = {
        let directory = DeckProcess.packageRoot.appendingPathComponent("Fixtures/archives/hostile")
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".zip") || $0.hasSuffix(".tar.gz") || $0.hasSuffix(".tar.xz") }.sorted()
    }()

    @Test func theCorpusIsThere() {
        #expect(Self.hostile.count >= 10)
    }

    @Test(arguments: hostile)
    func unarchiveRefusesHostileArchives(_ name: String) throws {
        let play = try Playground()
        let archive = DeckProcess.packageRoot.appendingPathComponent("Fixtures/archives/hostile/\(name)").path
        try FileManager.default.createDirectory(at: play.url.appendingPathComponent("out"), withIntermediateDirectories: false)
        let result = try play.run("unarchive", archive, "-C", "out")
        #expect(result.status == 65, "\(name): \(result.stderr)")
        #expect(result.stderr.hasPrefix("deck: error: "))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stdout.isEmpty)
        let left = try FileManager.default.contentsOfDirectory(atPath: play.url.appendingPathComponent("out").path)
        #expect(left.isEmpty, "\(name) left \(left)")
    }

    @Test func checkReportsADamagedStoreWith65() throws {
        let play = try Playground()
        #expect(try play.run("create", "Bad.sampledeck").status == 0)
        let store = try FileManager.default.contentsOfDirectory(atPath: play.url.appendingPathComponent("Bad.sampledeck").path)
            .first { $0.hasSuffix(".sqlite") }
        let storeURL = play.url.appendingPathComponent("Bad.sampledeck/\(try #require(store))")
        try Data(repeating: 0x5A, count: 4096).write(to: storeURL)
        let result = try play.run("check", "Bad.sampledeck")
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("deck: error: Bad.sampledeck: "))
    }

    @Test func migrateUpgradesTheV0FixtureAndKeepsItsCards() throws {
        let play = try Playground()
        let fixture = DeckProcess.packageRoot.appendingPathComponent("Fixtures/decks/v0/Vocabulary.sampledeck")
        try FileManager.default.copyItem(at: fixture, to: play.url.appendingPathComponent("Vocabulary.sampledeck"))
        let before = try play.run("list", "Vocabulary.sampledeck")
        #expect(before.status == 65)
        let migrate = try play.run("migrate", "Vocabulary.sampledeck")
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(migrate.stdout.hasPrefix("migrated Vocabulary.sampledeck from format version 0"))
        let after = try play.run("list", "Vocabulary.sampledeck", "--format", "json")
        #expect(after.status == 0, "\(after.stderr)")
        let cards = try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [[String: Any]]
        #expect((cards?.count ?? 0) > 0)
        #expect(try play.run("check", "Vocabulary.sampledeck").status == 0)
        let again = try play.run("migrate", "Vocabulary.sampledeck")
        #expect(again.stdout.contains("already at format version"))
    }

    @Test func quietPrintsNothingOnSuccess() throws {
        let play = try Playground()
        let result = try play.run("create", "Q.sampledeck", "--quiet")
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(play.exists("Q.sampledeck"))
    }
}

/// `deck info` and `deck search` in every output form.
@Suite struct OutputFormTests {
    @Test func infoOnADeckAsTextAndJSON() throws {
        let play = try Playground()
        #expect(try play.run("create", "Info.sampledeck", "--title", "Mots").status == 0)
        #expect(try play.run("add", "Info.sampledeck", "--front", "chat", "--back", "cat").status == 0)
        let text = try play.run("info", "Info.sampledeck")
        #expect(text.status == 0)
        #expect(text.stdout.contains("title:           Mots\n"))
        #expect(text.stdout.contains("cards:           1\n"))
        let json = try play.run("info", "Info.sampledeck", "--json")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["cards"] as? Int == 1)
        #expect(object?["title"] as? String == "Mots")
        #expect(UUID(uuidString: object?["documentID"] as? String ?? "") != nil)
    }

    @Test(arguments: ["table", "tsv", "json"])
    func searchPrintsEveryFormat(_ format: String) throws {
        let play = try Playground()
        try play.frenchDeck()
        let result = try play.run("search", "French.sampledeck", "avoir", "--format", format)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("to have"))
        if format == "json" {
            let cards = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
            #expect(cards?.first?["front"] as? String == "avoir")
        }
    }
}

extension CommandTests {
    /// `deck add` of note types by name with fields by name and a deck path (format version 2).
    @Test func addTakesANoteTypeFieldsAndADeck() throws {
        let play = try Playground()
        #expect(try play.run("create", "N.sampledeck").status == 0)
        let cloze = try play.run("add", "N.sampledeck", "--type", "cloze", "--field", "Text={{c1::Paris}} is in {{c2::France}}",
                                 "--field", "Back Extra=geo", "--deck", "Geography::Europe", "--tag", "geo")
        #expect(cloze.status == 0, "\(cloze.stderr)")
        #expect(cloze.stdout == "1\n")
        let reversed = try play.run("add", "N.sampledeck", "--kind", "reversible", "--front", "chat", "--back", "cat", "--json")
        #expect(reversed.stdout.hasPrefix("{\"id\": 3, \"kind\": \"reversible\""), "the cloze note has cards 1 and 2: \(reversed.stdout)")
        let info = try play.run("info", "N.sampledeck", "--json")
        #expect(info.stdout.contains("\"notes\": 2, \"cards\": 4"), "\(info.stdout)")
        let list = try play.run("list", "N.sampledeck", "--format", "tsv")
        #expect(list.stdout.contains("1\tcloze\t{{c1::Paris}} is in {{c2::France}}\tgeo\t"), "\(list.stdout)")
        for (arguments, phrase) in [(["--type", "Cloze", "--field", "Text=no gap"], "needs a cloze deletion"),
                                    (["--type", "Nope", "--front", "x"], "no note type \"Nope\""),
                                    (["--field", "Colour=red"], "Basic has no field \"Colour\"")] {
            let refused = try DeckProcess.run(["add", "N.sampledeck"] + arguments, in: play.url)
            #expect(refused.status == 64 && refused.stderr.contains(phrase), "\(arguments): \(refused)")
        }
        #expect(try play.run("check", "N.sampledeck").status == 0)
    }
}
