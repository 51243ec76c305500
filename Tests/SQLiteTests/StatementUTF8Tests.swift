import Testing
@testable import SQLite

/// ``Statement/withUTF8(at:_:)``: a text column's bytes without a `String`.
@Suite struct StatementUTF8Tests {
    @Test func givesTheBytesOfTextAndNothingForNull() throws {
        let db = try Database.inMemory()
        let row = try db.prepare("SELECT 'a\u{1F}é日本', NULL, '', 42")
        #expect(try row.step())
        #expect(row.withUTF8(at: 0) { Array($0) } == Array("a\u{1F}é日本".utf8))
        #expect(row.withUTF8(at: 1) { $0.count } == 0)
        #expect(row.withUTF8(at: 2) { $0.count } == 0)
        #expect(row.withUTF8(at: 3) { String(decoding: $0, as: UTF8.self) } == "42", "a number is read as its text")
    }
}
