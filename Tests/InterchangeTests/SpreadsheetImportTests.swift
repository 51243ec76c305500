import Foundation
import Testing
@testable import Interchange

/// CSV files as spreadsheets write them (issue 15, item 3): no `#` lines, a header row, a
/// semicolon in many locales, tags as a list, another encoding, blank rows.
@Suite struct SpreadsheetImportTests {
    /// The settings `deck import` uses for a Basic note type.
    static let basic = TextImportSettings(fieldNames: ["Front", "Back"])

    private func read(_ bytes: [UInt8], _ settings: TextImportSettings = basic) throws -> TextImportReader {
        TextImportReader(data: Data(bytes), path: "sheet.csv", settings: settings)
    }

    private func rows(_ text: String, _ settings: TextImportSettings = basic) throws -> (TextImportReader, [TextImportRow]) {
        var reader = try read(Array(text.utf8), settings)
        let rows = try reader.readAll()
        return (reader, rows)
    }

    @Test func semicolonCSVWithAHeaderRowAsASpreadsheetWritesIt() throws {
        // LibreOffice / Excel in a German or French locale: semicolons, CRLF, commas in the text.
        let text = "Front;Back;Tags\r\nhello, world;\"hallo; Welt\";greetings\r\nthe cat;die Katze, f.;animals nouns\r\n"
        let (reader, rows) = try rows(text)
        #expect(reader.settings.separator == .semicolon)
        #expect(reader.resolution.separatorSource == .sniffed)
        #expect(reader.resolution.headerRowLine == 1)
        #expect(reader.columnRoles == [.front, .back, .tags])
        #expect(rows.map(\.front) == ["hello, world", "the cat"])
        #expect(rows.map(\.back) == ["hallo; Welt", "die Katze, f."])
        #expect(rows.map(\.tags) == [["greetings"], ["animals", "nouns"]])
    }

    @Test(arguments: ["Question,Answer", "FRONT,back", "front,back,tags", "Text,Back Extra"])
    func headerRowRecognisedFromFieldNames(header: String) throws {
        var settings = Self.basic
        if header.hasPrefix("Text") { settings.fieldNames = ["Text", "Back Extra"] }
        let (reader, rows) = try rows("\(header)\nchat,cat,animals\n", settings)
        #expect(reader.resolution.headerRowLine == 1)
        #expect(rows.map(\.front) == ["chat"])
        #expect(rows.map(\.back) == ["cat"])
    }

    @Test func headerAndNoHeaderDecideWhatDetectionCannot() throws {
        let text = "Word,Meaning\nchat,cat\n"
        #expect(try rows(text).1.map(\.front) == ["Word", "chat"])
        var present = Self.basic
        present.headerRow = .present
        #expect(try rows(text, present).1.map(\.front) == ["chat"])
        var absent = Self.basic
        absent.headerRow = .absent
        #expect(try rows("Front,Back\nchat,cat\n", absent).1.map(\.front) == ["Front", "chat"])
    }

    @Test(arguments: [
        ("animals, nouns", ["animals", "nouns"]), ("animals,nouns", ["animals", "nouns"]),
        ("animals; nouns", ["animals", "nouns"]), ("animals nouns", ["animals", "nouns"]),
        ("parts of speech, nouns", ["parts_of_speech", "nouns"]), (" , animals,", ["animals"]),
    ])
    func tagsAreSplitAsTheCellWritesThem(cell: String, expected: [String]) throws {
        let (_, rows) = try rows("front\tback\ttags\nchat\tcat\t\(cell)\n")
        #expect(rows.first?.tags == expected)
    }

    @Test func emptyRowsAndRowsWithAnEmptyFirstFieldAreCountedWithTheirLines() throws {
        let text = "Front;Back\nchat;cat\n;;\n;orphan back\nchien;dog\n;\n"
        let (reader, rows) = try rows(text)
        #expect(rows.map(\.front) == ["chat", "chien"])
        #expect(reader.diagnostics.emptyRowLines == [3, 6])
        #expect(reader.diagnostics.emptyFirstFieldLines == [4])
        #expect(reader.diagnostics.skippedRows == 3)
    }

    @Test func aColumnWithNoFieldIsAnErrorNamingTheFileAndColumn() throws {
        var reader = try read(Array("Front,Back,Notes\nchat,cat,a pet\n".utf8))
        let error = try #require(throws: CSVError.self) { try reader.next() }
        #expect(error.reason == .unmappedColumn(column: 3, label: "Notes", fields: ["Front", "Back"]))
        #expect(error.path == "sheet.csv")
        #expect(error.description.contains("column 3 (\"Notes\")"))
        // An unlabelled fourth column (the third is tags, Anki's way) errs on its first value.
        var unlabelled = try read(Array("chat,cat,animals\nchien,dog,animals,extra\n".utf8))
        #expect(try unlabelled.next()?.front == "chat")
        let second = try #require(throws: CSVError.self) { try unlabelled.next() }
        #expect(second.reason == .unmappedColumn(column: 4, label: nil, fields: ["Front", "Back"]))
        #expect(second.line == 2)
        // Trailing empty cells, as spreadsheets pad rows, are no value.
        #expect(try rows("chat,cat,animals,,\n").1.count == 1)
    }

    @Test func ignoredExtraColumnsCountTheRowsThatLostAValue() throws {
        var settings = Self.basic
        settings.ignoresExtraColumns = true
        let (reader, rows) = try rows("Front,Back,Notes\nchat,cat,a pet\nchien,dog,\n", settings)
        #expect(rows.map(\.front) == ["chat", "chien"])
        #expect(rows.allSatisfy { $0.extraFields.isEmpty })
        #expect(reader.diagnostics.truncatedRowLines == [2])
        #expect(reader.diagnostics.ignoredColumns == [3])
    }

    @Test func fieldsOfTheNoteTypeBeyondTheSecondAreNotExtra() throws {
        let settings = TextImportSettings(fieldNames: ["Front", "Back", "Hint"])
        let (_, rows) = try rows("Front,Back,Hint\nchat,cat,meow\n", settings)
        #expect(rows.first?.extraFields == [TextImportField(name: "Hint", column: 3, value: "meow")])
    }

    @Test func overridesWinOverTheFilesHeaderLines() throws {
        var settings = Self.basic
        settings.overrides = TextImportOverrides(separator: .comma, columns: ["Back", "Front"], notetype: "Cloze",
                                                 deck: "Given", tags: ["extra", "shared"])
        let (reader, rows) = try rows("#separator:tab\n#deck:FromFile\n#tags:shared\nto be,être\n", settings)
        #expect(reader.settings.separator == .comma)
        #expect(reader.resolution.separatorSource == .given)
        #expect(rows.first?.front == "être")
        #expect(rows.first?.deck == "Given")
        #expect(rows.first?.notetype == "Cloze")
        #expect(rows.first?.tags == ["shared", "extra"])
    }

    @Test func givenColumnsStillSkipAHeaderRow() throws {
        var settings = Self.basic
        settings.overrides.columns = ["Front", "Back", "Tags"]
        let (reader, rows) = try rows("front,back,tags\nchat,cat,animals\n", settings)
        #expect(reader.resolution.headerRowLine == 1)
        #expect(rows.map(\.front) == ["chat"])
    }

    // MARK: Encodings

    static let sample = "Front;Back;Tags\nŒuvre;work, « opus »;fr\ncafé;coffee €;fr\n"

    @Test(arguments: [false, true])
    func utf16WithAByteOrderMarkIsRecognised(bigEndian: Bool) throws {
        var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        for unit in (Self.sample + "emoji;🇫🇷;x\n").utf16 {
            bytes += bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        // Through a file in tiny chunks too, so code units and surrogate pairs straddle reads.
        for chunked in [false, true] {
            var reader: TextImportReader
            let directory = try CSVTemporaryDirectory()
            if chunked {
                reader = try TextImportReader(url: try directory.file("utf16.csv", bytes), settings: Self.basic)
            } else {
                reader = try read(bytes)
            }
            let rows = try reader.readAll()
            #expect(reader.resolution.encoding == (bigEndian ? .utf16BigEndian : .utf16LittleEndian))
            #expect(rows.map(\.front) == ["Œuvre", "café", "emoji"])
            #expect(rows.map(\.back) == ["work, « opus »", "coffee €", "🇫🇷"])
        }
    }

    @Test func utf16TranscodingAcrossChunkBoundaries() throws {
        var bytes: [UInt8] = [0xFF, 0xFE]
        let text = (0..<3000).map { "n\($0) 🇫🇷é;b\($0)\n" }.joined()
        for unit in text.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let directory = try CSVTemporaryDirectory()
        let parser = CSVParser(input: try CSVInput.file(at: try directory.file("big.csv", bytes)),
                               dialect: CSVDialect(separator: .semicolon), chunkSize: 37)
        var reader = CSVReader(parser: parser)
        let records = try reader.readAll()
        #expect(records.count == 3000)
        #expect(records[2999].fields == ["n2999 🇫🇷é", "b2999"])
    }

    @Test func unpairedSurrogateIsAnError() throws {
        var reader = try read([0xFF, 0xFE, 0x61, 0x00, 0x00, 0xD8, 0x3B, 0x00, 0x62, 0x00])
        #expect(throws: CSVError.self) { try reader.readAll() }
    }

    @Test func latin1AndWindows1252WhenAskedFor() throws {
        let latin1: [UInt8] = Array("Front;Back\n".utf8) + [0x63, 0x61, 0x66, 0xE9, 0x3B, 0x80, 0x20, 0x35, 0x0A]  // café;€ 5 (cp1252)
        var settings = Self.basic
        settings.encoding = .latin1
        var reader = try read(latin1, settings)
        #expect(try reader.readAll().map { [$0.front, $0.back] } == [["café", "\u{80} 5"]])
        settings.encoding = .windows1252
        reader = try read(latin1, settings)
        #expect(try reader.readAll().map { [$0.front, $0.back] } == [["café", "€ 5"]])
        // Read as UTF-8 (the default), the same bytes are an error that names the line.
        reader = try read(latin1)
        let error = try #require(throws: CSVError.self) { try reader.readAll() }
        #expect(error.line == 2)
    }

    @Test func utf8ByteOrderMarkIsStripped() throws {
        let (reader, rows) = try rows("\u{FEFF}Front;Back\nchat;cat\n")
        #expect(reader.resolution.headerRowLine == 1)
        #expect(rows.map(\.front) == ["chat"])
    }

    @Test(arguments: [("utf8", CSVEncoding.utf8), ("UTF-16", .utf16), ("utf-16le", .utf16LittleEndian), ("Latin-1", .latin1),
                      ("iso-8859-1", .latin1), ("cp1252", .windows1252)])
    func encodingNames(name: String, expected: CSVEncoding) {
        #expect(CSVEncoding(name: name) == expected)
        #expect(CSVEncoding(name: "ebcdic") == nil)
    }

    // MARK: TSV escapes

    @Test func tsvEscapesRoundTrip() throws {
        let fields = ["line one\nline two", "a\ttab", "back\\slash \\n literal", "cr\r\n", "plain"]
        var writer = CSVWriter(dialect: CSVDialect(separator: .tab, lineEnding: .lf, backslashEscapes: true))
        try writer.write(fields)
        let text = String(decoding: writer.data, as: UTF8.self)
        #expect(text == "line one\\nline two\ta\\ttab\tback\\\\slash \\\\n literal\tcr\\r\\n\tplain\n")
        var settings = TextImportSettings(columns: ["Front", "Back", "Hint", "Hint2", "Hint3"], backslashEscapes: true)
        settings.headerRow = .absent
        var reader = TextImportReader(data: writer.data, settings: settings)
        let row = try #require(try reader.next())
        #expect(reader.resolution.backslashEscapes)
        #expect([row.front, row.back] + row.extraFields.map(\.value) == fields)
        // Anki's own files (header lines) quote instead: a backslash there is text.
        var anki = TextImportReader(string: "#separator:tab\nx\\ny\tz\n", settings: TextImportSettings(backslashEscapes: true))
        #expect(try anki.next()?.front == "x\\ny")
    }
}
