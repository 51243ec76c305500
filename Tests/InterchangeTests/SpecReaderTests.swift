import DeckDocument
import Digest
import Foundation
import Interchange
import Persistence
import Scheduling
import Study
import Testing

/// docs/FORMAT.md as a stranger reads it: Peers/spec_reader.py, written from the specification
/// alone (FORMAT.md, Schemas/store.sql, the manifest's schema, sampledeck(5)), reads decks the
/// library wrote and must see what the library sees through its models: notes, fields, cards,
/// decks, presets, scheduling, reviews, media. Where the two differ, FORMAT.md and the store have
/// drifted apart (or the reader is wrong), and a test here fails.
///
/// Fails (not skips) when python3 or the `anki` package is missing: `make pydeps` installs them.
@Suite(.tags(.interop)) struct SpecReaderTests {
    typealias V2 = DeckSchemaV2

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Peers").appendingPathComponent("spec_reader.py")

    /// The reader's verdict on a package: its exit status, the JSON it printed (when 0), stderr.
    /// Day numbers are read in UTC (`--utc-offset 0`), as the comparisons below count them.
    static func read(_ package: URL) throws -> (status: Int32, document: [String: Any], stderr: String) {
        let run = try runProgram("/usr/bin/env", ["python3", script.path, "--utc-offset", "0", package.path])
        guard run.status == 0 else { return (run.status, [:], run.stderr) }
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any],
                                    "spec_reader.py printed no JSON object: \(run.stderr)")
        return (0, document, run.stderr)
    }

    /// Every package kind current Anki writes (schema 18 and schema 11), imported by the library,
    /// read by the spec reader: the same deck, value for value.
    @Test(arguments: ["current.apkg", "legacy1.apkg"])
    func anAnkiPackageImportedHereReadsTheSameFromTheSpec(_ package: String) throws {
        let (folder, truth) = try AnkiPeerCollection.built()
        let scratch = try Scratch()
        let url = scratch.file("Anki.sampledeck")
        let deck = try DeckDocument.create(at: url, title: "Anki")
        _ = try AnkiImporter().importPackage(at: folder.appendingPathComponent(package), into: deck)
        try deck.close()

        let read = try Self.read(url)
        try #require(read.status == 0, "spec_reader.py refused the deck: \(read.stderr)")
        let problems = try Self.differences(read.document, url)
        #expect(problems.isEmpty, "\(problems.prefix(20).joined(separator: "\n"))")
        // What the reader saw is the peer's collection, in size and in what matters most.
        let notes = read.document["notes"] as? [[String: Any]] ?? []
        let cards = read.document["cards"] as? [[String: Any]] ?? []
        #expect(notes.count == truth.notes.count)
        #expect(cards.count == truth.cards.count)
        #expect((read.document["reviews"] as? [Any])?.count == truth.revlog.count)
        #expect(Set(notes.compactMap { $0["guid"] as? String }) == Set(truth.notes.map(\.guid)))
        let reviewDays = cards.filter { ($0["dueMeaning"] as? [String: Any])?["in"] as? String == "day" }
        #expect(reviewDays.count > 10, "review cards with a due day")
        #expect(cards.contains { ($0["dueMeaning"] as? [String: Any])?["in"] as? String == "filtered deck order" })
        #expect(cards.contains { $0["memoryState"] is [String: Any] })
        let media = read.document["media"] as? [[String: Any]] ?? []
        #expect(Set(media.flatMap { $0["names"] as? [String] ?? [] }) == Set(truth.media.keys))
    }

    /// A deck made and studied here (notes of three types, tags, a subdeck, media, answers at
    /// pinned times, a suspended and a flagged card) reads the same from the spec, and a review
    /// card's due day is the day the scheduler counts.
    @Test func aDeckMadeAndStudiedHereReadsTheSameFromTheSpec() throws {
        let scratch = try Scratch()
        let url = scratch.file("Studied.sampledeck")
        let deck = try DeckDocument.create(at: url, title: "Studied")
        let basic = try #require(try deck.noteType(named: "Basic"))
        let reversed = try #require(try deck.noteType(named: "Basic (and reversed card)"))
        let cloze = try #require(try deck.noteType(named: "Cloze"))
        let media = try deck.addMedia(Data("not really a png".utf8), originalName: "cat.png")
        let first = try deck.addNote(type: basic, fields: ["chat <img src=\"cat.png\">", "<b>cat</b>"], tags: ["animals", "fr::nouns"])
        try deck.attachMedia(named: [media.originalName], to: first)
        try deck.addNote(type: reversed, fields: ["chien", "dog"], deck: "Lang::French::Vocab")
        try deck.addNote(type: cloze, fields: ["{{c1::Paris}} is in {{c2::France}}", ""], tags: ["geo"])
        try deck.save()

        // Answers at times counted from the deck's day zero, so the test reads the same at any hour.
        let context = deck.mainContext
        let info = try #require(try context.fetch(FetchDescriptor<V2.DeckInfo>()).first)
        let start = Date(timeIntervalSince1970: TimeInterval(info.dayZero + 10 * 86_400 + 6 * 3600))
        let study = DeckStudy(context: context, fuzz: .off, utcOffset: 0)
        let cards = try context.fetch(FetchDescriptor<V2.Card>(sortBy: [SortDescriptor(\.ordinal)])).sorted { $0.id < $1.id }
        try #require(cards.count == 5)
        try study.answer(cards[0], rating: .good, at: start)
        try study.answer(cards[0], rating: .good, at: start.addingTimeInterval(660))
        try study.answer(cards[0], rating: .easy, at: start.addingTimeInterval(3 * 86_400))
        try study.answer(cards[1], rating: .again, at: start.addingTimeInterval(60))
        try deck.setSuspended(true, cards: [cards[2]])
        try deck.setFlag(3, cards: [cards[3]])
        try deck.save()
        #expect(cards[0].queue == .review && cards[1].queue == .learning)
        try deck.close()

        let read = try Self.read(url)
        try #require(read.status == 0, "spec_reader.py refused the deck: \(read.stderr)")
        let problems = try Self.differences(read.document, url)
        #expect(problems.isEmpty, "\(problems.prefix(20).joined(separator: "\n"))")
        let readCards = read.document["cards"] as? [[String: Any]] ?? []
        let meanings = readCards.map { ($0["dueMeaning"] as? [String: Any])?["in"] as? String ?? "" }
        #expect(meanings == ["day", "time", "position", "position", "position"], "\(meanings)")
        #expect(readCards.map { $0["queue"] as? Int } == [2, 1, -1, 0, 0])
        #expect(readCards.map { $0["flag"] as? Int } == [0, 0, 0, 3, 0])
        let notes = read.document["notes"] as? [[String: Any]] ?? []
        #expect(notes.first?["fields"] as? [String: String] == ["Front": "chat <img src=\"cat.png\">", "Back": "<b>cat</b>"])
        #expect(notes.first?["media"] as? [String] == ["cat.png"])
        #expect((read.document["reviews"] as? [Any])?.count == 4)
    }

    /// What FORMAT.md tells a reader to refuse, the spec reader and the library both refuse; what
    /// it tells a reader to accept, both accept.
    @Test(arguments: [
        ("a newer formatVersion", true),
        ("a trigger the format does not list", true),
        ("a view", true),
        ("a missing table", true),
        ("a user_version other than the manifest's", true),
        ("a store named by a path", true),
        ("a store that is a symbolic link", true),
        ("a symbolic link among the media files", true),
        ("a Media folder that is a symbolic link", true),
        ("a media file name with a longer extension than the grammar allows", true),
        ("formatVersion written 2.0", false),
        ("SQLite's statistics tables", false),
        ("a file the format does not name", false),
    ])
    func refusalsAreTheSpecsAndTheLibrarys(_ plant: String, refused: Bool) throws {
        let scratch = try Scratch()
        let url = scratch.file("Planted.sampledeck")
        let deck = try DeckDocument.create(at: url, title: "Planted")
        let media = try deck.addMedia(Data("sound".utf8), originalName: "hello.mp3")
        let note = try deck.addNote(type: try #require(try deck.noteType(named: "Basic")), fields: ["hello [sound:hello.mp3]", "bonjour"])
        try deck.attachMedia(named: [media.originalName], to: note)
        try deck.save()
        try deck.close()
        try Self.plant(plant, in: url, mediaFile: media.fileName)

        let read = try Self.read(url)
        // The library: open read-only, read every media file, and check (a writer's refusals
        // of Media/ are check errors for a reader).
        var libraryRefusal: String?
        do {
            let document = try DeckDocument.open(at: url, mode: .readOnly)
            defer { try? document.close() }
            for file in try document.mainContext.fetch(FetchDescriptor<V2.MediaFile>()) {
                _ = try document.readMedia(named: file.fileName)
            }
            if let error = document.check().first(where: { $0.severity == .error }) { libraryRefusal = error.message }
        } catch {
            libraryRefusal = "\(error)"
        }
        if refused {
            #expect(read.status == 65, "spec_reader.py accepted \(plant)")
            #expect(libraryRefusal != nil, "the library accepted \(plant)")
        } else {
            #expect(read.status == 0, "spec_reader.py refused \(plant): \(read.stderr)")
            #expect(libraryRefusal == nil, "the library refused \(plant): \(libraryRefusal ?? "")")
        }
    }

    static func plant(_ plant: String, in url: URL, mediaFile: String) throws {
        let manifestURL = url.appendingPathComponent("manifest.json")
        let store = url.appendingPathComponent("Deck.sqlite")
        let mediaFolder = url.appendingPathComponent("Media")
        func editManifest(_ change: (inout String) -> Void) throws {
            var text = try String(contentsOf: manifestURL, encoding: .utf8)
            change(&text)
            try text.write(to: manifestURL, atomically: false, encoding: .utf8)
        }
        func sql(_ statement: String) throws {
            let run = try runProgram("/usr/bin/env", ["sqlite3", store.path, statement])
            try #require(run.status == 0, "sqlite3: \(run.stderr)")
        }
        let fm = FileManager.default
        switch plant {
        case "a newer formatVersion":
            try editManifest { $0 = $0.replacingOccurrences(of: "\"formatVersion\" : 2", with: "\"formatVersion\" : 3") }
        case "formatVersion written 2.0":
            try editManifest { $0 = $0.replacingOccurrences(of: "\"formatVersion\" : 2", with: "\"formatVersion\" : 2.0") }
        case "a trigger the format does not list":
            try sql("CREATE TRIGGER evil AFTER INSERT ON Review BEGIN DELETE FROM Card; END")
        case "a view":
            try sql("CREATE VIEW Sneaky AS SELECT 1")
        case "a missing table":
            try sql("DROP TABLE Note_media")
        case "a user_version other than the manifest's":
            try sql("PRAGMA user_version = 3")
        case "SQLite's statistics tables":
            try sql("ANALYZE")
        case "a store named by a path":
            try editManifest { $0 = $0.replacingOccurrences(of: "\"store\" : \"Deck.sqlite\"", with: "\"store\" : \"../Deck.sqlite\"") }
        case "a store that is a symbolic link":
            let elsewhere = url.deletingLastPathComponent().appendingPathComponent("elsewhere.sqlite")
            try fm.moveItem(at: store, to: elsewhere)
            try fm.createSymbolicLink(at: store, withDestinationURL: elsewhere)
        case "a symbolic link among the media files":
            try fm.removeItem(at: mediaFolder.appendingPathComponent(mediaFile))
            try fm.createSymbolicLink(atPath: mediaFolder.appendingPathComponent(mediaFile).path, withDestinationPath: "/etc/passwd")
        case "a Media folder that is a symbolic link":
            let elsewhere = url.deletingLastPathComponent().appendingPathComponent("MediaElsewhere")
            try fm.moveItem(at: mediaFolder, to: elsewhere)
            try fm.createSymbolicLink(at: mediaFolder, withDestinationURL: elsewhere)
        case "a media file name with a longer extension than the grammar allows":
            let longer = mediaFile.split(separator: ".")[0] + ".abcdefghijkl"
            try fm.moveItem(at: mediaFolder.appendingPathComponent(mediaFile), to: mediaFolder.appendingPathComponent(String(longer)))
            try sql("UPDATE MediaFile SET fileName = '\(longer)'")
        case "a file the format does not name":
            try Data("notes".utf8).write(to: url.appendingPathComponent("notes.txt"))
        default:
            Issue.record("no such plant: \(plant)")
        }
    }

    // MARK: Comparing the spec reader's document with the library's models

    /// Where the spec reader's document and the library's reading of the deck at `url` (its
    /// models, through a read-only document) disagree, one line each.
    static func differences(_ spec: [String: Any], _ url: URL) throws -> [String] {
        var problems: [String] = []
        func same<T: Equatable>(_ label: String, _ reader: T?, _ library: T?) {
            if reader != library { problems.append("\(label): spec reader \(String(describing: reader)) ≠ library \(String(describing: library))") }
        }
        let document = try DeckDocument.open(at: url, mode: .readOnly)
        defer { try? document.close() }
        let context = document.mainContext
        if let notes = spec["readerNotes"] as? [String], !notes.isEmpty { problems.append("reader notes: \(notes)") }

        let info = try #require(try context.fetch(FetchDescriptor<V2.DeckInfo>()).first)
        let specInfo = spec["deckInfo"] as? [String: Any] ?? [:]
        same("title", specInfo["title"] as? String, info.title)
        same("dayZero", (specInfo["dayZero"] as? NSNumber)?.int64Value, info.dayZero)
        same("dayStartsAt", specInfo["dayStartsAt"] as? Int, info.dayStartsAt)
        let timing = SchedulingTiming(creation: info.dayZero, utcOffset: 0, rolloverHour: info.dayStartsAt)

        let presets = try context.fetch(FetchDescriptor<V2.Preset>()).sorted { $0.persistentModelID.primaryKey < $1.persistentModelID.primaryKey }
        let specPresets = spec["presets"] as? [[String: Any]] ?? []
        same("preset count", specPresets.count, presets.count)
        for (reader, preset) in zip(specPresets, presets) {
            let label = "preset \(preset.name)"
            same("\(label) name", reader["name"] as? String, preset.name)
            same("\(label) new/day", reader["newPerDay"] as? Int, preset.newPerDay)
            same("\(label) reviews/day", reader["reviewsPerDay"] as? Int, preset.reviewsPerDay)
            same("\(label) learning steps", (reader["learningSteps"] as? [Any])?.compactMap(double), numbers(preset.learningSteps))
            same("\(label) relearning steps", (reader["relearningSteps"] as? [Any])?.compactMap(double), numbers(preset.relearningSteps))
            same("\(label) FSRS weights", (reader["fsrsParameters"] as? [Any])?.compactMap(double), numbers(preset.fsrsParameters))
            same("\(label) desired retention", double(reader["desiredRetention"]), preset.desiredRetention)
            same("\(label) maximum interval", reader["maximumInterval"] as? Int, preset.maximumInterval)
            same("\(label) uses FSRS", reader["usesFSRS"] as? Bool, preset.usesFSRS)
        }

        let decks = try context.fetch(FetchDescriptor<V2.Deck>())
        let lowestPreset = presets.first?.name
        let specDecks = Dictionary((spec["decks"] as? [[String: Any]] ?? []).map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        same("deck names", Set(specDecks.keys), Set(decks.map(\.name)))
        for deck in decks {
            guard let reader = specDecks[deck.name] else { continue }
            same("deck \(deck.name) description", reader["description"] as? String, deck.deckDescription)
            same("deck \(deck.name) kind", reader["kind"] as? String, deck.kind == .filtered ? "filtered" : "normal")
            same("deck \(deck.name) preset", reader["preset"] as? String, deck.kind == .filtered ? nil : (deck.preset?.name ?? lowestPreset))
        }

        let types = try context.fetch(FetchDescriptor<V2.NoteType>())
        let specTypes = Dictionary((spec["noteTypes"] as? [[String: Any]] ?? []).map { (($0["id"] as? NSNumber)?.int64Value ?? 0, $0) }, uniquingKeysWith: { a, _ in a })
        same("note type count", specTypes.count, types.count)
        for type in types {
            guard let reader = specTypes[type.persistentModelID.primaryKey] else { problems.append("note type \(type.name) unread"); continue }
            let label = "note type \(type.name)"
            same("\(label) name", reader["name"] as? String, type.name)
            same("\(label) kind", reader["kind"] as? String, type.kind == .cloze ? "cloze" : "standard")
            same("\(label) stock kind", reader["stockKind"] as? Int, type.stockKind?.rawValue)
            same("\(label) css", reader["css"] as? String, type.css)
            let fields = type.fields.sorted { $0.ordinal < $1.ordinal }
            same("\(label) fields", (reader["fields"] as? [[String: Any]])?.map { $0["name"] as? String ?? "" }, fields.map(\.name))
            let templates = type.templates.sorted { $0.ordinal < $1.ordinal }
            let specTemplates = reader["templates"] as? [[String: Any]] ?? []
            same("\(label) templates", specTemplates.map { [$0["name"] as? String ?? "", $0["questionFormat"] as? String ?? "", $0["answerFormat"] as? String ?? ""] },
                 templates.map { [$0.name, $0.questionFormat, $0.answerFormat] })
            same("\(label) target decks", specTemplates.map { $0["targetDeck"] as? String }, templates.map { $0.targetDeck?.name })
        }

        let notes = try context.fetch(FetchDescriptor<V2.Note>())
        let specNotes = Dictionary((spec["notes"] as? [[String: Any]] ?? []).map { ($0["guid"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        same("note count", specNotes.count, notes.count)
        for note in notes {
            guard let reader = specNotes[note.guid] else { problems.append("note \(note.guid) unread"); continue }
            let label = "note \(note.guid)"
            let names = (note.noteType?.fields ?? []).sorted { $0.ordinal < $1.ordinal }.map(\.name)
            same("\(label) note type", reader["noteType"] as? String, note.noteType?.name)
            same("\(label) fields", reader["fields"] as? [String: String], Dictionary(zip(names, note.fields), uniquingKeysWith: { a, _ in a }))
            same("\(label) tags", (reader["tags"] as? [String])?.sorted(), note.tags.map(\.name).sorted())
            same("\(label) media", (reader["media"] as? [String])?.sorted(), note.media.map(\.name).sorted())
        }

        let cards = try context.fetch(FetchDescriptor<V2.Card>())
        let specCards = Dictionary((spec["cards"] as? [[String: Any]] ?? []).map { (($0["id"] as? NSNumber)?.int64Value ?? 0, $0) }, uniquingKeysWith: { a, _ in a })
        same("card count", specCards.count, cards.count)
        for card in cards {
            guard let reader = specCards[card.id] else { problems.append("card \(card.id) unread"); continue }
            let label = "card \(card.id)"
            same("\(label) note", reader["noteGUID"] as? String, card.note?.guid)
            same("\(label) ordinal", reader["ordinal"] as? Int, card.ordinal)
            same("\(label) deck", reader["deck"] as? String, card.deck?.name)
            same("\(label) original deck", reader["originalDeck"] as? String, card.originalDeck?.name)
            same("\(label) type", reader["type"] as? Int, card.type.rawValue)
            same("\(label) queue", reader["queue"] as? Int, card.queue.rawValue)
            same("\(label) due", (reader["due"] as? NSNumber)?.int64Value, card.due)
            same("\(label) interval", reader["interval"] as? Int, card.interval)
            same("\(label) ease", reader["easeFactor"] as? Int, card.easeFactor)
            same("\(label) reps", reader["repetitions"] as? Int, card.repetitions)
            same("\(label) lapses", reader["lapses"] as? Int, card.lapses)
            same("\(label) steps", reader["remainingSteps"] as? Int, card.remainingSteps)
            same("\(label) flag", reader["flag"] as? Int, card.flag)
            same("\(label) original due", (reader["originalDue"] as? NSNumber)?.int64Value, card.originalDue)
            let memory = reader["memoryState"] as? [String: Any]
            same("\(label) stability", double(memory?["stability"]), card.stability)
            same("\(label) difficulty", double(memory?["difficulty"]), card.difficulty)
            same("\(label) desired retention", double(reader["desiredRetention"]), card.desiredRetention)
            same("\(label) decay", double(reader["decay"]), card.decay)
            same("\(label) reviews", reader["reviews"] as? Int, card.reviews.count)
            // The day the reader gives a card due on a day is the scheduler's day of that number:
            // it starts at the reader's `dayStarts`, and the moment before is the day before.
            let meaning = reader["dueMeaning"] as? [String: Any] ?? [:]
            if meaning["in"] as? String == "day", let starts = (meaning["dayStarts"] as? String).flatMap(Self.date) {
                let number = (meaning["value"] as? NSNumber)?.int64Value ?? .min
                same("\(label) day of dayStarts", timing.today(at: starts).day, number)
                if number >= 1 { same("\(label) day before dayStarts", timing.today(at: starts.addingTimeInterval(-1)).day, number - 1) }
            } else if meaning["in"] as? String == "time" {
                same("\(label) due time", (meaning["time"] as? String).flatMap(Self.date), Date(timeIntervalSince1970: TimeInterval(card.due)))
            }
        }

        let reviews = try context.fetch(FetchDescriptor<V2.Review>())
        func key(_ values: [Int64]) -> String { values.map(String.init).joined(separator: ",") }
        let specReviews = (spec["reviews"] as? [[String: Any]] ?? []).map { review in
            key(["card", "timeMs", "rating", "interval", "lastInterval", "easeFactor", "duration", "kind"].map { (review[$0] as? NSNumber)?.int64Value ?? .min })
        }
        let libraryReviews = reviews.map { review in
            key([review.card?.id ?? .min, review.time, Int64(review.rating), Int64(review.interval), Int64(review.lastInterval),
                 Int64(review.easeFactor), Int64(review.duration), Int64(review.kind.rawValue)])
        }
        same("reviews", specReviews.sorted(), libraryReviews.sorted())

        let files = try context.fetch(FetchDescriptor<V2.MediaFile>())
        let specMedia = Dictionary((spec["media"] as? [[String: Any]] ?? []).map { ($0["fileName"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        same("media files", Set(specMedia.keys), Set(files.map(\.fileName)))
        for file in files {
            guard let reader = specMedia[file.fileName] else { continue }
            same("media \(file.fileName) names", reader["names"] as? [String], file.names.map(\.name).sorted())
            same("media \(file.fileName) sha256", reader["sha256"] as? String, file.sha256)
            same("media \(file.fileName) bytes match", reader["sha256Matches"] as? Bool, SHA256.hex(try document.readMedia(named: file.fileName)) == file.sha256)
        }
        return problems
    }

    /// A JSON number as a Double, whether JSONSerialization made it an integer or not. Through
    /// its decimal text: JSONSerialization on Linux gives an NSDecimalNumber whose `doubleValue`
    /// can be an ulp off (23.899801136332233 became …236).
    static func double(_ value: Any?) -> Double? {
        switch value {
        case let number as NSNumber: Double(number.description) ?? number.doubleValue
        case let number as Double: number
        case let number as Int: Double(number)
        default: nil
        }
    }

    static func numbers(_ json: String) -> [Double]? {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [NSNumber])?.map(\.doubleValue)
    }

    /// A date the reader prints: `YYYY-MM-DDThh:mm:ss[.fff]Z`.
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = text.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
