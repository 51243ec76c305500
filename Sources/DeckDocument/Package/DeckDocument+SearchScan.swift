import CardTemplates
import Foundation
import SQLite

/// The tokens of one column of one note as the index stores them: one flat buffer of their
/// bytes and where each ends.
struct TokenList {
    private(set) var bytes: [UInt8] = []
    private(set) var ends: [Int] = []

    var count: Int { ends.count }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }

    mutating func append(_ token: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: token)
        ends.append(bytes.count)
    }

    mutating func append(_ other: TokenList) {
        let base = bytes.count
        bytes.append(contentsOf: other.bytes)
        ends.append(contentsOf: other.ends.map { $0 + base })
    }

    /// How many times `pattern` occurs: at each position where the next tokens match its
    /// tokens, each as its ``SearchPattern/Match`` says — for words and phrases without
    /// ``SearchPattern/Match/inside``, FTS5's instances of the phrase `"…"*` or `"…"`.
    func instances(of pattern: SearchPattern) -> Int {
        let length = pattern.tokens.count
        guard length > 0, count >= length else { return 0 }
        return bytes.withUnsafeBufferPointer { all in
            var found = 0
            for start in 0...(count - length) {
                var matches = true
                for offset in 0..<length {
                    let index = start + offset
                    let low = index == 0 ? 0 : ends[index - 1]
                    if !pattern.matches(UnsafeBufferPointer(rebasing: all[low..<ends[index]]), at: offset) {
                        matches = false
                        break
                    }
                }
                if matches { found += 1 }
            }
            return found
        }
    }
}

/// The tokens of a word or phrase of a search, each with how it matches a note's token.
struct SearchPattern {
    enum Match {
        /// The same token.
        case whole
        /// A token that begins with it (a word's last token, as FTS5's `*`).
        case prefix
        /// A token that holds it (a token of a script written without spaces).
        case inside
    }

    let tokens: [[UInt8]]
    /// How each token matches.
    let modes: [Match]

    init(_ term: SearchQuery.Term, tokenizer: FTS5Tokenizer) throws {
        tokens = try tokenizer.tokens(of: term.text)
        let tokens = tokens
        modes = tokens.indices.map { index in
            if term.matchesInsideWords, String(decoding: tokens[index], as: UTF8.self).unicodeScalars.contains(where: SearchQuery.isUnspacedScript) {
                return .inside
            }
            return !term.isPhrase && index == tokens.count - 1 ? .prefix : .whole
        }
    }

    var isEmpty: Bool { tokens.isEmpty }

    func matches(_ token: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        let wanted = tokens[offset]
        switch modes[offset] {
        case .whole:
            return token.count == wanted.count && Self.same(token, from: 0, wanted)
        case .prefix:
            return token.count >= wanted.count && Self.same(token, from: 0, wanted)
        case .inside:
            guard token.count >= wanted.count else { return false }
            for start in 0...(token.count - wanted.count) where Self.same(token, from: start, wanted) { return true }
            return false
        }
    }

    /// Whether `token` holds the bytes of `wanted` from `start` on (the caller checked the length).
    private static func same(_ token: UnsafeBufferPointer<UInt8>, from start: Int, _ wanted: [UInt8]) -> Bool {
        for position in wanted.indices where token[start + position] != wanted[position] { return false }
        return true
    }
}

/// A full-text search answered by reading every note instead of the index: what
/// ``DeckDocument/searchKeys(_:limit:)`` does while a large import's notes are not indexed yet
/// (indexing a million notes costs FTS5 seconds; reading them, a fraction of one).
///
/// It finds what the index would find once complete, in the same order: the notes are split
/// into tokens by FTS5's own tokenizer (`unicode61 remove_diacritics 2`, as the index is made),
/// each word of the query matches as FTS5 matches the phrase `"word"*` (its tokens in a row in
/// one column, the last as a prefix) and each quoted phrase as `"phrase"`, the query's `or`,
/// `-` and groups combine them as FTS5's `OR`, `NOT` and parentheses do, and matches are ranked
/// as the index ranks them (``Database/registerSearchRankFunction()``: bm25's saturated phrase
/// frequency, k1 = 1.2, without document length; for several terms each weighted by bm25's IDF
/// over every note, its fields and tags; every word and phrase of the query a phrase of its own),
/// then by key. One difference remains:
/// a word of several tokens spanning two tags matches here with the tags in key order, in the
/// index in the order they were written. It also answers what the index can't: a word of a
/// script written without spaces matches inside the note's tokens (``SearchPattern/Match/inside``).
struct SearchScan {
    let query: SearchQuery
    /// The tokens of each term of the query (a term without any is no condition, as in FTS5).
    let phrases: [SearchPattern]
    let tokenizer: FTS5Tokenizer

    /// The first token of every term that has tokens, when each is ASCII: then a note whose
    /// text is ASCII and holds none of them (ASCII case ignored) has no token any term matches
    /// (FTS5's tokenizer only folds the case of ASCII text, and a term's first token must match a
    /// note's token whole or as its prefix), and is left untokenized. Nil when a term begins with
    /// a token beyond ASCII (folded from other spellings, or matching inside words).
    let asciiFirstTokens: [[UInt8]]?

    init(query: SearchQuery, db: Database) throws {
        let tokenizer = try db.fts5Tokenizer("unicode61", arguments: ["remove_diacritics", "2"])
        self.tokenizer = tokenizer
        self.query = query
        phrases = try query.terms.map { try SearchPattern($0, tokenizer: tokenizer) }
        let firsts = phrases.compactMap(\.tokens.first)
        asciiFirstTokens = firsts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0 < 0x80 } } ? firsts : nil
    }

    /// Whether `raw`, an index text as it is (``rawIsIndexText(_:)``), is ASCII and holds none
    /// of ``asciiFirstTokens``, ASCII case ignored: then no term can match a token of it.
    func holdsNoTerm(_ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let tokens = asciiFirstTokens else { return false }
        for byte in raw where byte >= 0x80 { return false }
        return !tokens.contains { Self.contains(raw, lowercasedASCII: $0) }
    }

    /// Whether `raw` holds `wanted` (bytes without ASCII capitals) with its ASCII capitals folded.
    static func contains(_ raw: UnsafeBufferPointer<UInt8>, lowercasedASCII wanted: [UInt8]) -> Bool {
        let length = wanted.count
        guard length > 0, raw.count >= length else { return length == 0 }
        return wanted.withUnsafeBufferPointer { wanted in
            let first = wanted[0]
            for start in 0...(raw.count - length) where fold(raw[start]) == first {
                var offset = 1
                while offset < length, fold(raw[start + offset]) == wanted[offset] { offset += 1 }
                if offset == length { return true }
            }
            return false
        }
    }

    @inline(__always) private static func fold(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// The keys of the matching notes, best first, at most `limit`.
    /// - Throws: ``DeckError`` `corrupt` naming a note whose fields are not a JSON array of
    ///   strings (the index's catch-up refuses it too); the store's error.
    func noteKeys(limit: Int?, db: Database, path: String) throws -> [Int64] {
        guard phrases.contains(where: { !$0.isEmpty }) else { return [] }
        let conjunction = query.isConjunction
        var tagTokens: [Int64: TokenList] = [:]
        let tags = try db.prepare(#"SELECT "pk", "name" FROM main."Tag""#)
        while try tags.step() {
            var list = TokenList()
            if tags.isText(at: 1) { try tags.withUTF8(at: 1) { try tokenizer.tokenize($0) { list.append($0) } } }
            tagTokens[tags.int64(at: 0)] = list
        }
        let notes = try db.prepare(#"SELECT "pk", "fields" FROM main."Note" ORDER BY "pk""#)
        let links = try db.prepare(#"SELECT "source", "target" FROM main."Note_tags" ORDER BY "source", "target""#)
        var link: (source: Int64, target: Int64)? = try links.step() ? (links.int64(at: 0), links.int64(at: 1)) : nil
        var fields = TokenList()
        var tagList = TokenList()
        var rows: Int64 = 0
        var hits = [Int64](repeating: 0, count: phrases.count)
        var frequencies = [Int](repeating: 0, count: phrases.count)
        var matched: [(key: Int64, frequencies: [Int])] = []
        while try notes.step() {
            let key = notes.int64(at: 0)
            fields.removeAll()
            tagList.removeAll()
            guard notes.isText(at: 1) else { throw Self.corrupt(key, path) }
            let indexedRaw = try notes.withUTF8(at: 1) { raw -> Bool in
                guard Self.rawIsIndexText(raw) else { return false }
                // Its tokens would match no term: it counts as a note with no match in its fields.
                if holdsNoTerm(raw) { return true }
                try tokenizer.tokenize(raw) { fields.append($0) }
                return true
            }
            if !indexedRaw {
                guard let values = JSONStringArray.parse(notes.string(at: 1)) else { throw Self.corrupt(key, path) }
                var text = DeckStoreV2.searchText(ofFields: values)
                try text.withUTF8 { try tokenizer.tokenize($0) { fields.append($0) } }
            }
            while let current = link, current.source <= key {
                if current.source == key, let tokens = tagTokens[current.target] { tagList.append(tokens) }
                link = try links.step() ? (links.int64(at: 0), links.int64(at: 1)) : nil
            }
            rows += 1
            var all = true
            for (index, phrase) in phrases.enumerated() {
                guard !phrase.isEmpty else { frequencies[index] = 0; continue }
                let count = fields.instances(of: phrase) + tagList.instances(of: phrase)
                frequencies[index] = count
                if count > 0 { hits[index] += 1 } else { all = false }
            }
            if !conjunction {
                all = query.matches(query.root) { frequencies[$0] > 0 || phrases[$0].isEmpty }
            }
            if all { matched.append((key, frequencies)) }
        }
        guard rows > 0, !matched.isEmpty else { return [] }
        // The index's rank, with the same expressions, so equal scores tie as they do there.
        let idf = phrases.count > 1 ? hits.map { Database.searchRankIDF(rows: rows, hits: $0) } : [1]
        var scored: [(score: Double, key: Int64)] = matched.map { match in
            var score = 0.0
            for index in phrases.indices {
                score += Database.searchRank(frequency: Double(match.frequencies[index]), idf: idf[index])
            }
            return (-1.0 * score, match.key)
        }
        scored.sort { $0.score != $1.score ? $0.score < $1.score : $0.key < $1.key }
        let kept = limit.map { scored.prefix(max($0, 0)) } ?? scored[...]
        return kept.map(\.key)
    }

    static func corrupt(_ key: Int64, _ path: String) -> DeckError {
        DeckError(path: path, reason: "note \(key): fields is not a JSON array of strings", kind: .corrupt)
    }

    /// Whether the stored JSON of a note's fields splits into the same tokens as the text the
    /// index holds for them (``DeckStoreV2/searchText(ofFields:)``), so it can be tokenized as
    /// it is: a JSON array of strings without escapes, each field already plain text
    /// (`FieldText.isPlainAlready`). Its brackets, quotes and commas separate tokens as the line
    /// feeds between the fields do.
    static func rawIsIndexText(_ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = raw.count
        guard n >= 2, raw[0] == 0x5B, raw[n - 1] == 0x5D else { return false }
        if n == 2 { return true }
        var i = 1
        while true {
            guard i < n, raw[i] == 0x22 else { return false }
            i += 1
            let start = i
            var previous: UInt8 = 0
            while i < n, raw[i] != 0x22 {
                switch raw[i] {
                case 0x00..<0x20, 0x3C, 0x26, 0x5C, 0x7F: return false
                case 0x20 where previous == 0x20: return false
                case 0xA0 where previous == 0xC2: return false
                default: previous = raw[i]
                }
                i += 1
            }
            guard i < n else { return false }
            if i > start {
                guard (0x21...0x7E).contains(raw[start]), (0x21...0x7E).contains(raw[i - 1]) else { return false }
            }
            i += 1
            guard i < n else { return false }
            if raw[i] == 0x2C { i += 1; continue }
            return raw[i] == 0x5D && i == n - 1
        }
    }
}
