import Foundation
import Persistence
import SQLite

/// A row of a statement read with its types checked: a store edited outside SampleDeck that
/// holds a text where a number belongs (or NaN, or a blob) is refused naming table, column and key.
struct CheckedRow {
    let statement: Statement
    let table: String
    let path: String
    var key: Int64 = 0

    func fail(_ index: Int32, _ what: String) -> DeckError {
        DeckError(path: path, reason: "\(table).\(statement.columnName(at: index)) of \(table.lowercased()) \(key) is not \(what)", kind: .corrupt)
    }
    func int64(_ index: Int32) throws -> Int64 {
        guard statement.isInteger(at: index) else { throw fail(index, "an integer") }
        return statement.int64(at: index)
    }
    func int(_ index: Int32) throws -> Int { Int(try int64(index)) }
    func optionalInt64(_ index: Int32) throws -> Int64? { statement.isNull(at: index) ? nil : try int64(index) }
    func bool(_ index: Int32) throws -> Bool {
        let value = try int64(index)
        guard value == 0 || value == 1 else { throw fail(index, "0 or 1") }
        return value == 1
    }
    func double(_ index: Int32) throws -> Double {
        guard statement.isNumber(at: index) else { throw fail(index, "a number") }
        guard statement.double(at: index).isFinite else {
            throw DeckError(path: path, reason: "\(table).\(statement.columnName(at: index)) of \(table.lowercased()) \(key) is out of range", kind: .corrupt)
        }
        return statement.double(at: index)
    }
    func optionalDouble(_ index: Int32) throws -> Double? { statement.isNull(at: index) ? nil : try double(index) }
    func text(_ index: Int32) throws -> String {
        guard statement.isText(at: index) else { throw fail(index, "text") }
        return statement.string(at: index)
    }
}

extension DeckDocument {
    /// Everything of the deck but its notes, column for column, in key order (tags and media by
    /// name): the header of a lossless export. Reads the store (save first).
    /// - Throws: ``DeckError`` `corrupt` naming the column of a value of the wrong type; the store's error.
    public func contents() throws -> DeckContents {
        try requireOpen()
        let path = storeURL.path
        return try container.withDatabase(for: DeckSchemaV2.Note.self) { db in
            var contents = DeckContents(title: manifest.title)
            let info = try db.prepare("""
                SELECT "pk", "title", "deckDescription", "dayZero", "dayStartsAt", "ankiConfig" FROM "DeckInfo" ORDER BY "pk" LIMIT 1
                """)
            if try info.step() {
                var row = CheckedRow(statement: info, table: "DeckInfo", path: path)
                row.key = info.int64(at: 0)
                contents.description = try row.text(2)
                contents.dayZero = try row.int64(3)
                contents.dayStartsAt = try row.int(4)
                contents.ankiConfig = try row.text(5)
            }
            let presets = try db.prepare("""
                SELECT "pk", "name", "newPerDay", "reviewsPerDay", "learningSteps", "relearningSteps", "maximumInterval", "usesFSRS", \
                "fsrsParameters", "desiredRetention", "startingEase", "graduatingInterval", "easyInterval", "easyBonus", "hardMultiplier", \
                "intervalMultiplier", "lapseMultiplier", "minimumLapseInterval", "leechThreshold", "buryNewSiblings", "buryReviewSiblings", \
                "buryInterdaySiblings", "modified", "ankiID", "ankiOptions" FROM "Preset" ORDER BY "pk"
                """)
            while try presets.step() {
                var r = CheckedRow(statement: presets, table: "Preset", path: path)
                r.key = presets.int64(at: 0)
                contents.presets.append(PresetRecord(
                    id: r.key, name: try r.text(1), newPerDay: try r.int(2), reviewsPerDay: try r.int(3), learningSteps: try r.text(4),
                    relearningSteps: try r.text(5), maximumInterval: try r.int(6), usesFSRS: try r.bool(7), fsrsParameters: try r.text(8),
                    desiredRetention: try r.double(9), startingEase: try r.int(10), graduatingInterval: try r.int(11),
                    easyInterval: try r.int(12), easyBonus: try r.double(13), hardMultiplier: try r.double(14),
                    intervalMultiplier: try r.double(15), lapseMultiplier: try r.double(16), minimumLapseInterval: try r.int(17),
                    leechThreshold: try r.int(18), buryNewSiblings: try r.bool(19), buryReviewSiblings: try r.bool(20),
                    buryInterdaySiblings: try r.bool(21), modified: try r.double(22), ankiID: try r.optionalInt64(23),
                    ankiOptions: try r.text(24)))
            }
            let decks = try db.prepare("""
                SELECT "pk", "name", "kind", "deckDescription", "markdownDescription", "collapsed", "filterTerms", "reschedules", \
                "modified", "ankiID", "ankiOptions", "preset" FROM "Deck" ORDER BY "pk"
                """)
            while try decks.step() {
                var r = CheckedRow(statement: decks, table: "Deck", path: path)
                r.key = decks.int64(at: 0)
                contents.decks.append(DeckRecord(
                    id: r.key, name: try r.text(1), kind: try r.int(2), description: try r.text(3), markdownDescription: try r.bool(4),
                    collapsed: try r.bool(5), filterTerms: try r.text(6), reschedules: try r.bool(7), modified: try r.double(8),
                    ankiID: try r.optionalInt64(9), ankiOptions: try r.text(10), preset: try r.optionalInt64(11)))
            }
            var fields: [Int64: [FieldRecord]] = [:]
            let fieldRows = try db.prepare("""
                SELECT "pk", "ordinal", "name", "font", "fontSize", "rightToLeft", "sticky", "plainText", "collapsed", "excludeFromSearch", \
                "fieldDescription", "ankiID", "ankiOptions", "noteType" FROM "NoteField" WHERE "noteType" IS NOT NULL ORDER BY "noteType", "ordinal", "pk"
                """)
            while try fieldRows.step() {
                var r = CheckedRow(statement: fieldRows, table: "NoteField", path: path)
                r.key = fieldRows.int64(at: 0)
                fields[try r.int64(13), default: []].append(FieldRecord(
                    ordinal: try r.int(1), name: try r.text(2), font: try r.text(3), fontSize: try r.int(4), rightToLeft: try r.bool(5),
                    sticky: try r.bool(6), plainText: try r.bool(7), collapsed: try r.bool(8), excludeFromSearch: try r.bool(9),
                    description: try r.text(10), ankiID: try r.optionalInt64(11), ankiOptions: try r.text(12)))
            }
            var templates: [Int64: [TemplateRecord]] = [:]
            let templateRows = try db.prepare("""
                SELECT "pk", "ordinal", "name", "questionFormat", "answerFormat", "browserQuestionFormat", "browserAnswerFormat", \
                "browserFont", "browserFontSize", "modified", "ankiID", "ankiOptions", "targetDeck", "noteType" FROM "CardTemplate" \
                WHERE "noteType" IS NOT NULL ORDER BY "noteType", "ordinal", "pk"
                """)
            while try templateRows.step() {
                var r = CheckedRow(statement: templateRows, table: "CardTemplate", path: path)
                r.key = templateRows.int64(at: 0)
                templates[try r.int64(13), default: []].append(TemplateRecord(
                    ordinal: try r.int(1), name: try r.text(2), questionFormat: try r.text(3), answerFormat: try r.text(4),
                    browserQuestionFormat: try r.text(5), browserAnswerFormat: try r.text(6), browserFont: try r.text(7),
                    browserFontSize: try r.int(8), modified: try r.double(9), ankiID: try r.optionalInt64(10),
                    ankiOptions: try r.text(11), targetDeck: try r.optionalInt64(12)))
            }
            let types = try db.prepare("""
                SELECT "pk", "name", "kind", "stockKind", "css", "sortField", "latexPre", "latexPost", "latexSVG", "modified", "ankiID", \
                "ankiOptions" FROM "NoteType" ORDER BY "pk"
                """)
            while try types.step() {
                var r = CheckedRow(statement: types, table: "NoteType", path: path)
                r.key = types.int64(at: 0)
                contents.noteTypes.append(NoteTypeRecord(
                    id: r.key, name: try r.text(1), kind: try r.int(2), stockKind: try r.optionalInt64(3).map { Int($0) }, css: try r.text(4),
                    sortField: try r.int(5), latexPre: try r.text(6), latexPost: try r.text(7), latexSVG: try r.bool(8),
                    modified: try r.double(9), ankiID: try r.optionalInt64(10), ankiOptions: try r.text(11),
                    fields: fields[r.key] ?? [], templates: templates[r.key] ?? []))
            }
            let tags = try db.prepare("SELECT \"pk\", \"name\", \"collapsed\" FROM \"Tag\" ORDER BY \"name\"")
            while try tags.step() {
                var r = CheckedRow(statement: tags, table: "Tag", path: path)
                r.key = tags.int64(at: 0)
                contents.tags.append(TagRecord(name: try r.text(1), collapsed: try r.bool(2)))
            }
            var names: [Int64: [String]] = [:]
            let nameRows = try db.prepare("SELECT \"pk\", \"name\", \"file\" FROM \"MediaName\" WHERE \"file\" IS NOT NULL ORDER BY \"name\"")
            while try nameRows.step() {
                var r = CheckedRow(statement: nameRows, table: "MediaName", path: path)
                r.key = nameRows.int64(at: 0)
                names[try r.int64(2), default: []].append(try r.text(1))
            }
            let files = try db.prepare("SELECT \"pk\", \"fileName\", \"sha256\", \"sha1\", \"mime\", \"size\" FROM \"MediaFile\" ORDER BY \"fileName\"")
            while try files.step() {
                var r = CheckedRow(statement: files, table: "MediaFile", path: path)
                r.key = files.int64(at: 0)
                contents.media.append(MediaRecord(fileName: try r.text(1), sha256: try r.text(2), sha1: try r.text(3), mime: try r.text(4),
                                                  size: try r.int(5), names: names[r.key] ?? []))
            }
            let detached = try db.prepare("""
                SELECT "pk", "time", "rating", "interval", "lastInterval", "easeFactor", "duration", "kind", "ankiID" FROM "Review" \
                WHERE "card" IS NULL ORDER BY "time", "pk"
                """)
            while try detached.step() {
                contents.detachedReviews.append(try Self.review(detached, path: path))
            }
            return contents
        }
    }

    static func review(_ statement: Statement, path: String, offset: Int32 = 0) throws -> ReviewRecord {
        var r = CheckedRow(statement: statement, table: "Review", path: path)
        r.key = statement.int64(at: offset)
        return ReviewRecord(time: try r.int64(offset + 1), rating: try r.int(offset + 2), interval: try r.int(offset + 3),
                            lastInterval: try r.int(offset + 4), easeFactor: try r.int(offset + 5), duration: try r.int(offset + 6),
                            kind: try r.int(offset + 7), ankiID: try r.optionalInt64(offset + 8))
    }

    /// Calls `body` with every note in key order, with its cards (by ordinal) and each card's
    /// reviews (by time), column for column. Streams: five ordered statements are walked side
    /// by side, so memory holds one note at a time. Reads the store (save first).
    /// - Throws: ``DeckError`` `corrupt` naming the column of a value of the wrong type; what `body` throws.
    public func forEachNoteRecord(_ body: (NoteRecord) throws -> Void) throws {
        try requireOpen()
        let path = storeURL.path
        try container.withDatabase(for: DeckSchemaV2.Note.self) { db in
            let notes = try db.prepare("""
                SELECT "pk", "guid", "noteType", "fields", "sortText", "created", "modified", "ankiID" FROM "Note" ORDER BY "pk"
                """)
            let cards = try db.prepare("""
                SELECT "note", "pk", "ordinal", "deck", "originalDeck", "type", "queue", "due", "interval", "easeFactor", "repetitions", \
                "lapses", "remainingSteps", "originalDue", "flag", "stability", "difficulty", "desiredRetention", "decay", "lastReview", \
                "originalPosition", "customData", "created", "modified", "ankiID", "ankiOptions" FROM "Card" WHERE "note" IS NOT NULL \
                ORDER BY "note", "ordinal", "pk"
                """)
            let reviews = try db.prepare("""
                SELECT r."card", r."pk", r."time", r."rating", r."interval", r."lastInterval", r."easeFactor", r."duration", r."kind", \
                r."ankiID" FROM "Review" r JOIN "Card" c ON c."pk" = r."card" WHERE c."note" IS NOT NULL \
                ORDER BY c."note", c."ordinal", c."pk", r."time", r."pk"
                """)
            let tags = try db.prepare("""
                SELECT j."source", t."name" FROM "Note_tags" j JOIN "Tag" t ON t."pk" = j."target" ORDER BY j."source", t."name"
                """)
            let media = try db.prepare("""
                SELECT j."source", m."name" FROM "Note_media" j JOIN "MediaName" m ON m."pk" = j."target" ORDER BY j."source", m."name"
                """)
            var cardsLeft = try cards.step(), reviewsLeft = try reviews.step(), tagsLeft = try tags.step(), mediaLeft = try media.step()
            let decoder = JSONDecoder()
            while try notes.step() {
                var r = CheckedRow(statement: notes, table: "Note", path: path)
                r.key = notes.int64(at: 0)
                let key = r.key
                guard let fields = try? decoder.decode([String].self, from: Data(try r.text(3).utf8)) else {
                    throw DeckError(path: path, reason: "note \(key): fields is not a JSON array of strings", kind: .corrupt)
                }
                var record = NoteRecord(id: key, guid: try r.text(1), noteType: try r.int64(2), fields: fields, sortText: try r.text(4),
                                        created: try r.double(5), modified: try r.double(6), ankiID: try r.optionalInt64(7),
                                        tags: [], media: [], cards: [])
                while tagsLeft, tags.int64(at: 0) <= key {
                    if tags.int64(at: 0) == key { record.tags.append(try CheckedRow(statement: tags, table: "Tag", path: path).text(1)) }
                    tagsLeft = try tags.step()
                }
                while mediaLeft, media.int64(at: 0) <= key {
                    if media.int64(at: 0) == key { record.media.append(try CheckedRow(statement: media, table: "MediaName", path: path).text(1)) }
                    mediaLeft = try media.step()
                }
                while cardsLeft, cards.int64(at: 0) <= key {
                    if cards.int64(at: 0) < key {
                        // A card of a missing note: its reviews are passed over with it.
                        while reviewsLeft, reviews.int64(at: 0) == cards.int64(at: 1) { reviewsLeft = try reviews.step() }
                    } else {
                        var c = CheckedRow(statement: cards, table: "Card", path: path)
                        c.key = cards.int64(at: 1)
                        var card = CardRecord(
                            id: c.key, ordinal: try c.int(2), deck: try c.optionalInt64(3), originalDeck: try c.optionalInt64(4),
                            type: try c.int(5), queue: try c.int(6), due: try c.int64(7), interval: try c.int(8), easeFactor: try c.int(9),
                            repetitions: try c.int(10), lapses: try c.int(11), remainingSteps: try c.int(12), originalDue: try c.int64(13),
                            flag: try c.int(14), stability: try c.optionalDouble(15), difficulty: try c.optionalDouble(16),
                            desiredRetention: try c.optionalDouble(17), decay: try c.optionalDouble(18), lastReview: try c.optionalInt64(19),
                            originalPosition: try c.optionalInt64(20), customData: try c.text(21), created: try c.double(22),
                            modified: try c.double(23), ankiID: try c.optionalInt64(24), ankiOptions: try c.text(25), reviews: [])
                        // Reviews come in the cards' order: those of this card are next.
                        while reviewsLeft, reviews.int64(at: 0) == card.id {
                            card.reviews.append(try Self.review(reviews, path: path, offset: 1))
                            reviewsLeft = try reviews.step()
                        }
                        record.cards.append(card)
                    }
                    cardsLeft = try cards.step()
                }
                try body(record)
            }
        }
    }
}
