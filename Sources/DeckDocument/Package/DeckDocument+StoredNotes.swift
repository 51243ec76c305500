import CardTemplates
import Foundation
import Persistence
import SQLite

/// A saved note as plain values, with its cards and their reviews: what an export writes.
///
/// Values are the store's own (Anki's encodings: card type and queue numbers, `due` read by
/// the queue, ease in permille, review times in milliseconds), so a writer copies them as they
/// are. Keys (`pk`) are the store's row keys; ``noteTypeKey`` and the cards' deck keys refer to
/// the note types and decks of ``DeckDocument/noteTypes()`` and ``DeckDocument/decksByName()``.
public struct StoredNote: Sendable, Hashable {
    public var pk: Int64
    public var guid: String
    public var noteTypeKey: Int64
    /// One value per field of the note type, in ordinal order (HTML).
    public var fields: [String]
    public var created: Date
    public var modified: Date
    public var ankiID: Int64?
    /// Tag names, sorted.
    public var tags: [String]
    /// Every card of the note, by ordinal.
    public var cards: [StoredCard]
}

/// A saved card with its full scheduling state (the `Card` table's columns, docs/FORMAT.md).
public struct StoredCard: Sendable, Hashable {
    public var pk: Int64
    public var ordinal: Int
    public var deckKey: Int64
    /// While in a filtered deck: the deck it came from.
    public var originalDeckKey: Int64?
    /// Anki's card type number (0 new, 1 learning, 2 review, 3 relearning).
    public var type: Int
    /// Anki's queue number (−3…4).
    public var queue: Int
    public var due: Int64
    public var interval: Int
    public var easeFactor: Int
    public var repetitions: Int
    public var lapses: Int
    public var remainingSteps: Int
    public var originalDue: Int64
    public var flag: Int
    public var stability: Double?
    public var difficulty: Double?
    public var desiredRetention: Double?
    public var decay: Double?
    public var lastReview: Int64?
    public var originalPosition: Int64?
    /// `""` or a JSON object (Anki's `cd`), verbatim.
    public var customData: String
    public var created: Date
    public var modified: Date
    public var ankiID: Int64?
    /// Other keys of Anki's card `data`, a JSON object, verbatim.
    public var ankiOptions: String
    /// The card's reviews, oldest first.
    public var reviews: [StoredReview]
}

/// A saved review row (the `Review` table's columns).
public struct StoredReview: Sendable, Hashable {
    public var pk: Int64
    /// Milliseconds since 1970.
    public var time: Int64
    public var rating: Int
    public var interval: Int
    public var lastInterval: Int
    public var easeFactor: Int
    /// Milliseconds.
    public var duration: Int
    /// Anki's revlog type number (0 learn … 5 rescheduled).
    public var kind: Int
    /// Anki's revlog id when it differs from ``time``.
    public var ankiID: Int64?
}

extension DeckDocument {
    /// Every deck of the tree (normal and filtered), by name.
    /// - Throws: the store's error.
    public func decksByName() throws -> [DeckSchemaV2.Deck] {
        try requireOpen()
        return try mainContext.fetch(FetchDescriptor<DeckSchemaV2.Deck>(sortBy: [SortDescriptor(\.name)]))
    }

    /// Every preset, in the order they were made.
    /// - Throws: the store's error.
    public func allPresets() throws -> [DeckSchemaV2.Preset] {
        try requireOpen()
        return try mainContext.fetch(FetchDescriptor<DeckSchemaV2.Preset>()).sorted { $0.persistentModelID.primaryKey < $1.persistentModelID.primaryKey }
    }

    /// The deck's own row (title, day zero, day start, Anki's collection configuration), or nil in a store without one.
    /// - Throws: the store's error.
    public func deckInfo() throws -> DeckSchemaV2.DeckInfo? {
        try requireOpen()
        return try mainContext.fetch(FetchDescriptor<DeckSchemaV2.DeckInfo>()).min { $0.persistentModelID.primaryKey < $1.persistentModelID.primaryKey }
    }

    /// Calls `body` with every saved note, in key order, with its tags, every card (by
    /// ordinal) and every review of each card (oldest first).
    ///
    /// Streams: four ordered queries (notes, tags, cards, reviews) are walked side by side, so
    /// memory holds one note at a time whatever the size of the deck. Unsaved changes are not
    /// seen: save first.
    ///
    /// With `verifyingValues`, every row of `Note`, `Card` and `Review` is held to the value
    /// rules first, as ``verifyValues(_:)`` holds them (the same refusal, ``DeckError``
    /// `corrupt`, naming the row and column), but checked in Swift as the rows are read: the
    /// rules in SQL cost an export of 100,000 cards more than a third of its time. A row that
    /// looks wrong to those checks (stricter than the rules where a value is unusual: a JSON
    /// object other than `{}`) has the rules run in SQL over the three tables, which decide;
    /// rows the walk does not reach (cards without a note) are checked by SQL too. A refusal may
    /// come after `body` has seen earlier notes.
    /// - Throws: ``DeckError`` `corrupt` for a note whose fields are not a JSON array of strings
    ///   or, with `verifyingValues`, a value that breaks a rule; the store's error, or what
    ///   `body` throws (which stops the walk).
    public func forEachStoredNote(verifyingValues: Bool = false, _ body: (StoredNote) throws -> Void) throws {
        try requireOpen()
        try container.withDatabase(for: Note.self) { db in
            // Checked by the rules in SQL once something looks wrong (then nothing more is screened).
            var verified = !verifyingValues
            func verify() throws {
                guard !verified else { return }
                try DeckStoreV2.verifyValues(db, deck: url, tables: ["Note", "Card", "Review"])
                verified = true
            }
            var cardsSeen = 0, reviewsSeen = 0
            let notes = try db.prepare("""
                SELECT "pk", "guid", "noteType", "fields", "created", "modified", "ankiID", "sortText" FROM "Note" ORDER BY "pk"
                """)
            let tags = try db.prepare("""
                SELECT j."source", t."name" FROM "Note_tags" j JOIN "Tag" t ON t."pk" = j."target" ORDER BY j."source", t."name"
                """)
            let cards = try db.prepare("""
                SELECT "note", "pk", "ordinal", "deck", "originalDeck", "type", "queue", "due", "interval", "easeFactor", \
                "repetitions", "lapses", "remainingSteps", "originalDue", "flag", "stability", "difficulty", "desiredRetention", \
                "decay", "lastReview", "originalPosition", "customData", "created", "modified", "ankiID", "ankiOptions" \
                FROM "Card" WHERE "note" IS NOT NULL ORDER BY "note", "ordinal", "pk"
                """)
            let reviews = try db.prepare("""
                SELECT c."note", r."card", r."pk", r."time", r."rating", r."interval", r."lastInterval", r."easeFactor", \
                r."duration", r."kind", r."ankiID" FROM "Review" r JOIN "Card" c ON c."pk" = r."card" \
                ORDER BY c."note", r."card", r."time", r."pk"
                """)
            var hasTag = try tags.step(), hasCard = try cards.step(), hasReview = try reviews.step()
            func optionalDouble(_ s: Statement, _ i: Int32) -> Double? { s.isNull(at: i) ? nil : s.double(at: i) }
            func optionalInt(_ s: Statement, _ i: Int32) -> Int64? { s.isNull(at: i) ? nil : s.int64(at: i) }
            while try notes.step() {
                let pk = notes.int64(at: 0)
                let parsed = notes.isText(at: 3) ? JSONStringArray.parse(notes.string(at: 3)) : nil
                if !verified, parsed == nil || !StoredValueScreen.note(notes) { try verify() }
                guard let fields = parsed else {
                    throw DeckError(path: storeURL.path, reason: "note \(pk): fields is not a JSON array of strings", kind: .corrupt)
                }
                var note = StoredNote(pk: pk, guid: notes.string(at: 1), noteTypeKey: notes.int64(at: 2), fields: fields,
                                      created: Date(timeIntervalSince1970: notes.double(at: 4)),
                                      modified: Date(timeIntervalSince1970: notes.double(at: 5)),
                                      ankiID: optionalInt(notes, 6), tags: [], cards: [])
                // Rows of notes before this one (none in a consistent store) are skipped.
                while hasTag, tags.int64(at: 0) < pk { hasTag = try tags.step() }
                while hasTag, tags.int64(at: 0) == pk {
                    note.tags.append(tags.string(at: 1))
                    hasTag = try tags.step()
                }
                while hasCard, cards.int64(at: 0) < pk { hasCard = try cards.step() }
                while hasReview, reviews.int64(at: 0) < pk { hasReview = try reviews.step() }
                while hasCard, cards.int64(at: 0) == pk {
                    let s = cards
                    cardsSeen += 1
                    if !verified, !StoredValueScreen.card(s) { try verify() }
                    let card = StoredCard(
                        pk: s.int64(at: 1), ordinal: Int(s.int64(at: 2)), deckKey: s.int64(at: 3), originalDeckKey: optionalInt(s, 4),
                        type: Int(s.int64(at: 5)), queue: Int(s.int64(at: 6)), due: s.int64(at: 7), interval: Int(s.int64(at: 8)),
                        easeFactor: Int(s.int64(at: 9)), repetitions: Int(s.int64(at: 10)), lapses: Int(s.int64(at: 11)),
                        remainingSteps: Int(s.int64(at: 12)), originalDue: s.int64(at: 13), flag: Int(s.int64(at: 14)),
                        stability: optionalDouble(s, 15), difficulty: optionalDouble(s, 16), desiredRetention: optionalDouble(s, 17),
                        decay: optionalDouble(s, 18), lastReview: optionalInt(s, 19), originalPosition: optionalInt(s, 20),
                        customData: s.string(at: 21), created: Date(timeIntervalSince1970: s.double(at: 22)),
                        modified: Date(timeIntervalSince1970: s.double(at: 23)), ankiID: optionalInt(s, 24),
                        ankiOptions: s.string(at: 25), reviews: [])
                    note.cards.append(card)
                    hasCard = try cards.step()
                }
                while hasReview, reviews.int64(at: 0) == pk {
                    let s = reviews
                    reviewsSeen += 1
                    if !verified, !StoredValueScreen.review(s) { try verify() }
                    let cardKey = s.int64(at: 1)
                    let review = StoredReview(pk: s.int64(at: 2), time: s.int64(at: 3), rating: Int(s.int64(at: 4)),
                                              interval: Int(s.int64(at: 5)), lastInterval: Int(s.int64(at: 6)),
                                              easeFactor: Int(s.int64(at: 7)), duration: Int(s.int64(at: 8)),
                                              kind: Int(s.int64(at: 9)), ankiID: optionalInt(s, 10))
                    if let index = note.cards.firstIndex(where: { $0.pk == cardKey }) { note.cards[index].reviews.append(review) }
                    hasReview = try reviews.step()
                }
                try body(note)
            }
            // Cards and reviews the walk did not reach (no note, or a note that is not there).
            if !verified {
                let cardRows = try db.scalar("SELECT count(*) FROM \"Card\"", as: Int64.self) ?? 0
                let reviewRows = try db.scalar("SELECT count(*) FROM \"Review\"", as: Int64.self) ?? 0
                if cardRows != cardsSeen || reviewRows != reviewsSeen { try verify() }
            }
        }
    }
}

/// The value rules of `Note`, `Card` and `Review` (``DeckStoreV2/columnRules``) checked in Swift
/// on the rows ``DeckDocument/forEachStoredNote(verifyingValues:_:)`` reads, by their columns
/// there. Each check passes only values the rule passes; it may fail some that the rule passes
/// (JSON objects other than `{}`), which the rules in SQL then decide.
enum StoredValueScreen {
    static let secondsRange: Int64 = 253_402_300_800
    static let dates: ClosedRange<Double> = -62_135_596_800...253_402_300_800

    @inline(__always) static func integer(_ s: Statement, _ i: Int32, _ range: ClosedRange<Int64>) -> Bool {
        s.isInteger(at: i) && range.contains(s.int64(at: i))
    }
    @inline(__always) static func optionalInteger(_ s: Statement, _ i: Int32, _ range: ClosedRange<Int64> = Int64.min...Int64.max) -> Bool {
        s.isNull(at: i) || integer(s, i, range)
    }
    @inline(__always) static func date(_ s: Statement, _ i: Int32) -> Bool { s.isNumber(at: i) && dates.contains(s.double(at: i)) }
    @inline(__always) static func optionalNumber(_ s: Statement, _ i: Int32) -> Bool { s.isNull(at: i) || s.isNumber(at: i) }
    /// `{}` (or, where allowed, `""`): the JSON objects nearly every row holds; anything else goes to SQL.
    @inline(__always) static func plainObject(_ s: Statement, _ i: Int32, orEmpty: Bool) -> Bool {
        guard s.isText(at: i) else { return false }
        return s.withUTF8(at: i) { bytes in
            (bytes.count == 2 && bytes[0] == 0x7B && bytes[1] == 0x7D) || (orEmpty && bytes.isEmpty)
        }
    }

    /// `SELECT "pk", "guid", "noteType", "fields", "created", "modified", "ankiID", "sortText"`
    /// (`fields` is checked by its parse).
    static func note(_ s: Statement) -> Bool {
        guard s.isText(at: 1), s.isText(at: 7), date(s, 4), date(s, 5), optionalInteger(s, 6) else { return false }
        return s.withUTF8(at: 1) { guid in (1...64).contains(guid.count) && guid.allSatisfy { (0x21...0x7E).contains($0) } }
    }

    /// The card columns of ``DeckDocument/forEachStoredNote(verifyingValues:_:)``'s card query.
    static func card(_ s: Statement) -> Bool {
        let counts: ClosedRange<Int64> = 0...Int64(Int32.max)
        return integer(s, 2, 0...Int64(NoteLayout.maximumClozeOrdinal))
            && integer(s, 5, 0...3) && integer(s, 6, -3...4)
            && integer(s, 7, -secondsRange...secondsRange) && integer(s, 13, -secondsRange...secondsRange)
            && integer(s, 8, counts) && integer(s, 10, counts) && integer(s, 11, counts)
            && integer(s, 12, 0...Int64.max) && integer(s, 9, 0...100_000) && integer(s, 14, 0...7)
            && optionalNumber(s, 15) && optionalNumber(s, 18)
            && (s.isNull(at: 16) || (s.isNumber(at: 16) && (1.0...10.0).contains(s.double(at: 16))))
            && (s.isNull(at: 17) || (s.isNumber(at: 17) && s.double(at: 17) > 0 && s.double(at: 17) < 1))
            && optionalInteger(s, 19, -secondsRange...secondsRange) && optionalInteger(s, 20, 0...Int64.max)
            && plainObject(s, 21, orEmpty: true) && date(s, 22) && date(s, 23) && optionalInteger(s, 24)
            && plainObject(s, 25, orEmpty: false)
    }

    /// The review columns of the review query (`note, card, pk, time, rating, interval, lastInterval, easeFactor, duration, kind, ankiID`).
    static func review(_ s: Statement) -> Bool {
        let int32: ClosedRange<Int64> = Int64(Int32.min)...Int64(Int32.max)
        return integer(s, 3, -secondsRange * 1000...secondsRange * 1000) && integer(s, 4, 0...4)
            && integer(s, 5, int32) && integer(s, 6, int32) && integer(s, 7, 0...100_000)
            && integer(s, 8, 0...86_400_000) && integer(s, 9, 0...5) && optionalInteger(s, 10)
    }
}

/// A fast reader of the JSON arrays of strings `Note.fields` holds (JSONDecoder per note costs
/// more than the rest of an export's work on the note).
enum JSONStringArray {
    /// The JSON text of `values`, byte for byte what `JSONEncoder` (default options) writes for
    /// them (`["a","b\/c"]`: no spaces, `/` escaped, `\b \f \n \r \t` and `\u00XX` for
    /// the other control characters, everything else as UTF-8), without its per-value
    /// machinery: an import writes the fields of every note.
    static func encode(_ values: [String]) -> String {
        var out: [UInt8] = []
        encode(values, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// ``encode(_:)``'s text, appended as UTF-8 to `out` (a bulk import's row buffer).
    static func encode(_ values: [String], into out: inout [UInt8]) {
        out.reserveCapacity(out.count + values.reduce(2) { $0 + $1.utf8.count + 3 })
        out.append(0x5B)
        for (position, value) in values.enumerated() {
            if position > 0 { out.append(0x2C) }
            out.append(0x22)
            var value = value
            value.withUTF8 { bytes in
                var start = 0
                for index in 0..<bytes.count {
                    let byte = bytes[index]
                    guard byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x2F else { continue }
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                    start = index + 1
                    out.append(0x5C)
                    switch byte {
                    case 0x22, 0x5C, 0x2F: out.append(byte)
                    case 0x08: out.append(0x62)
                    case 0x0C: out.append(0x66)
                    case 0x0A: out.append(0x6E)
                    case 0x0D: out.append(0x72)
                    case 0x09: out.append(0x74)
                    default:
                        let digits: [UInt8] = Array("0123456789abcdef".utf8)
                        out.append(contentsOf: [0x75, 0x30, 0x30, digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
                    }
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]))
            }
            out.append(0x22)
        }
        out.append(0x5D)
    }

    /// The strings of `text`, or nil when it is not a JSON array of strings.
    static func parse(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            var i = 0
            let n = bytes.count
            func skipSpace() { while i < n, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 } }
            func hex4() -> UInt32? {
                guard i + 4 <= n else { return nil }
                var value: UInt32 = 0
                for _ in 0..<4 {
                    let c = bytes[i]
                    let digit: UInt32
                    switch c {
                    case 0x30...0x39: digit = UInt32(c - 0x30)
                    case 0x41...0x46: digit = UInt32(c - 0x41 + 10)
                    case 0x61...0x66: digit = UInt32(c - 0x61 + 10)
                    default: return nil
                    }
                    value = value << 4 | digit
                    i += 1
                }
                return value
            }
            func string() -> String? {
                guard i < n, bytes[i] == 0x22 else { return nil }
                i += 1
                let start = i
                // Fast path: no escapes.
                while i < n, bytes[i] != 0x22, bytes[i] != 0x5C, bytes[i] >= 0x20 { i += 1 }
                if i < n, bytes[i] == 0x22 {
                    let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
                    i += 1
                    return s
                }
                var out = Array(bytes[start..<i])
                while i < n {
                    let c = bytes[i]
                    if c == 0x22 { i += 1; return String(decoding: out, as: UTF8.self) }
                    if c < 0x20 { return nil }
                    if c != 0x5C { out.append(c); i += 1; continue }
                    i += 1
                    guard i < n else { return nil }
                    let e = bytes[i]
                    i += 1
                    switch e {
                    case 0x22, 0x5C, 0x2F: out.append(e)
                    case 0x62: out.append(0x08)
                    case 0x66: out.append(0x0C)
                    case 0x6E: out.append(0x0A)
                    case 0x72: out.append(0x0D)
                    case 0x74: out.append(0x09)
                    case 0x75:
                        guard var scalar = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard i + 1 < n, bytes[i] == 0x5C, bytes[i + 1] == 0x75 else { return nil }
                            i += 2
                            guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { return nil }
                        out.append(contentsOf: Array(String(Character(unicode)).utf8))
                    default: return nil
                    }
                }
                return nil
            }
            skipSpace()
            guard i < n, bytes[i] == 0x5B else { return nil }
            i += 1
            skipSpace()
            var result: [String] = []
            if i < n, bytes[i] == 0x5D {
                i += 1
            } else {
                while true {
                    skipSpace()
                    guard let s = string() else { return nil }
                    result.append(s)
                    skipSpace()
                    guard i < n else { return nil }
                    if bytes[i] == 0x2C { i += 1; continue }
                    if bytes[i] == 0x5D { i += 1; break }
                    return nil
                }
            }
            skipSpace()
            return i == n ? result : nil
        }
    }
}
