import Foundation
import Testing

/// `deck import` of CSV and TSV files as spreadsheets write them (issue 15, item 3), run on
/// the built binary.
@Suite struct SpreadsheetImportCommandTests {
    /// What LibreOffice or Excel in a German locale saves: semicolons, CRLF, a header row,
    /// commas in the text, tags as a list, a blank row and a row without a front.
    static let spreadsheet = "Front;Back;Tags\r\nhello, world;\"hallo; Welt\";greetings\r\n;;\r\n;orphan back\r\nthe cat;die Katze;animals, nouns\r\n"

    private func write(_ play: Playground, _ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: play.url.appendingPathComponent(name))
    }

    @Test func semicolonSpreadsheetWithAHeaderRowAndCountedSkips() throws {
        let play = try Playground()
        try play.write("Vokabeln.csv", Self.spreadsheet)
        let result = try play.run("import", "A.sampledeck", "Vokabeln.csv", "--create")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "imported 2 notes into A.sampledeck; skipped 1 row with an empty first field; skipped 1 empty row\n")
        #expect(result.stderr == "")
        let list = try play.run("list", "A.sampledeck", "--format", "tsv")
        #expect(list.stdout == """
            id\tkind\tfront\tback\ttags
            1\tbasic\thello, world\thallo; Welt\tgreetings
            2\tbasic\tthe cat\tdie Katze\tanimals nouns

            """)
        let json = try play.run("import", "A.sampledeck", "Vokabeln.csv", "--json")
        #expect(json.stdout.contains("\"skippedEmptyFirstField\": 1, \"skippedEmptyRows\": 1, \"truncatedRows\": 0"))
    }

    @Test func verboseNamesEachSkippedRowWithItsLine() throws {
        let play = try Playground()
        try play.write("v.csv", Self.spreadsheet)
        let result = try play.run("import", "A.sampledeck", "v.csv", "--create", "--verbose")
        #expect(result.status == 0)
        #expect(result.stderr == "deck: v.csv:3: skipped: the row is empty\ndeck: v.csv:4: skipped: the first field is empty\n")
    }

    @Test func dryRunShowsTheMappingAndWritesNothing() throws {
        let play = try Playground()
        try play.write("v.csv", Self.spreadsheet)
        let dry = try play.run("import", "A.sampledeck", "v.csv", "--create", "--dry-run")
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(!play.exists("A.sampledeck"))
        #expect(dry.stdout.contains("separator:  semicolon (guessed from the first lines)\n"))
        #expect(dry.stdout.contains("header row: line 1 (skipped)\n"))
        #expect(dry.stdout.contains("    1 \"Front\" → Front\n    2 \"Back\" → Back\n    3 \"Tags\" → tags\n"))
        #expect(dry.stdout.contains("would import 2 notes; skipped 1 row with an empty first field; skipped 1 empty row\n"))
        #expect(dry.stdout.contains("    line 5: Front \"the cat\", Back \"die Katze\", tags animals nouns\n"))
        // An existing deck is not touched either.
        try play.frenchDeck("F.sampledeck")
        let before = try play.run("list", "F.sampledeck", "--format", "tsv").stdout
        let modified = try FileManager.default.attributesOfItem(atPath: play.url.appendingPathComponent("F.sampledeck").path)[.modificationDate] as? Date
        #expect(try play.run("import", "F.sampledeck", "v.csv", "--dry-run").status == 0)
        #expect(try play.run("list", "F.sampledeck", "--format", "tsv").stdout == before)
        #expect(try FileManager.default.attributesOfItem(atPath: play.url.appendingPathComponent("F.sampledeck").path)[.modificationDate] as? Date == modified)
        #expect(try play.run("import", "F.sampledeck", "x.apkg", "--dry-run").status == 64)
    }

    @Test func aColumnWithNoFieldIsExit65UnlessIgnored() throws {
        let play = try Playground()
        try play.write("notes.csv", "Front,Back,Notes\nchat,cat,a pet\nchien,dog,\n")
        let refused = try play.run("import", "A.sampledeck", "notes.csv", "--create")
        #expect(refused.status == 65)
        #expect(refused.stderr.hasPrefix("deck: error: "))
        #expect(refused.stderr.contains("notes.csv: line 1: column 3 (\"Notes\") has no field to go to"))
        #expect(refused.stderr.contains("--ignore-extra-columns"))
        #expect(!play.exists("A.sampledeck"))
        let ignored = try play.run("import", "A.sampledeck", "notes.csv", "--create", "--ignore-extra-columns")
        #expect(ignored.status == 0, "\(ignored.stderr)")
        #expect(ignored.stdout == "imported 2 notes into A.sampledeck; dropped the values of 1 row in column 3 (no field to go to)\n")
    }

    @Test func utf16WithAByteOrderMarkAndLatin1() throws {
        let play = try Playground()
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in "Front\tBack\nŒuvre\twork «opus» €\n".utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        try write(play, "utf16.txt", utf16)
        let wide = try play.run("import", "A.sampledeck", "utf16.txt", "--create")
        #expect(wide.status == 0, "\(wide.stderr)")
        #expect(try play.run("list", "A.sampledeck", "--format", "tsv").stdout.contains("1\tbasic\tŒuvre\twork «opus» €\t\n"))

        let latin1: [UInt8] = Array("Front,Back\n".utf8) + [0x63, 0x61, 0x66, 0xE9, 0x2C, 0x63, 0x6F, 0x66, 0x66, 0x65, 0x65, 0x0A]
        try write(play, "latin1.csv", latin1)
        let refused = try play.run("import", "B.sampledeck", "latin1.csv", "--create")
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("line 2: invalid UTF-8 in field 1 (if the file is not UTF-8, give its --encoding"))
        let read = try play.run("import", "B.sampledeck", "latin1.csv", "--create", "--encoding", "latin-1")
        #expect(read.status == 0, "\(read.stderr)")
        #expect(try play.run("list", "B.sampledeck", "--format", "tsv").stdout.contains("1\tbasic\tcafé\tcoffee\t\n"))
    }

    @Test func optionsSayWhatTheFileDoesNot() throws {
        let play = try Playground()
        try play.write("plain.txt", "cat|chat|x\ndog|chien|y\n")
        let result = try play.run("import", "A.sampledeck", "plain.txt", "--create", "--separator", "pipe",
                                  "--columns", "Back, Front, Tags", "--tags", "imported,french", "--deck", "French::Animals")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try play.run("list", "A.sampledeck", "--format", "tsv").stdout == """
            id\tkind\tfront\tback\ttags
            1\tbasic\tchat\tcat\tfrench imported x
            2\tbasic\tchien\tdog\tfrench imported y

            """)
        // --header takes a first row that names nothing as the header; --no-header keeps a Front,Back row.
        try play.write("words.csv", "Word,Meaning\nun,one\n")
        #expect(try play.run("import", "B.sampledeck", "words.csv", "--create", "--header").stdout.hasPrefix("imported 1 note "))
        try play.write("fb.csv", "Front,Back\nun,one\n")
        #expect(try play.run("import", "C.sampledeck", "fb.csv", "--create", "--no-header").stdout.hasPrefix("imported 2 notes "))
    }

    @Test(arguments: [
        ["--header", "--no-header"], ["--encoding", "ebcdic"], ["--separator", "\"\""], ["--columns", ","],
        ["--columns", "Front,front"],
    ])
    func badTextOptionsAreUsageErrors(_ options: [String]) throws {
        let play = try Playground()
        try play.write("a.csv", "a,b\n")
        let result = try DeckProcess.run(["import", "A.sampledeck", "a.csv", "--create"] + options, in: play.url)
        #expect(result.status == 64)
        #expect(!play.exists("A.sampledeck"))
    }

    @Test func tsvEscapesSurviveARoundTrip() throws {
        let play = try Playground()
        try play.write("tricky.csv", "Front,Back\n\"line one\nline two\",\"a\ttab, a back\\\\slash and \\\\n as text\"\nplain,\"cr\r\nlf\"\n")
        #expect(try play.run("import", "A.sampledeck", "tricky.csv", "--create").status == 0)
        let listed = try play.run("list", "A.sampledeck", "--format", "tsv").stdout
        #expect(listed.contains("line one\\nline two\ta\\ttab, a back\\\\\\\\slash and \\\\\\\\n as text"))
        // What 'deck list --format tsv' prints, imported again, is the same cards (no literal \n).
        try play.write("listed.tsv", listed)
        let back = try play.run("import", "B.sampledeck", "listed.tsv", "--create", "--ignore-extra-columns")
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try play.run("list", "B.sampledeck", "--format", "tsv").stdout == listed)
        // So is Anki's text format that 'deck export --format tsv' writes (quotes, no escapes).
        #expect(try play.run("export", "A.sampledeck", "-o", "out.tsv").status == 0)
        #expect(try play.run("import", "C.sampledeck", "out.tsv", "--create").status == 0)
        #expect(try play.run("list", "C.sampledeck", "--format", "tsv").stdout == listed)
    }
}
