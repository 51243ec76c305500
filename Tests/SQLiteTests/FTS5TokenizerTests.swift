import Foundation
import Testing
@testable import SQLite

/// FTS5's own tokenizer called directly gives the terms an FTS5 table of the same tokenizer stores.
@Suite struct FTS5TokenizerTests {
    static func text(_ tokens: [[UInt8]]) -> [String] { tokens.map { String(decoding: $0, as: UTF8.self) } }

    @Test func unicode61FoldsCaseAndDiacritics() throws {
        let db = try Database.inMemory()
        let tokenizer = try db.fts5Tokenizer("unicode61", arguments: ["remove_diacritics", "2"])
        #expect(try Self.text(tokenizer.tokens(of: "Été CAFÉ l'arbre, x-y_z 12ab ŒUVRE 日本語")) == ["ete", "cafe", "l", "arbre", "x", "y", "z", "12ab", "œuvre", "日本語"])
        #expect(try tokenizer.tokens(of: "  ,;  ").isEmpty)
        #expect(try tokenizer.tokens(of: "").isEmpty)
    }

    @Test func theTokensAreTheIndexTerms() throws {
        let db = try Database.inMemory()
        try db.execute("CREATE VIRTUAL TABLE f USING fts5(a, tokenize = 'unicode61 remove_diacritics 2')")
        try db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(f, 'row')")
        let text = "Ça m'étonne: Straße, STRASSE, ǅemal naïve Ａｂｃ <b>bold</b> 3.14"
        try db.execute("INSERT INTO f VALUES (?)", [.text(text)])
        let terms = try db.rows("SELECT term FROM v ORDER BY term").compactMap { row -> String? in
            if case .text(let term) = row.first { return term }
            return nil
        }
        let tokenizer = try db.fts5Tokenizer("unicode61", arguments: ["remove_diacritics", "2"])
        #expect(Set(try Self.text(tokenizer.tokens(of: text))) == Set(terms))
    }

    @Test func anUnknownTokenizerIsRefused() throws {
        let db = try Database.inMemory()
        #expect(throws: DatabaseError.self) { try db.fts5Tokenizer("no-such-tokenizer") }
        #expect(throws: DatabaseError.self) { try db.fts5Tokenizer("unicode61", arguments: ["remove_diacritics", "9"]) }
    }
}
