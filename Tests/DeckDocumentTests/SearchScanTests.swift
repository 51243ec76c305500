import Foundation
import Persistence
import SQLite
import Testing
@testable import DeckDocument

/// A search that reads the notes (while a large import's notes are not indexed) finds what the
/// index finds once complete, in the same order: the same tokens, folding, prefixes and rank.
@Suite struct SearchScanTests {
    /// Fields and tags that exercise the tokenizer: case, accents, HTML and entities, escapes in
    /// the stored JSON, several tokens in one word, CJK, spacing the plain text changes.
    static let notes: [(front: String, back: String, tags: [String])] = [
        ("Café au lait", "coffee with milk", ["drinks", "Été"]),
        ("être ou ne pas ÊTRE", "to be or not to be", ["verbs"]),
        ("<b>caf</b>é crème", "a <i>cream</i> coffee<br>hot", ["drinks"]),
        ("l&#39;arbre &amp; la forêt", "the tree &amp; the forest", []),
        ("L'Arbre généalogique", "the family tree", ["trees::family"]),
        ("front of card number 12", "back 12", ["n12"]),
        ("front of card number 120", "back 120", ["n120"]),
        ("x-y z", "a \"quoted\" back\\slash", ["x", "y"]),
        ("日本語のテキスト", "Japanese text", ["日本"]),
        ("Straße STRASSE strasse", "street", []),
        ("  spaced   out  ", "tab\there\nnew line", []),
        ("Ａｂｃ full width", "élan ELAN Élan", ["Élan"]),
        ("", "only a back 12", []),
        ("{{c1::Paris}} est en France", "", ["geo"]),
        // ASCII capitals, and a term only a tag holds: what reading the notes leaves untokenized
        // when it holds none of the terms must not lose these.
        ("MIXED Case WORDS", "ALL CAPS BACK", ["CapsTag", "Onlytag"]),
    ]

    static let queries = [
        "cafe", "CAFÉ", "café", "caf", "etre", "être", "ÊTRE", "12", "1", "number 1", "front", "back", "l'arbre", "arbre",
        "la forêt", "amp", "b", "img", "x-y", "x", "y z", "日本", "日本語", "strasse", "straße", "spaced out", "tab", "here",
        "ａｂｃ", "abc", "elan", "élan", "drinks", "ete", "été", "trees", "family", "n12", "paris", "c1", "quoted", "slash",
        "back\\slash", "milk coffee", "coffee", "the", "tree", "zzz", "12 zzz", "'''", "\u{301}", "12 \u{301}",
        // The search language: phrases, or, exclusions, groups.
        "coffee or tree", "\"family tree\"", "\"tree family\"", "\"the tree\"", "tree -family", "(cafe or coffee) -milk",
        "coffee and milk", "\"the\"", "\"tre\"", "back -12", "(12 or 120) front", "front -(12 or 120 or batch)", "zzz or 120",
        "\"number 12\" or \"number 120\"", "drinks -\"au lait\"", "etre or \"ne pas\" or cafe",
        "mixed", "MIXED", "Mix", "wor", "caps", "capstag", "onlytag", "onlyt", "words -caps", "zzz or caps", "\"case words\"",
        "\"words case\"", "case -onlytag", "back caps", "zzz or onlytag", "all -(zzz or number)",
    ]

    /// A deck with the sample deck's 3 notes indexed, then `notes` and 150 numbered notes imported (not indexed).
    static func deck(_ playground: Playground) throws -> DeckDocument {
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        try deck.bulkImport { session in
            for note in notes {
                try session.add(ImportedNote(kind: note.front.contains("{{c1::") ? .cloze : .basic, front: note.front, back: note.back),
                                tags: note.tags)
            }
            for index in 0..<150 {
                try session.add(ImportedNote(kind: .basic, front: "front of card number \(index)", back: index % 7 == 0 ? "back \(index) \(index)" : "back"),
                                tags: index % 10 == 0 ? ["batch"] : [])
            }
        }
        return deck
    }

    /// A word of a script written without spaces matches inside the note's words, index or not.
    @Test func wordsOfScriptsWithoutSpacesMatchInsideWords() throws {
        let playground = try Playground()
        let deck = try Self.deck(playground)
        defer { try? deck.close() }
        try deck.updateSearchIndex()
        let japanese = try #require(try deck.search("日本語のテキスト", limit: nil).first?.id)
        for query in ["本語", "テキスト", "のテ", "日本", "本語 japanese", "本語 or zzz", "\"本語\""] {
            #expect(try deck.search(query, limit: nil).map(\.id) == [japanese], "\(query)")
        }
        #expect(try deck.search("本語 -japanese", limit: nil).isEmpty)
        #expect(try deck.search("語本", limit: nil).isEmpty)
        #expect(try deck.search("日本", limit: nil).count == 1, "the note's tag 日本 and its text: one note")
    }

    @Test func readingTheNotesFindsWhatTheIndexFindsInItsOrder() throws {
        let playground = try Playground()
        let deck = try Self.deck(playground)
        defer { try? deck.close() }
        #expect(try deck.hasPendingSearchIndex())
        var scanned: [String: [Int64]] = [:]
        for query in Self.queries {
            for limit in [nil, 3] as [Int?] {
                scanned["\(query)|\(limit ?? -1)"] = try deck.searchKeys(query, limit: limit, method: .readingNotes)
            }
        }
        #expect(try deck.hasPendingSearchIndex(), "reading the notes indexes nothing")
        try deck.updateSearchIndex()
        #expect(try !deck.hasPendingSearchIndex())
        var found = 0
        for query in Self.queries {
            for limit in [nil, 3] as [Int?] {
                let indexed = try deck.searchKeys(query, limit: limit, method: .index)
                #expect(scanned["\(query)|\(limit ?? -1)"] == indexed, "\(query) limit \(limit ?? -1)")
                found += indexed.count
            }
        }
        #expect(found > 300, "the queries find something")
        // And on the complete index, reading the notes still agrees.
        for query in ["12", "cafe", "front", "back"] {
            #expect(try deck.searchKeys(query, limit: nil, method: .readingNotes) == deck.searchKeys(query, limit: nil, method: .index), "\(query)")
        }
    }

    @Test func theIndexIsCaughtUpAPartAtATime() throws {
        let playground = try Playground()
        let deck = try Self.deck(playground)
        defer { try? deck.close() }
        let pending = try deck.unindexedNoteEstimate()
        #expect(pending == Int64(Self.notes.count + 150))
        var parts = 0
        while try deck.updateSearchIndex(notesPerTransaction: 40) { parts += 1 }
        #expect(parts == (Self.notes.count + 150 - 1) / 40)
        #expect(try !deck.hasPendingSearchIndex())
        #expect(try deck.unindexedNoteEstimate() == 0)
        #expect(deck.check().isEmpty, "\(deck.check())")
        #expect(try deck.search("number", limit: nil).count == 152)
    }

    /// The shortcut of reading the notes: an ASCII text that holds no term's first token, ASCII
    /// case folded, is left untokenized; anything else is tokenized.
    @Test func aTextHoldingNoTermIsLeftUntokenized() throws {
        let playground = try Playground()
        let deck = try Self.deck(playground)
        defer { try? deck.close() }
        try deck.container.withDatabase(for: DeckSchemaV2.Note.self) { (db: Database) throws in
            func holdsNoTerm(_ query: String, _ text: String) throws -> Bool {
                let scan = try SearchScan(query: try #require(try SearchQuery.parse(query)), db: db)
                var text = text
                return text.withUTF8 { scan.holdsNoTerm($0) }
            }
            #expect(try holdsNoTerm("cat", #"["a dog","x"]"#))
            #expect(try !holdsNoTerm("cat", #"["a CAT","x"]"#), "ASCII capitals fold")
            #expect(try !holdsNoTerm("cat", #"["concatenate"]"#), "a substring is enough to tokenize")
            #expect(try !holdsNoTerm("cat", #"["a cát"]"#), "text beyond ASCII is tokenized")
            #expect(try !holdsNoTerm("café", #"["a CAFE"]"#), "the term's tokens are folded as the index folds them")
            #expect(try !holdsNoTerm("日本", #"["x"]"#), "a term beyond ASCII: no shortcut")
            #expect(try holdsNoTerm("dog or cat", #"["a bird"]"#))
            #expect(try !holdsNoTerm("dog or cat", #"["a Dog"]"#))
            #expect(try !holdsNoTerm("bird -cat", #"["a cat"]"#))
        }
        #expect(SearchScan.contains(UnsafeBufferPointer(start: nil, count: 0), lowercasedASCII: []) == true)
        let bracket: [UInt8] = Array("[@".utf8)
        bracket.withUnsafeBufferPointer { raw in
            #expect(!SearchScan.contains(raw, lowercasedASCII: Array("{`".utf8)), "[ and @ are not capitals")
        }
        let word: [UInt8] = Array("xAbC".utf8)
        word.withUnsafeBufferPointer { raw in
            #expect(SearchScan.contains(raw, lowercasedASCII: Array("abc".utf8)))
            #expect(!SearchScan.contains(raw, lowercasedASCII: Array("abcd".utf8)))
            #expect(!SearchScan.contains(raw, lowercasedASCII: Array("ABC".utf8)), "the wanted bytes are lowercase already")
        }
    }

    @Test func theRawFieldsAreTokenizedOnlyWhenTheyAreTheIndexText() {
        func check(_ json: String) -> Bool {
            var json = json
            return json.withUTF8 { SearchScan.rawIsIndexText($0) }
        }
        #expect(check(#"["front of card 1","back 1"]"#))
        #expect(check(#"[]"#))
        #expect(check(#"["","x"]"#))
        #expect(check(#"["un café noir","x été y"]"#))
        #expect(!check(#"["Café"]"#), "plain text starts and ends with printable ASCII")
        #expect(!check(#"["a\"b"]"#))
        #expect(!check(#"["<b>x</b>"]"#))
        #expect(!check(#"["a &amp; b"]"#))
        #expect(!check(#"[" leading"]"#))
        #expect(!check(#"["two  spaces"]"#))
        #expect(!check(#"["a", "b"]"#))
        #expect(!check(#"["a"] "#))
        #expect(!check(#"["a""#))
        #expect(!check(#"{"a":1}"#))
    }
}
