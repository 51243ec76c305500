import DeckDocument
import Foundation
import Persistence
import Testing
@testable import Interchange

/// Updates on import of lossless JSON and of text with a GUID column (issue 15 item 2), in
/// Swift alone: a note whose GUID is in the deck is updated, left unchanged or skipped as
/// `--update` says, never added twice, and its cards keep their scheduling.
@Suite struct ImportUpdateTests {
    typealias V2 = DeckSchemaV2

    // MARK: Lossless JSON

    /// A deck of three Basic notes (one reviewed), exported as lossless JSON.
    static func exported(_ scratch: Scratch) throws -> (deck: DeckDocument, json: URL) {
        let source = try scratch.deck("Source.sampledeck")
        let basic = try source.stockNoteType(.basic)
        for (front, back) in [("chat", "cat"), ("chien", "dog"), ("oiseau", "bird")] {
            _ = try source.addNote(type: basic, fields: [front, back], tags: ["animals"])
        }
        try source.save()
        let json = scratch.file("deck.json")
        try DeckJSONExporter().export(source, to: json)
        let deck = try scratch.deck()
        let first = try DeckJSONImporter().importFile(at: json, into: deck)
        #expect(first.cardsAdded == 3)
        // A card with scheduling the deck made itself, which an update must keep.
        let card = try #require(try deck.mainContext.fetch(FetchDescriptor<V2.Card>()).first { $0.note?.fields.first == "chat" })
        card.type = .review
        card.queue = .review
        card.interval = 17
        card.due = 40
        card.repetitions = 3
        try deck.save()
        return (deck, json)
    }

    /// `json` with `edit` applied to its note whose first field is `front` (fields by name).
    static func edited(_ json: URL, to url: URL, _ edits: [(front: String, change: (inout [String: Any]) -> Void)]) throws {
        var file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        var notes = try #require(file["notes"] as? [[String: Any]])
        for (front, change) in edits {
            let index = try #require(notes.firstIndex { ($0["fields"] as? [String: String])?["Front"] == front })
            change(&notes[index])
        }
        file["notes"] = notes
        try JSONSerialization.data(withJSONObject: file).write(to: url)
    }

    static func set(_ name: String, _ value: String) -> (inout [String: Any]) -> Void {
        { note in
            var fields = note["fields"] as? [String: String] ?? [:]
            fields[name] = value
            note["fields"] = fields
        }
    }

    static func shiftModified(_ seconds: Double) -> (inout [String: Any]) -> Void {
        { note in note["modified"] = ((note["modified"] as? NSNumber)?.doubleValue ?? 0) + seconds }
    }

    static func fields(_ deck: DeckDocument) throws -> [String: [String]] {
        Dictionary(try deck.mainContext.fetch(FetchDescriptor<V2.Note>()).map { ($0.fields[0], $0.fields) }, uniquingKeysWith: { a, _ in a })
    }

    @Test func reimportingTheSameJSONChangesNothing() throws {
        let scratch = try Scratch()
        let (deck, json) = try Self.exported(scratch)
        let again = try DeckJSONImporter().importFile(at: json, into: deck)
        #expect(again.cardsAdded == 0)
        #expect(again.updates.unchanged == 3)
        #expect(again.updates.updated == 0 && again.updates.skipped == 0)
        #expect(try deck.mainContext.fetchCount(FetchDescriptor<V2.Note>()) == 3)
        #expect(try deck.mainContext.fetchCount(FetchDescriptor<V2.Card>()) == 3)
    }

    /// A newer edit (a field and a tag) is applied under newer and always, skipped under never;
    /// an older edit is applied only under always. The reviewed card keeps its scheduling.
    @Test(arguments: ImportUpdatePolicy.allCases)
    func editedJSONUpdatesByPolicy(_ policy: ImportUpdatePolicy) throws {
        let scratch = try Scratch()
        let (deck, json) = try Self.exported(scratch)
        let edited = scratch.file("edited.json")
        try Self.edited(json, to: edited, [
            ("chat", { note in Self.set("Back", "a kitten")(&note); Self.shiftModified(3600)(&note); note["tags"] = ["animals", "pets"] }),
            ("chien", { note in Self.set("Back", "an old dog")(&note); Self.shiftModified(-3600)(&note) }),
        ])
        let report = try DeckJSONImporter(update: policy).importFile(at: edited, into: deck)
        let fields = try Self.fields(deck)
        #expect(report.cardsAdded == 0)
        #expect(report.updates.unchanged == 1)
        switch policy {
        case .newer:
            #expect(report.updates.updated == 1)
            #expect(report.updates.skippedNotes.map(\.reason) == [.older])
            #expect(report.updates.skippedNotes.map(\.text) == ["chien"])
            #expect(fields["chat"] == ["chat", "a kitten"])
            #expect(fields["chien"] == ["chien", "dog"])
        case .always:
            #expect(report.updates.updated == 2 && report.updates.skipped == 0)
            #expect(fields["chat"] == ["chat", "a kitten"])
            #expect(fields["chien"] == ["chien", "an old dog"])
        case .never:
            #expect(report.updates.updated == 0)
            #expect(report.updates.skippedNotes.map(\.reason) == [.never, .never])
            #expect(fields["chat"] == ["chat", "cat"])
        }
        let notes = try deck.mainContext.fetch(FetchDescriptor<V2.Note>())
        #expect(notes.count == 3)
        let chat = try #require(notes.first { $0.fields[0] == "chat" })
        #expect(Set(chat.tags.map(\.name)) == (policy == .never ? ["animals"] : ["animals", "pets"]))
        let card = try #require(chat.cards.first)
        #expect(chat.cards.count == 1)
        #expect(card.interval == 17 && card.due == 40 && card.repetitions == 3 && card.queue == .review)
        // The search index follows the update.
        #expect(try deck.search("kitten", limit: nil).count == (policy == .never ? 0 : 1))
    }

    /// A JSON file whose Basic type has a renamed field: the type is added beside the deck's
    /// ("Basic (2)"), the notes already in the deck are skipped (note type), none added twice.
    @Test func changedNoteTypeSkipsItsNotes() throws {
        let scratch = try Scratch()
        let (deck, json) = try Self.exported(scratch)
        var file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        var types = try #require(file["noteTypes"] as? [[String: Any]])
        let basic = try #require(types.firstIndex { $0["name"] as? String == "Basic" })
        var fields = try #require(types[basic]["fields"] as? [[String: Any]])
        fields[1]["name"] = "Answer"
        types[basic]["fields"] = fields
        file["noteTypes"] = types
        var notes = try #require(file["notes"] as? [[String: Any]])
        for index in notes.indices {
            if var values = notes[index]["fields"] as? [String: String] {
                values["Answer"] = values.removeValue(forKey: "Back")
                notes[index]["fields"] = values
                notes[index]["modified"] = ((notes[index]["modified"] as? NSNumber)?.doubleValue ?? 0) + 3600
            }
        }
        file["notes"] = notes
        let changed = scratch.file("changed.json")
        try JSONSerialization.data(withJSONObject: file).write(to: changed)
        let report = try DeckJSONImporter().importFile(at: changed, into: deck)
        #expect(report.cardsAdded == 0)
        #expect(report.updates.skipped == 3)
        #expect(report.updates.skippedNotes.allSatisfy { $0.reason == .noteType })
        #expect(report.updates.noteTypes.contains(NoteTypeDecision(name: "Basic", action: .copied, deckName: "Basic (2)")))
        #expect(try deck.mainContext.fetchCount(FetchDescriptor<V2.Note>()) == 3)
    }

    // MARK: Text with a GUID column

    static let csv = "#separator:comma\n#guid column:1\n#tags column:4\ng1,chat,cat,animals\ng2,chien,dog,animals\n"

    static func write(_ text: String, to url: URL, modified: Date) throws {
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: url.path)
    }

    static func importText(_ url: URL, into deck: DeckDocument, _ policy: ImportUpdatePolicy = .newer) throws -> ImportSummary {
        try DeckInterchange.importFile(at: url, format: .csv, into: deck, update: policy)
    }

    @Test func reimportingTheSameCSVChangesNothing() throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        let file = scratch.file("vocab.csv")
        try Self.write(Self.csv, to: file, modified: Date().addingTimeInterval(-86_400))
        #expect(try Self.importText(file, into: deck).cardsAdded == 2)
        let again = try Self.importText(file, into: deck)
        #expect(again.cardsAdded == 0)
        #expect(again.updates.unchanged == 2)
        #expect(again.updates.updated + again.updates.skipped == 0)
        #expect(try deck.mainContext.fetchCount(FetchDescriptor<V2.Note>()) == 2)
    }

    /// A row edited in a file saved after the import updates under newer; a file older than the
    /// deck's notes is skipped under newer and applied under always; never skips.
    @Test(arguments: ImportUpdatePolicy.allCases, [true, false])
    func editedCSVUpdatesByPolicy(_ policy: ImportUpdatePolicy, _ fileIsNewer: Bool) throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        let file = scratch.file("vocab.csv")
        try Self.write(Self.csv, to: file, modified: Date())
        _ = try Self.importText(file, into: deck)
        let edited = Self.csv.replacingOccurrences(of: "g1,chat,cat,animals", with: "g1,chat,the cat,animals pets")
        try Self.write(edited, to: file, modified: Date().addingTimeInterval(fileIsNewer ? 3600 : -3600))
        let report = try Self.importText(file, into: deck, policy)
        let applied = policy == .always || (policy == .newer && fileIsNewer)
        #expect(report.cardsAdded == 0)
        #expect(report.updates.unchanged == 1)
        #expect(report.updates.updated == (applied ? 1 : 0))
        #expect(report.updates.skippedNotes.map(\.reason) == (applied ? [] : [policy == .never ? .never : .older]))
        let chat = try #require(try deck.mainContext.fetch(FetchDescriptor<V2.Note>()).first { $0.guid == "g1" })
        #expect(chat.fields == ["chat", applied ? "the cat" : "cat"])
        #expect(Set(chat.tags.map(\.name)) == (applied ? ["animals", "pets"] : ["animals"]))
        #expect(try deck.mainContext.fetchCount(FetchDescriptor<V2.Card>()) == 2)
    }

    /// A row naming another note type than the note's is skipped; a file without a tags column
    /// leaves the note's tags.
    @Test func textRowsKeepWhatTheFileDoesNotSay() throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        let file = scratch.file("vocab.csv")
        try Self.write(Self.csv, to: file, modified: Date())
        _ = try Self.importText(file, into: deck)
        let other = scratch.file("other.csv")
        try Self.write("#separator:comma\n#guid column:1\n#notetype:Cloze\ng1,{{c1::chat}},\n", to: other, modified: Date().addingTimeInterval(3600))
        let skipped = try Self.importText(other, into: deck)
        #expect(skipped.updates.skippedNotes.map(\.reason) == [.noteType])
        let untagged = scratch.file("untagged.csv")
        try Self.write("#separator:comma\n#guid column:1\ng2,chien,the dog\n", to: untagged, modified: Date().addingTimeInterval(3600))
        let updated = try Self.importText(untagged, into: deck)
        #expect(updated.updates.updated == 1)
        let dog = try #require(try deck.mainContext.fetch(FetchDescriptor<V2.Note>()).first { $0.guid == "g2" })
        #expect(dog.fields == ["chien", "the dog"])
        #expect(dog.tags.map(\.name) == ["animals"])
        #expect(try deck.mainContext.fetchCount(FetchDescriptor<V2.Note>()) == 2)
    }

    // MARK: Damaged options and unknown file times are errors, not guesses

    /// A stored note type whose options name `originalId` but are not JSON: matching an
    /// incoming type by its origin must refuse the deck, naming the row, not treat it as
    /// "no origin" (which would add a second copy and skip its notes).
    @Test func damagedStoredOptionsAreReportedNotIgnored() throws {
        let scratch = try Scratch()
        let deck = try scratch.deck()
        let record = ImportNoteType(name: "Vocab", kind: .standard, fields: [.init(name: "Front"), .init(name: "Back")],
                                    templates: [.init(name: "Card 1", questionFormat: "{{Front}}", answerFormat: "{{Back}}")])
        var incoming = record
        incoming.ankiID = 42
        try deck.bulkImport { session in _ = try session.importNoteType(record, policy: .newer) }
        let stored = try #require(try deck.mainContext.fetch(FetchDescriptor<V2.NoteType>()).first { $0.name == "Vocab" })
        stored.ankiOptions = #"{"originalId": 42"#
        try deck.save()
        #expect {
            try deck.bulkImport { session in _ = try session.importNoteType(incoming, policy: .newer) }
        } throws: { error in
            guard let error = error as? DeckError else { return false }
            return error.kind == .corrupt && error.reason.contains("Vocab") && error.reason.contains("ankiOptions")
        }
        // Intact options with that origin are matched: the copy is used, nothing is added.
        stored.ankiOptions = #"{"originalId": 42}"#
        try deck.save()
        try deck.bulkImport { session in _ = try session.importNoteType(incoming, policy: .newer) }
        #expect(try deck.mainContext.fetch(FetchDescriptor<V2.NoteType>()).filter { $0.name.hasPrefix("Vocab") }.count == 1)
    }

    /// `newer` for text compares the file's modification time: a file whose time can't be read
    /// is an error (missing: `missing`), never "now".
    @Test func aTextFileTimeIsReadOrRefused() throws {
        let scratch = try Scratch()
        let file = scratch.file("rows.csv")
        try Data("front,back\n".utf8).write(to: file)
        let past = Date(timeIntervalSince1970: 1_500_000_000)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: file.path)
        #expect(try DeckTextImporter.modificationDate(ofFileAt: file) == past)
        #expect {
            try DeckTextImporter.modificationDate(ofFileAt: scratch.file("absent.csv"))
        } throws: { error in
            (error as? InterchangeError)?.kind == .missing
        }
    }
}
