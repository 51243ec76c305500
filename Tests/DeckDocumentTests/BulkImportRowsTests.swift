import Foundation
import SQLite
import Testing
@testable import DeckDocument

/// Bulk imports write their rows in groups (``RowBatch``), and into a deck without notes with
/// foreign keys checked at the end (``DeckDocument/ForeignKeyChecking``): what they store must
/// be what a statement per row with SQLite's checks stored, and what is pending must be
/// written before anything reads it.
@Suite struct BulkImportRowsTests {
    static let tables = ["Note", "Card", "Review", "Tag", "Note_tags", "Note_media"]

    /// Fields that need every kind of JSON escape.
    static func fields(_ index: Int) -> [String] {
        ["front \(index) \"quoted\" a/b \\ back\\slash", "back \(index)\n\t\u{1}\u{1F}é😀 <b>bold</b>"]
    }

    /// The same notes, cards, reviews, tags and media links imported twice (new notes, then
    /// updates mixed with new notes), a row per statement with SQLite's foreign key checks, in
    /// groups as imports run by default (the first import into a deck without notes: foreign
    /// keys checked at the end), and in groups with foreign keys checked at the end both times,
    /// leave the same rows in every table the imports write.
    @Test func groupedRowsStoreWhatSingleRowsStore() throws {
        let playground = try Playground()
        var dumps: [[String: [[SQLValue]]]] = []
        var randomGUIDs: [[String]] = []
        let ways: [(rows: Int?, foreignKeys: DeckDocument.ForeignKeyChecking?)] = [(1, .everyRow), (nil, nil), (nil, .atEnd)]
        for (way, (rows, foreignKeys)) in ways.enumerated() {
            let url = playground.file("deck-\(way).sampledeck")
            let deck = try DeckDocument.create(at: url, title: "Rows")
            _ = try deck.addMedia(Data("one".utf8), originalName: "one.png")
            _ = try deck.addMedia(Data("two".utf8), originalName: "two.png")
            try deck.save()
            let when = Date(timeIntervalSince1970: 1_700_000_000)
            try deck.bulkImport(rowsPerStatement: rows, foreignKeys: foreignKeys) { session in
                let typeKey = try Self.addNoteType(session, when: when)
                let deckKey = try session.addDeck(ImportDeck(name: "Languages::French"))
                for index in 0..<300 {
                    // Basic notes (a fifth without a GUID: a random one), with reviews now and then.
                    let note = ImportedNote(kind: index % 7 == 0 ? .reversible : .basic, front: Self.fields(index)[0],
                                            back: Self.fields(index)[1], created: when.addingTimeInterval(Double(index)))
                    note.ankiGUID = index % 5 == 0 ? nil : "basic-\(index)"
                    note.deckPath = index % 3 == 0 ? "Languages::French" : nil
                    if index % 4 == 0 {
                        note.due = when.addingTimeInterval(86_400 * Double(index % 30))
                        note.interval = index % 30
                        note.repetitions = 2
                    }
                    let reviews = index % 4 == 0
                        ? [ReviewSnapshot(date: when.addingTimeInterval(-86_400), ease: 3, interval: 1, duration: 4.5),
                           ReviewSnapshot(date: when.addingTimeInterval(-3_600), ease: 2, interval: 3, duration: 2)] : []
                    let tags = ["Animals", " animals", "tag\(index % 13)", "ANIMALS\n", "", "lang::fr"]
                    try session.add(note, tags: Array(tags.prefix(index % 7)), media: index % 2 == 0 ? ["one.png"] : ["two.png", "one.png"],
                                    reviews: reviews)
                    // Records (an Anki package's notes) between them.
                    if index % 2 == 0 { try session.add(Self.record(index, typeKey: typeKey, deck: deckKey, when: when)) }
                }
            }
            // A second import: updates of notes already there, mixed with new notes.
            try deck.bulkImport(rowsPerStatement: rows, foreignKeys: foreignKeys) { session in
                let typeKey = try Self.addNoteType(session, when: when)
                let deckKey = try session.addDeck(ImportDeck(name: "Languages::French"))
                for index in 0..<200 {
                    var record = Self.record(index, typeKey: typeKey, deck: deckKey, when: when.addingTimeInterval(86_400))
                    record.fields[0] += " (edited)"
                    if index % 3 == 0 { record.cards.append(ImportCard(ordinal: 2, deck: deckKey, created: when, modified: when)) }
                    if let saved = try session.savedNote(guid: record.guid) {
                        _ = try session.update(saved, with: record, policy: .always)
                    } else {
                        try session.add(record)
                        // What this import added is found by its GUID at once, written or not.
                        #expect(try session.savedNote(guid: record.guid) != nil)
                    }
                    if let saved = try session.savedNote(guid: "basic-\(index + 1)") {
                        _ = try session.update(saved, fields: ["updated \(index)", nil], noteTypeName: nil, tags: ["updated"],
                                               modified: when.addingTimeInterval(86_400), policy: .always)
                    }
                    let note = ImportedNote(kind: .cloze, front: "{{c1::new}} \(index) {{c2::two}}", back: "", created: when)
                    note.ankiGUID = "second-\(index)"
                    try session.add(note, tags: ["second"])
                }
            }
            try deck.close()
            let (dump, random) = try Self.dump(url.appendingPathComponent(DeckManifest.defaultStoreName))
            dumps.append(dump)
            randomGUIDs.append(random)
        }
        for table in Self.tables {
            for way in 1..<ways.count { #expect(dumps[0][table] == dumps[way][table], "\(table) differs in way \(way)") }
            #expect(dumps[1][table]?.isEmpty == false, "\(table) is empty")
        }
        // The random GUIDs: Anki's form, all different.
        for guids in randomGUIDs {
            #expect(guids.count == 60)
            #expect(Set(guids).count == guids.count)
            #expect(guids.allSatisfy { (1...10).contains($0.count) && $0.allSatisfy(AnkiGUID.alphabet.contains) })
        }
    }

    static func addNoteType(_ session: BulkImport, when: Date) throws -> Int64 {
        var type = ImportNoteType(name: "Vocabulary", kind: .standard,
                                  fields: [.init(name: "Word"), .init(name: "Meaning"), .init(name: "Extra")],
                                  templates: [.init(name: "Forward", questionFormat: "{{Word}}", answerFormat: "{{Meaning}}"),
                                              .init(name: "Backward", questionFormat: "{{Meaning}}", answerFormat: "{{Word}}"),
                                              .init(name: "Extra", questionFormat: "{{#Extra}}{{Extra}}{{/Extra}}", answerFormat: "{{Word}}")])
        type.ankiID = 1_600_000_000_000
        type.modified = when
        return try session.importNoteType(type, policy: .always).key
    }

    static func record(_ index: Int, typeKey: Int64, deck: Int64, when: Date) -> ImportNote {
        var note = ImportNote(noteType: typeKey, guid: "record-\(index)", fields: fields(index) + ["extra \(index)"],
                              created: when, modified: when.addingTimeInterval(Double(index)))
        note.ankiID = 1_650_000_000_000 + Int64(index)
        note.tags = ["Record", "record", "set\(index % 5)"]
        note.media = index % 3 == 0 ? ["two.png"] : []
        for ordinal in 0..<2 {
            var card = ImportCard(ordinal: ordinal, deck: deck, created: when, modified: when)
            card.type = .review
            card.queue = index % 10 == 0 ? .suspended : .review
            card.due = Int64(index)
            card.interval = index
            card.easeFactor = 2500
            card.stability = index % 2 == 0 ? Double(index) / 3 : nil
            card.customData = index % 4 == 0 ? #"{"v":1}"# : ""
            card.ankiID = 1_650_000_000_000 + Int64(index * 2 + ordinal)
            card.reviews = (0..<(index % 4)).map {
                ImportReview(time: 1_690_000_000_000 + Int64(index * 10 + $0), rating: 3, interval: $0, lastInterval: 0,
                             easeFactor: 2500, duration: 1200, kind: .review)
            }
            note.cards.append(card)
        }
        return note
    }

    /// Every row of the import's tables in key order; GUIDs the import made (not `basic-…`,
    /// `record-…`, `second-…`) are blanked in the rows and returned apart.
    static func dump(_ store: URL) throws -> ([String: [[SQLValue]]], [String]) {
        let db = try Database(path: store.path, mode: .readOnly)
        defer { db.close() }
        var result: [String: [[SQLValue]]] = [:]
        var random: [String] = []
        for table in tables {
            var rows = try db.rows("SELECT * FROM \(quoteIdentifier(table)) ORDER BY 1, 2")
            if table == "Note" {
                let guid = try db.columns(of: "Note").firstIndex(of: "guid") ?? -1
                for index in rows.indices {
                    guard case .text(let value) = rows[index][guid] else { continue }
                    if !value.hasPrefix("basic-") && !value.hasPrefix("record-") && !value.hasPrefix("second-") {
                        random.append(value)
                        rows[index][guid] = .text("")
                    }
                }
            }
            result[table] = rows
        }
        return (result, random)
    }
}
