import Foundation
import Testing
@testable import Interchange

@Suite struct CSVWriterTests {
    private func written(_ records: [[String]], _ dialect: CSVDialect = .csv) throws -> String {
        var writer = CSVWriter(dialect: dialect)
        for record in records { try writer.write(record) }
        return String(decoding: writer.data, as: UTF8.self)
    }

    @Test func quotesOnlyWhenNeeded() throws {
        let text = try written([["plain", "with space", "comma,inside", "quote\"inside", "line\nbreak", "cr\ronly", ""]])
        #expect(text == "plain,with space,\"comma,inside\",\"quote\"\"inside\",\"line\nbreak\",\"cr\ronly\",\r\n")
    }

    @Test func lineEndingIsConfigurable() throws {
        #expect(try written([["a", "b"], ["c"]], CSVDialect(lineEnding: .lf)) == "a,b\nc\n")
        #expect(try written([["a", "b"], ["c"]], CSVDialect(lineEnding: .crlf)) == "a,b\r\nc\r\n")
    }

    @Test func loneEmptyFieldIsQuotedSoItIsNotABlankLine() throws {
        let text = try written([[""], ["x"]])
        #expect(text == "\"\"\r\nx\r\n")
        #expect(try CSVTestSupport.records(text) == [[""], ["x"]])
    }

    @Test func firstFieldStartingWithTheCommentPrefixIsQuoted() throws {
        let dialect = CSVDialect(separator: .tab, commentPrefix: "#", lineEnding: .lf)
        #expect(try written([["#hashtag", "#b"]], dialect) == "\"#hashtag\"\t#b\n")
    }

    @Test func separatorDecidesWhatNeedsQuotes() throws {
        #expect(try written([["a,b", "c\td"]], .tsv) == "a,b\t\"c\td\"\n")
        #expect(try written([["a b", "c"]], CSVDialect(separator: .space)) == "\"a b\" c\r\n")
    }

    @Test func unquotableFieldIsAnError() throws {
        let dialect = CSVDialect(separator: .tab, quote: nil)
        #expect(try written([["a,b", "c"]], dialect) == "a,b\tc\r\n")
        let error = try #require(throws: CSVError.self) { try written([["ok", "tab\there"]], dialect) }
        #expect(error.reason == .unquotableField(field: 2))
    }

    @Test func writesToAFileInChunks() throws {
        let directory = try CSVTemporaryDirectory()
        let url = directory.url.appendingPathComponent("out.csv")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        var writer = CSVWriter(fileHandle: handle, dialect: .csv, path: url.path)
        var expected: [[String]] = []
        for index in 0..<5_000 {
            let record = ["\(index)", "mot, \(index)", "ligne\n\"\(index)\""]
            expected.append(record)
            try writer.write(record)
        }
        try writer.flush()
        try handle.close()
        var reader = try CSVReader(url: url)
        #expect(try reader.readAll().map(\.fields) == expected)
    }

    @Test func writeErrorsAreReported() throws {
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        var writer = CSVWriter(fileHandle: pipe.fileHandleForWriting, path: "closed-pipe")
        try writer.write(["a"])
        // Writing to a pipe without a reader fails with EPIPE (SIGPIPE is ignored by the test runner
        // only if set; ignore it here so the process survives).
        signal(SIGPIPE, SIG_IGN)
        let error = try #require(throws: CSVError.self) { try writer.flush() }
        #expect(error.path == "closed-pipe")
    }

    // MARK: Round trip

    static let alphabet: [String] = [
        "a", "Z", "9", " ", ",", "\t", ";", "|", ":", "\"", "\"\"", "\n", "\r", "\r\n", "#", "'",
        "é", "être", "€", "𝄞", "🇫🇷", "한", "\u{FEFF}", "\u{0}", "x y",
    ]

    static func randomRecords(seed: UInt64, count: Int) -> [[String]] {
        var generator = CSVSeededGenerator(seed: seed)
        return (0..<count).map { _ in
            (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                (0..<Int.random(in: 0...10, using: &generator))
                    .map { _ in alphabet.randomElement(using: &generator) ?? "" }
                    .joined()
            }
        }
    }

    static let dialects: [CSVDialect] = [
        .csv, .tsv,
        CSVDialect(separator: .semicolon, lineEnding: .lf),
        CSVDialect(separator: .pipe),
        CSVDialect(separator: .colon, commentPrefix: "#"),
        CSVDialect(separator: .space, lineEnding: .lf),
        CSVDialect(quote: "'", commentPrefix: "#"),
    ]

    @Test(arguments: zip(dialects, 1...UInt64(dialects.count)))
    func randomRoundTrip(dialect: CSVDialect, seed: UInt64) throws {
        let records = Self.randomRecords(seed: seed, count: 400)
        var writer = CSVWriter(dialect: dialect)
        for record in records { try writer.write(record) }
        var reader = CSVReader(data: writer.data, dialect: dialect)
        let read = try reader.readAll()
        #expect(read.map(\.fields) == records)
        // Through a file read in small chunks as well.
        let directory = try CSVTemporaryDirectory()
        let url = try directory.file("round-trip.csv", [UInt8](writer.data))
        #expect(try CSVTestSupport.recordsInChunks(url, chunkSize: 7, dialect: dialect) == read)
    }
}
