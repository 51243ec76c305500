import Foundation
import Testing
@testable import Interchange

@Suite struct TextImportTests {
    private func rows(_ text: String, _ settings: TextImportSettings = TextImportSettings()) throws -> (TextImportSettings, [TextImportRow]) {
        var reader = TextImportReader(string: text, settings: settings)
        let rows = try reader.readAll()
        return (reader.settings, rows)
    }

    // MARK: Header lines

    @Test(arguments: [
        ("Comma", CSVSeparator.comma), ("comma", .comma), ("Semicolon", .semicolon), ("TAB", .tab),
        ("Space", .space), ("Pipe", .pipe), ("Colon", .colon), (",", .comma), ("\t", .tab),
        (";", .semicolon), ("|", .pipe), (":", .colon), (" ", .space), (" tab ", .tab), ("~", CSVSeparator("~")!),
    ])
    func separatorHeader(value: String, expected: CSVSeparator) throws {
        let s = String(expected.character)
        let (settings, rows) = try rows("#separator:\(value)\nun\(s)one\n")
        #expect(settings.separator == expected)
        #expect(rows.map(\.front) == ["un"])
        #expect(rows.map(\.back) == ["one"])
    }

    @Test func unknownSeparatorNameFallsBackToGuessing() throws {
        let (settings, _) = try rows("#separator:nonsense\na;b\n")
        #expect(settings.separator == .semicolon)
    }

    @Test(arguments: [("true", true as Bool?), ("false", false), ("TRUE", true), ("maybe", nil)])
    func htmlHeader(value: String, expected: Bool?) throws {
        let (settings, _) = try rows("#html:\(value)\na\tb\n")
        #expect(settings.isHTML == expected)
    }

    @Test func aCellOfTwentyThousandTagsKeepsEachOnceInOrder() throws {
        // Repeats, and a header tag repeated in the cell: each tag once, in first-seen order.
        let names = (0..<20_000).map { "t\($0)" }
        let (_, rows) = try rows("#separator:tab\n#tags:t5 head\na\tb\t" + (names + ["t0", "head", "t19999"]).joined(separator: " ") + "\n")
        #expect(rows.count == 1)
        #expect(rows.first?.tags == ["t5", "head"] + names.filter { $0 != "t5" })
    }

    @Test func tagsNotetypeAndDeckHeadersApplyToEveryRow() throws {
        let (settings, rows) = try rows("""
            #separator:tab
            #tags:french  imported
            #notetype:Basic (and reversed card)
            #deck:French::Verbs
            être\tto be\tverbs imported
            avoir\tto have

            """)
        #expect(settings.tags == ["french", "imported"])
        #expect(settings.notetype == "Basic (and reversed card)")
        #expect(settings.deck == "French::Verbs")
        #expect(rows.map(\.tags) == [["french", "imported", "verbs"], ["french", "imported"]])
        #expect(rows.allSatisfy { $0.notetype == "Basic (and reversed card)" && $0.deck == "French::Verbs" })
    }

    @Test func legacyTagsFirstLine() throws {
        let (settings, rows) = try rows("tags:old style\na\tb\n")
        #expect(settings.tags == ["old", "style"])
        #expect(rows.map(\.front) == ["a"])
    }

    @Test func columnsHeaderNamesTheColumns() throws {
        let (settings, rows) = try rows("#separator:Tab\n#columns:Back\tFront\tExtra\tTags\nto be\têtre\tirregular\tverbs\n")
        #expect(settings.columns == ["Back", "Front", "Extra", "Tags"])
        let row = try #require(rows.first)
        #expect(row.front == "être")
        #expect(row.back == "to be")
        #expect(row.tags == ["verbs"])
        #expect(row.extraFields == [TextImportField(name: "Extra", column: 3, value: "irregular")])
    }

    @Test func columnsHeaderBeforeSeparatorHeaderStillSplitsOnTheSeparator() throws {
        let (settings, _) = try rows("#columns:Front;Back\n#separator:semicolon\na;b\n")
        #expect(settings.columns == ["Front", "Back"])
    }

    @Test func metaColumnHeaders() throws {
        let text = """
            #separator:tab
            #html:true
            #guid column:1
            #notetype column:2
            #deck column:3
            #tags column:6
            g1\tBasic\tFrench\tchat\tcat\tanimals noun
            g2\tCloze\tGerman\t{{c1::Hund}}\tdog\t
            \t\t\tbare\t\t

            """
        let (settings, rows) = try rows(text, TextImportSettings(notetype: "Fallback", deck: "Default"))
        #expect(settings.guidColumn == 1)
        #expect(settings.notetypeColumn == 2)
        #expect(settings.deckColumn == 3)
        #expect(settings.tagsColumn == 6)
        #expect(rows.map(\.guid) == ["g1", "g2", nil])
        #expect(rows.map(\.notetype) == ["Basic", "Cloze", "Fallback"])
        #expect(rows.map(\.deck) == ["French", "German", "Default"])
        #expect(rows.map(\.front) == ["chat", "{{c1::Hund}}", "bare"])
        #expect(rows.map(\.back) == ["cat", "dog", ""])
        #expect(rows.map(\.tags) == [["animals", "noun"], [], []])
    }

    @Test(arguments: ["#tags column:0", "#tags column:x", "#guid column:-1"])
    func badColumnNumbersAreIgnored(_ line: String) throws {
        let (settings, _) = try rows("\(line)\na\tb\n")
        #expect(settings.tagsColumn == nil && settings.guidColumn == nil)
    }

    @Test func commentsAndUnknownHeadersAreSkipped() throws {
        let (_, rows) = try rows("#separator:comma\n# just a comment\n#unknown key:1\na,b\n#later comment\nc,d\n")
        #expect(rows.map(\.front) == ["a", "c"])
        #expect(rows.map(\.line) == [4, 6])
    }

    @Test func byteOrderMarkBeforeHeaders() throws {
        var reader = TextImportReader(data: Data([0xEF, 0xBB, 0xBF] + Array("#separator:pipe\na|b\n".utf8)))
        #expect(try reader.readAll().map(\.back) == ["b"])
        #expect(reader.settings.separator == .pipe)
    }

    @Test func invalidUTF8InAHeaderLine() throws {
        var reader = TextImportReader(data: Data(Array("#separator:tab\n#deck:".utf8) + [0xFF] + Array("\na\tb\n".utf8)), path: "h.txt")
        let error = try #require(throws: CSVError.self) { try reader.next() }
        #expect(error.line == 2)
        #expect(error.path == "h.txt")
    }

    // MARK: Separator guessing

    @Test(arguments: [
        ("Front;Back\nhello, world;hallo, Welt\nzwei;two\n", CSVSeparator.semicolon),
        ("a,b\nc,\"d;e;f\"\n", .comma),
        ("\"x; y\",z\n\"u; v\",w\n", .comma),
        ("a\tb,c\nd\te\n", .tab),
        ("a|b\nc|d,e\n", .pipe),
        ("a;b,c\nd;e,f\n", .semicolon),
        ("a:b\nc:d\n", .colon),
        ("a b\n", .space),
        ("single\n", .space),
    ])
    func separatorIsSniffedWithQuotesRespected(text: String, expected: CSVSeparator) throws {
        let (settings, _) = try rows("#html:false\n\n\(text)")
        #expect(settings.separator == expected)
    }

    @Test func givenSeparatorIsUsedWithoutGuessingAndTheFileOverridesIt() throws {
        #expect(try rows("a,b\tc\n", TextImportSettings(separator: .comma)).0.separator == .comma)
        #expect(try rows("#separator:tab\na,b\tc\n", TextImportSettings(separator: .comma)).0.separator == .tab)
    }

    // MARK: Header row

    @Test(arguments: [
        ("front,back,tags", true), ("Front,Back", true), ("QUESTION;answer", true), ("front", true),
        ("front,back,notes", true), ("front,front", false), ("chat,cat", false), ("front,", false),
        ("back,tags", false), ("deck,front", true), ("front,\"very long label that is clearly not a column name but a sentence of data\"", false),
    ])
    func headerRowDetection(firstLine: String, isHeader: Bool) throws {
        let (settings, rows) = try rows("\(firstLine)\nx,y,z\n")
        #expect((settings.columns != nil) == isHeader)
        #expect(rows.count == (isHeader ? 1 : 2))
    }

    @Test func headerRowModes() throws {
        #expect(try rows("chat,cat\nchien,dog\n", TextImportSettings(headerRow: .present)).1.map(\.front) == ["chien"])
        #expect(try rows("front,back\nchien,dog\n", TextImportSettings(headerRow: .absent)).1.map(\.front) == ["front", "chien"])
    }

    @Test func givenLabelsWithAPresentHeaderRowSkipTheFileHeader() throws {
        let settings = TextImportSettings(columns: ["Back", "Front"], headerRow: .present)
        let (effective, rows) = try rows("a,b\nto be,être\n", settings)
        #expect(effective.columns == ["Back", "Front"])
        #expect(rows.map(\.front) == ["être"])
        // A first record that reads as a header is skipped even when the caller names the columns.
        let detected = try self.rows("front,back\nêtre,to be\n", TextImportSettings(columns: ["Back", "Front"]))
        #expect(detected.1.map(\.front) == ["to be"])
    }

    @Test func headerRowMapsColumnsByName() throws {
        let (settings, rows) = try rows("Tags,Back,Front,Deck,Hint\nverbs,to be,être,French,irregular\n")
        #expect(settings.columns == ["Tags", "Back", "Front", "Deck", "Hint"])
        let row = try #require(rows.first)
        #expect(row.front == "être")
        #expect(row.back == "to be")
        #expect(row.tags == ["verbs"])
        #expect(row.deck == "French")
        #expect(row.extraFields.map(\.name) == ["Hint"])
    }

    // MARK: Column roles

    @Test func unlabelledColumnsFollowAnkisFallback() {
        let settings = TextImportSettings()
        #expect(settings.columnRoles(count: 5) == [.front, .back, .tags, .extra(name: nil), .extra(name: nil)])
        #expect(settings.columnRoles(count: 2) == [.front, .back])
    }

    @Test func explicitColumnsComeFirst() {
        let settings = TextImportSettings(tagsColumn: 4, guidColumn: 1)
        #expect(settings.columnRoles(count: 5) == [.guid, .front, .back, .tags, .extra(name: nil)])
        // A column claimed beyond the row's width still keeps its role from the others.
        #expect(settings.columnRoles(count: 3) == [.guid, .front, .back])
    }

    @Test func rolesForFewerColumnsAreAPrefix() {
        let settings = TextImportSettings(columns: ["Text", "Extra", "Tags"], deckColumn: 5)
        let wide = settings.columnRoles(count: 8)
        for count in 0...8 { #expect(settings.columnRoles(count: count) == Array(wide.prefix(count))) }
        #expect(wide.prefix(3) == [.front, .back, .tags])
    }

    @Test func rowsMayBeShortOrWide() throws {
        let (_, rows) = try rows("#separator:comma\nonly\na,b,t1 t2,x,y\n")
        #expect(rows[0] == TextImportRow(front: "only", line: 2))
        #expect(rows[1].extraFields.map(\.value) == ["x", "y"])
        #expect(rows[1].extraFields.map(\.column) == [4, 5])
    }

    // MARK: Fixtures

    @Test func ankiHeadersFixture() throws {
        var reader = try TextImportReader(url: CSVTestSupport.fixtures.appendingPathComponent("anki-headers.txt"))
        let rows = try reader.readAll()
        #expect(reader.settings.separator == .tab)
        #expect(reader.settings.isHTML == false)
        #expect(reader.settings.deck == "French::Verbs")
        #expect(reader.settings.columns == ["Front", "Back", "Tags"])
        #expect(rows.map(\.front) == ["être", "avoir", "parler", "faire", "café"])
        #expect(rows[3].back == "to do, to make")
        #expect(rows[4].back == "coffee; a café\n(the place)")
        #expect(rows[0].tags == ["french", "imported", "verbs", "irregular"])
        #expect(rows.allSatisfy { $0.notetype == "Basic" })
    }

    @Test func frenchVerbsFixtureThroughTextImport() throws {
        var reader = try TextImportReader(url: CSVTestSupport.fixtures.appendingPathComponent("french-verbs.csv"))
        let rows = try reader.readAll()
        #expect(reader.settings.separator == .comma)
        #expect(reader.settings.columns == ["front", "back", "tags"])
        #expect(rows.count >= 40)
        #expect(rows.first == TextImportRow(front: "être", back: "to be", tags: ["verbs", "irregular", "essential"], line: 2))
        #expect(rows.allSatisfy { !$0.front.isEmpty && !$0.back.isEmpty && $0.tags.contains("verbs") && $0.extraFields.isEmpty })
    }

    // MARK: Export

    @Test func exportWritesAnkiHeaders() throws {
        var settings = TextImportSettings.ankiExport
        settings.tags = ["shared"]
        settings.deck = "French"
        var writer = try TextExportWriter(columns: [.guid, .front, .back, .tags], settings: settings)
        try writer.write(TextImportRow(front: "#1 chat", back: "cat\n(animal)", tags: ["shared", "animals"], guid: "abc"))
        let text = String(decoding: writer.data, as: UTF8.self)
        #expect(text == """
            #separator:tab
            #html:true
            #deck:French
            #tags:shared
            #columns:GUID\tFront\tBack\tTags
            #guid column:1
            #tags column:4
            abc\t#1 chat\t"cat
            (animal)"\tanimals

            """)
    }

    @Test func exportThenImportRoundTrip() throws {
        var generator = CSVSeededGenerator(seed: 42)
        let pieces = ["chat", "être", "\"", "\t", ",", "\n", "#", " ", "€", "<b>", "🇫🇷"]
        func text() -> String {
            (0..<Int.random(in: 1...6, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
        }
        var rows: [TextImportRow] = []
        for index in 0..<300 {
            rows.append(TextImportRow(
                front: text(), back: text(), tags: index % 3 == 0 ? [] : ["t\(index % 5)", "verbs"],
                guid: "g\(index)", notetype: index % 2 == 0 ? "Basic" : "Cloze", deck: "Deck::\(index % 4)",
                extraFields: [TextImportField(name: "Hint", column: 0, value: text())]))
        }
        let columns: [TextImportRole] = [.guid, .notetype, .deck, .front, .back, .extra(name: "Hint"), .tags]
        var writer = try TextExportWriter(columns: columns)
        for row in rows { try writer.write(row) }
        var reader = TextImportReader(data: writer.data)
        let read = try reader.readAll()
        #expect(reader.columnRoles == columns)
        #expect(read.count == rows.count)
        for (original, copy) in zip(rows, read) {
            #expect(copy.front == original.front)
            #expect(copy.back == original.back)
            #expect(copy.tags == original.tags)
            #expect(copy.guid == original.guid)
            #expect(copy.notetype == original.notetype)
            #expect(copy.deck == original.deck)
            #expect(copy.extraFields.map(\.value) == original.extraFields.map(\.value))
            #expect(copy.extraFields.map(\.name) == ["Hint"])
        }
    }
}
