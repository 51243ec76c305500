import Foundation
import Testing
@testable import Interchange

@Suite struct CSVReaderTests {
    // MARK: RFC 4180, rule by rule

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let input: String
        let expected: [[String]]
        var testDescription: String { name }
    }

    static let rfcCases: [Case] = [
        Case(name: "records end with CRLF", input: "a,b\r\nc,d\r\n", expected: [["a", "b"], ["c", "d"]]),
        Case(name: "records end with LF", input: "a,b\nc,d\n", expected: [["a", "b"], ["c", "d"]]),
        Case(name: "records end with a lone CR", input: "a,b\rc,d\r", expected: [["a", "b"], ["c", "d"]]),
        Case(name: "last record without a line break", input: "a,b\nc,d", expected: [["a", "b"], ["c", "d"]]),
        Case(name: "empty fields", input: ",,\n", expected: [["", "", ""]]),
        Case(name: "trailing separator gives an empty last field", input: "a,\n", expected: [["a", ""]]),
        Case(name: "trailing separator at the end of input", input: "a,b,", expected: [["a", "b", ""]]),
        Case(name: "spaces are part of fields", input: " a , b \n", expected: [[" a ", " b "]]),
        Case(name: "quoted fields", input: "\"a\",\"b\"\n", expected: [["a", "b"]]),
        Case(name: "quoted empty field", input: "\"\",x\n", expected: [["", "x"]]),
        Case(name: "separator inside quotes", input: "\"a,b\",c\n", expected: [["a,b", "c"]]),
        Case(name: "doubled quotes", input: "\"say \"\"hi\"\"\",x\n", expected: [["say \"hi\"", "x"]]),
        Case(name: "only a doubled quote", input: "\"\"\"\"\n", expected: [["\""]]),
        Case(name: "LF inside quotes", input: "\"a\nb\",c\n", expected: [["a\nb", "c"]]),
        Case(name: "CRLF inside quotes", input: "\"a\r\nb\",c\r\n", expected: [["a\r\nb", "c"]]),
        Case(name: "quoted last field without line break", input: "a,\"b\"", expected: [["a", "b"]]),
        Case(name: "quote inside an unquoted field is literal", input: "a\"b,c\n", expected: [["a\"b", "c"]]),
        Case(name: "text after a closing quote is kept", input: "\"ab\"cd,e\n", expected: [["abcd", "e"]]),
        Case(name: "records may differ in width", input: "a\nb,c,d\n", expected: [["a"], ["b", "c", "d"]]),
        Case(name: "empty lines are skipped", input: "a\n\n\r\nb\n", expected: [["a"], ["b"]]),
        Case(name: "empty input", input: "", expected: []),
        Case(name: "UTF-8 fields", input: "être,café ☕️\n", expected: [["être", "café ☕️"]]),
    ]

    @Test(arguments: rfcCases)
    func rfc4180(_ testCase: Case) throws {
        #expect(try CSVTestSupport.records(testCase.input) == testCase.expected)
    }

    @Test func lineNumbersCountLineBreaksInsideQuotes() throws {
        var reader = CSVReader(string: "a\n\"b\nc\nd\",e\r\nf\n\ng\r\"lone\rcr\"\rh")
        let lines = try reader.readAll().map(\.line)
        #expect(lines == [1, 2, 5, 7, 8, 10])
    }

    @Test func emptyLinesAreRecordsWhenAsked() throws {
        let dialect = CSVDialect(skipsEmptyLines: false)
        #expect(try CSVTestSupport.records("a\n\nb\n", dialect) == [["a"], [""], ["b"]])
    }

    // MARK: Byte order mark

    @Test func byteOrderMarkIsSkipped() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("front,back\n".utf8)
        #expect(try CSVTestSupport.records(bytes) == [["front", "back"]])
    }

    @Test func byteOrderMarkOnlyCountsAtTheStart() throws {
        let bytes: [UInt8] = Array("a\n".utf8) + [0xEF, 0xBB, 0xBF] + Array("b\n".utf8)
        #expect(try CSVTestSupport.records(bytes) == [["a"], ["\u{FEFF}b"]])
    }

    @Test func inputOfOnlyAByteOrderMarkIsEmpty() throws {
        #expect(try CSVTestSupport.records([0xEF, 0xBB, 0xBF]).isEmpty)
    }

    // MARK: Invalid UTF-8

    struct BadBytes: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        var testDescription: String { name }
    }

    static let invalidSequences: [BadBytes] = [
        BadBytes(name: "Latin-1 é", bytes: [0xE9]),
        BadBytes(name: "lone continuation byte", bytes: [0x80]),
        BadBytes(name: "overlong slash", bytes: [0xC0, 0xAF]),
        BadBytes(name: "overlong three-byte", bytes: [0xE0, 0x80, 0xAF]),
        BadBytes(name: "UTF-16 surrogate", bytes: [0xED, 0xA0, 0x80]),
        BadBytes(name: "past U+10FFFF", bytes: [0xF4, 0x90, 0x80, 0x80]),
        BadBytes(name: "truncated sequence", bytes: [0xE2, 0x82]),
        BadBytes(name: "0xFF", bytes: [0xFF]),
    ]

    @Test(arguments: invalidSequences)
    func invalidUTF8IsReportedWithLineAndField(_ bad: BadBytes) throws {
        let bytes = Array("ok,fine\nstill,ok\nx,".utf8) + bad.bytes + Array("y,z\n".utf8)
        var reader = CSVReader(data: Data(bytes), path: "bad.csv")
        _ = try reader.next()
        _ = try reader.next()
        let error = try #require(throws: CSVError.self) { try reader.next() }
        #expect(error.reason == .invalidUTF8(field: 2))
        #expect(error.line == 3)
        #expect(error.path == "bad.csv")
        #expect(error.description == "bad.csv:3: invalid UTF-8 in field 2")
    }

    @Test func invalidUTF8InsideAMultiLineQuotedFieldNamesItsOwnLine() throws {
        let bytes = Array("a,\"one\ntwo \"\"q\"\"\nthree ".utf8) + [0xC3, 0x28] + Array("\"\n".utf8)
        let error = try #require(throws: CSVError.self) { try CSVTestSupport.records(bytes) }
        #expect(error.reason == .invalidUTF8(field: 2))
        #expect(error.line == 3)
    }

    @Test func validMultiByteCharactersPass() throws {
        let text = "ÿ,€,𝄞,한국어,🇫🇷\n"
        #expect(try CSVTestSupport.records(text) == [["ÿ", "€", "𝄞", "한국어", "🇫🇷"]])
    }

    // MARK: Unterminated quote

    @Test func unterminatedQuoteNamesTheLineItOpensOn() throws {
        var reader = CSVReader(string: "a,b\nc,\"open\nstill open\nand more", dialect: .csv)
        _ = try reader.next()
        let error = try #require(throws: CSVError.self) { try reader.next() }
        #expect(error.reason == .unterminatedQuote)
        #expect(error.line == 2)
    }

    @Test func unterminatedQuoteInAFileReadInChunks() throws {
        let directory = try CSVTemporaryDirectory()
        var text = ""
        for index in 1...200 { text += "row \(index),value \(index)\n" }
        text += "last,\"never closed " + String(repeating: "x", count: 5_000)
        let url = try directory.file("open.csv", Array(text.utf8))
        let error = try #require(throws: CSVError.self) {
            try CSVTestSupport.recordsInChunks(url, chunkSize: 64)
        }
        #expect(error.reason == .unterminatedQuote)
        #expect(error.line == 201)
        #expect(error.path == url.path)
    }

    @Test func recordLongerThanTheLimitIsRefused() throws {
        var dialect = CSVDialect.csv
        dialect.maximumRecordSize = 1_000
        let directory = try CSVTemporaryDirectory()
        let url = try directory.file("long.csv", Array(("ok\n\"" + String(repeating: "y", count: 10_000)).utf8))
        let error = try #require(throws: CSVError.self) {
            try CSVTestSupport.recordsInChunks(url, chunkSize: 100, dialect: dialect)
        }
        #expect(error.reason == .recordTooLarge(limit: 1_000))
        #expect(error.line == 2)
    }

    // MARK: Separators and dialects

    @Test(arguments: [CSVSeparator.comma, .tab, .semicolon, .pipe, .colon, .space])
    func everySeparator(_ separator: CSVSeparator) throws {
        let s = String(separator.character)
        let input = "a\(s)\"b\(s)c\"\(s)d\ne\(s)f\n"
        let dialect = CSVDialect(separator: separator)
        #expect(try CSVTestSupport.records(input, dialect) == [["a", "b\(s)c", "d"], ["e", "f"]])
        // Other separators are plain text under this dialect.
        #expect(try CSVTestSupport.records("x,y;z|w", dialect).first?.count == (s == "," || s == ";" || s == "|" ? 2 : 1))
    }

    @Test func customQuoteCharacter() throws {
        let dialect = CSVDialect(quote: "'")
        #expect(try CSVTestSupport.records("'a,b','it''s',\"x\"\n", dialect) == [["a,b", "it's", "\"x\""]])
    }

    @Test func quotingCanBeTurnedOff() throws {
        let dialect = CSVDialect(separator: .tab, quote: nil)
        #expect(try CSVTestSupport.records("\"a\tb\"\n", dialect) == [["\"a", "b\""]])
    }

    @Test func commentLinesAreSkipped() throws {
        let dialect = CSVDialect(commentPrefix: "#")
        #expect(try CSVTestSupport.records("#note\na,#b\n# another\r\nc\n#end", dialect) == [["a", "#b"], ["c"]])
        #expect(try CSVTestSupport.records("\"#quoted\",x\n", dialect) == [["#quoted", "x"]])
    }

    @Test func headerRowIsSetAside() throws {
        var reader = CSVReader(string: "front,back\nchat,cat\n", dialect: CSVDialect(header: .firstRow))
        #expect(reader.header == nil)
        let first = try reader.next()
        #expect(reader.header == ["front", "back"])
        #expect(first?.fields == ["chat", "cat"])
        #expect(first?.line == 2)
        #expect(try reader.next() == nil)
    }

    @Test(arguments: [CSVDialect(quote: ","), CSVDialect(quote: "\n"), CSVDialect(quote: "é"), CSVDialect(maximumRecordSize: 0)])
    func unusableDialectsAreReported(_ dialect: CSVDialect) throws {
        let error = try #require(throws: CSVError.self) { try CSVTestSupport.records("a,b\n", dialect) }
        guard case .invalidDialect = error.reason else {
            Issue.record("expected invalidDialect, got \(error.reason)")
            return
        }
    }

    @Test func separatorsRejectQuotesLineBreaksAndNonASCII() {
        #expect(CSVSeparator("\"") == nil)
        #expect(CSVSeparator("\n") == nil)
        #expect(CSVSeparator("\r") == nil)
        #expect(CSVSeparator("é") == nil)
        #expect(CSVSeparator("~")?.byte == UInt8(ascii: "~"))
    }

    // MARK: Files and streams

    @Test func missingFileIsAnIOError() throws {
        let url = URL(fileURLWithPath: "/nonexistent/dir/cards.csv")
        let error = try #require(throws: CSVError.self) { _ = try CSVReader(url: url) }
        guard case .io = error.reason else {
            Issue.record("expected an I/O error, got \(error.reason)")
            return
        }
        #expect(error.path == url.path)
        #expect(error.description.hasPrefix("/nonexistent/dir/cards.csv: cannot open"))
    }

    @Test func directoryIsAnIOError() throws {
        let directory = try CSVTemporaryDirectory()
        #expect(throws: CSVError.self) { _ = try CSVReader(url: directory.url) }
    }

    /// Every chunk size, from one byte up, splits records, quotes, CRLFs and UTF-8 sequences
    /// at a different place; the records must not change.
    @Test func chunkBoundariesDoNotChangeRecords() throws {
        let text = "\u{FEFF}é,\"a\"\"b\",\"x\r\ny\"\r\n#c\r\n\r\n\"\",z\r,\"q\"w\n€𝄞,last"
        let directory = try CSVTemporaryDirectory()
        let url = try directory.file("chunks.csv", Array(text.utf8))
        var dialect = CSVDialect.csv
        dialect.commentPrefix = "#"
        var whole = CSVReader(string: text, dialect: dialect)
        let expected = try whole.readAll()
        #expect(expected.map(\.fields) == [["é", "a\"b", "x\r\ny"], ["", "z"], ["", "qw"], ["€𝄞", "last"]])
        #expect(expected.map(\.line) == [1, 5, 6, 7])
        for chunkSize in 1...40 {
            let chunked = try CSVTestSupport.recordsInChunks(url, chunkSize: chunkSize, dialect: dialect)
            #expect(chunked == expected, "chunk size \(chunkSize)")
        }
    }

    @Test func streamOfFiveThousandRows() throws {
        let directory = try CSVTemporaryDirectory()
        var text = "id,front,back\n"
        for index in 1...5_000 {
            text += index % 7 == 0 ? "\(index),\"mot \(index), avec virgule\",\"line\nbreak\"\n" : "\(index),mot \(index),word \(index)\n"
        }
        let url = try directory.file("stream.csv", Array(text.utf8))
        var reader = try CSVReader(url: url, dialect: CSVDialect(header: .firstRow))
        var count = 0
        var line = 2
        try reader.forEachRecord { record in
            count += 1
            #expect(record.fields[0] == String(count))
            #expect(record.line == line)
            line += count % 7 == 0 ? 2 : 1
        }
        #expect(count == 5_000)
        #expect(reader.header == ["id", "front", "back"])
        #expect(reader.bytesConsumed == text.utf8.count)
    }

    /// Memory stays at one chunk however long the file: the buffer never grows for short
    /// records, and grows only to fit a long one.
    @Test func bufferStaysAtOneChunkForShortRecords() throws {
        let directory = try CSVTemporaryDirectory()
        var text = ""
        for index in 1...5_000 { text += "\(index),\"short, quoted\",plain\n" }
        let url = try directory.file("many.csv", Array(text.utf8))
        let parser = CSVParser(input: try CSVInput.file(at: url), dialect: .csv, chunkSize: 4_096)
        var reader = CSVReader(parser: parser)
        var count = 0
        while try reader.next() != nil { count += 1 }
        #expect(count == 5_000)
        #expect(parser.bufferCapacity == 4_096)

        let long = String(repeating: "z", count: 20_000)
        let longURL = try directory.file("long.csv", Array("a\n\(long)\nb\n".utf8))
        let longParser = CSVParser(input: try CSVInput.file(at: longURL), dialect: .csv, chunkSize: 4_096)
        var longReader = CSVReader(parser: longParser)
        #expect(try longReader.readAll().map(\.fields) == [["a"], [long], ["b"]])
        #expect(longParser.bufferCapacity <= 4 * 20_000)
    }

    @Test func readsFromAPipe() throws {
        let pipe = Pipe()
        let writer = pipe.fileHandleForWriting
        let payload = Data("a,b\n\"c\nd\",e\n".utf8)
        let thread = Thread {
            writer.write(payload)
            try? writer.close()
        }
        thread.start()
        var reader = CSVReader(fileHandle: pipe.fileHandleForReading, path: "-")
        #expect(try reader.readAll().map(\.fields) == [["a", "b"], ["c\nd", "e"]])
    }

    // MARK: The demo fixture

    @Test func frenchVerbsFixture() throws {
        var reader = try CSVReader(url: CSVTestSupport.fixtures.appendingPathComponent("french-verbs.csv"),
                                   dialect: CSVDialect(header: .firstRow))
        let records = try reader.readAll()
        #expect(reader.header == ["front", "back", "tags"])
        #expect(records.count >= 40)
        #expect(records.allSatisfy { $0.count == 3 })
        #expect(records.first?.fields == ["être", "to be", "verbs irregular essential"])
        #expect(records.contains { $0.fields[1].contains(",") })
        let multiLine = try #require(records.first { $0.fields[1].contains("\n") })
        #expect(multiLine.fields[0] == "se souvenir")
        #expect(records.contains { $0.fields[1].contains("\"") })
    }
}
