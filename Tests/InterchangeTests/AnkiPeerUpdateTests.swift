import DeckDocument
import Foundation
import Interchange
import Persistence
import Testing

/// Updates on import (issue 15 item 2), against current Anki: the builder edits its collection
/// after exporting current.apkg (fields changed, a tag added, a card rescheduled, a new card
/// ordinal, a stock type's CSS and template changed, a field added to the custom type, a note
/// added) and exports edited.apkg, then lets Anki import one over the other under each update
/// condition (updates.json). Our import of the same pair must count and end up as Anki's.
@Suite(.tags(.interop)) struct AnkiPeerUpdateTests {
    typealias V2 = DeckSchemaV2

    /// What the builder did and what Anki's own import made of it.
    struct Updates: Decodable {
        struct Edits: Decodable {
            let fieldsChanged: [String]
            let tagAdded, newOrdinal, rescheduled, changedTypeNote, added: String
            let typeUpdated, typeChanged: String
            let deckDescribed, deckPreset, presetUpdated: String
            /// new.perDay of presetUpdated in current.apkg, then in edited.apkg.
            let presetNewPerDay: [Int]
        }
        /// A normal deck's description and preset, as Anki's and ours end up.
        struct DeckState: Decodable, Equatable { let desc: String, md: Bool, preset: String? }
        struct PresetState: Decodable, Equatable { let newPerDay: Int, desiredRetention: Double }
        struct Result: Decodable {
            struct Note: Decodable { let fields: [String], tags: [String], noteType: String }
            let new, updated, duplicate, conflicting: Int
            let notes: [String: Note]
            let cards: [String: Int]
            /// [name, field names, css] of each note type.
            let noteTypes: [[Field]]
            /// Normal decks by name; presets by name.
            let decks: [String: DeckState]
            let presets: [String: PresetState]
            /// Template names by note type name; each note's card ordinals by GUID.
            let templates: [String: [String]]
            let cardOrdinals: [String: [Int]]
            enum Field: Decodable {
                case text(String), list([String])
                init(from decoder: Decoder) throws {
                    let container = try decoder.singleValueContainer()
                    if let list = try? container.decode([String].self) { self = .list(list) } else { self = .text(try container.decode(String.self)) }
                }
                var text: String { if case .text(let value) = self { value } else { "" } }
            }
        }
        let edits: Edits
        let anki: [String: Result]

        static func load() throws -> (folder: URL, updates: Updates) {
            let (folder, _) = try AnkiPeerCollection.built()
            return (folder, try JSONDecoder().decode(Updates.self, from: Data(contentsOf: folder.appendingPathComponent("updates.json"))))
        }
    }

    /// A card's scheduling, to compare before and after an update.
    struct Scheduling: Equatable {
        let ordinal: Int, type: Int, queue: Int, due: Int64, interval: Int, ease: Int, reps: Int, lapses: Int, stability: Double?
        init(_ card: V2.Card) {
            ordinal = card.ordinal
            type = card.type.rawValue
            queue = card.queue.rawValue
            due = card.due
            interval = card.interval
            ease = card.easeFactor
            reps = card.repetitions
            lapses = card.lapses
            stability = card.stability
        }
    }

    static func notesByGUID(_ deck: DeckDocument) throws -> [String: V2.Note] {
        Dictionary(try deck.mainContext.fetch(FetchDescriptor<V2.Note>()).map { ($0.guid, $0) }, uniquingKeysWith: { a, _ in a })
    }

    static func deckStates(_ deck: DeckDocument) throws -> [String: Updates.DeckState] {
        Dictionary(uniqueKeysWithValues: try deck.mainContext.fetch(FetchDescriptor<V2.Deck>()).filter { $0.kind == .normal }.map {
            ($0.name, Updates.DeckState(desc: $0.deckDescription, md: $0.markdownDescription, preset: $0.preset?.name))
        })
    }

    static func presetStates(_ deck: DeckDocument) throws -> [String: Updates.PresetState] {
        Dictionary(try deck.mainContext.fetch(FetchDescriptor<V2.Preset>()).map {
            ($0.name, Updates.PresetState(newPerDay: $0.newPerDay, desiredRetention: $0.desiredRetention))
        }, uniquingKeysWith: { a, _ in a })
    }

    static func scheduling(_ note: V2.Note) -> [Scheduling] { note.cards.map(Scheduling.init).sorted { $0.ordinal < $1.ordinal } }

    /// Importing the same package twice: the second import adds nothing, changes nothing, and
    /// counts every note unchanged and every note type kept.
    @Test(arguments: ["current.apkg", "legacy2.apkg", "full.colpkg"])
    func reimportChangesNothing(_ package: String) throws {
        let (folder, truth) = try AnkiPeerCollection.built()
        let scratch = try Scratch()
        let deck = try scratch.deck()
        let url = folder.appendingPathComponent(package)
        try AnkiImporter().importPackage(at: url, into: deck)
        let before = try Self.notesByGUID(deck).mapValues { [$0.fields.joined(separator: "|"), "\($0.modified.timeIntervalSince1970)"] }
        let cards = try deck.mainContext.fetchCount(FetchDescriptor<V2.Card>())
        let reviews = try deck.mainContext.fetchCount(FetchDescriptor<V2.Review>())
        let types = try deck.mainContext.fetchCount(FetchDescriptor<V2.NoteType>())
        // Every row of the deck, as the lossless JSON export writes it: the same bytes after.
        let exportBefore = scratch.file("before.json"), exportAfter = scratch.file("after.json")
        try DeckJSONExporter().export(deck, to: exportBefore)

        let again = try AnkiImporter().importPackage(at: url, into: deck)
        #expect(again.notesAdded == 0)
        #expect(again.cardsAdded == 0)
        #expect(again.reviews == 0)
        #expect(again.noteTypesAdded == 0)
        #expect(again.updates.unchanged == truth.notes.count)
        #expect(again.updates.updated == 0)
        #expect(again.updates.skipped == 0)
        #expect(again.updates.noteTypes.allSatisfy { $0.action == .kept }, "\(again.updates.noteTypes)")
        #expect(again.updates.decks.unchanged == again.decks && again.updates.decks.existing == again.decks, "\(again.updates.decks)")
        #expect(again.updates.presets.unchanged == again.presets && again.updates.presets.existing == again.presets, "\(again.updates.presets)")
        #expect(try Self.notesByGUID(deck).mapValues { [$0.fields.joined(separator: "|"), "\($0.modified.timeIntervalSince1970)"] } == before)
        #expect(try deck.mainContext.fetchCount(FetchDescriptor<V2.Card>()) == cards)
        #expect(try deck.mainContext.fetchCount(FetchDescriptor<V2.Review>()) == reviews)
        #expect(try deck.mainContext.fetchCount(FetchDescriptor<V2.NoteType>()) == types)
        try DeckJSONExporter().export(deck, to: exportAfter)
        #expect(try Data(contentsOf: exportAfter) == Data(contentsOf: exportBefore), "the second import changed a row")
    }

    /// The original then the edited copy (and the other way round), under each --update mode:
    /// the counts are Anki's (added = new, updated = updated, unchanged + older/never = duplicate,
    /// changed note type = conflicting), every note ends with Anki's fields and tags and as many
    /// cards as in Anki, cards already there keep their scheduling, and the stock type whose
    /// CSS changed is updated in place exactly when Anki updates it.
    @Test(arguments: [("", "current.apkg", "edited.apkg"), ("", "current.apkg", "edited-legacy.apkg"), ("reverse-", "edited.apkg", "current.apkg")],
          ImportUpdatePolicy.allCases)
    func updatesAsAnkiDoes(_ order: (label: String, first: String, second: String), _ policy: ImportUpdatePolicy) throws {
        let (folder, updates) = try Updates.load()
        let anki = try #require(updates.anki[order.label + policy.rawValue])
        let scratch = try Scratch()
        let deck = try scratch.deck()
        try AnkiImporter().importPackage(at: folder.appendingPathComponent(order.first), into: deck)
        let scheduled = try Self.notesByGUID(deck).mapValues(Self.scheduling)
        let decksBefore = try Self.deckStates(deck), presetsBefore = try Self.presetStates(deck)

        let report = try AnkiImporter(update: policy).importPackage(at: folder.appendingPathComponent(order.second), into: deck)
        let skipped = Dictionary(grouping: report.updates.skippedNotes, by: \.reason).mapValues(\.count)
        #expect(report.notesAdded == anki.new)
        #expect(report.updates.updated == anki.updated)
        #expect(report.updates.unchanged + (skipped[.older] ?? 0) + (skipped[.never] ?? 0) == anki.duplicate)
        #expect(skipped[.noteType] ?? 0 == anki.conflicting)
        #expect(skipped[.never] ?? 0 == (policy == .never ? 4 : 0))
        #expect(skipped[.older] ?? 0 == (order.label == "reverse-" && policy == .newer ? 4 : 0))

        let notes = try Self.notesByGUID(deck)
        #expect(notes.count == anki.notes.count)
        // What a failure needs to be understood: the skips and every note's time in the deck.
        let context = "skipped \(report.updates.skippedNotes.map { "\($0.text): \($0.reason)" }); "
            + "\(order.first) then \(order.second) under \(policy)"
        for (guid, expected) in anki.notes {
            guard let ours = notes[guid] else {
                Issue.record("note \(guid) (\(expected.fields.first ?? "")) missing")
                continue
            }
            #expect(ours.fields == expected.fields, "note \(guid) modified \(ours.modified.timeIntervalSince1970); \(context)")
            #expect(Set(ours.tags.map(\.name)) == Set(expected.tags), "note \(guid)")
            #expect(ours.cards.count == anki.cards[guid], "cards of note \(guid) (\(expected.fields.first ?? ""))")
            // Cards the deck had keep their scheduling, whatever the package says.
            for card in Self.scheduling(ours) {
                if let before = scheduled[guid]?.first(where: { $0.ordinal == card.ordinal }) { #expect(card == before, "note \(guid)") }
            }
        }
        if order.label.isEmpty {
            let rescheduled = try #require(notes[updates.edits.rescheduled])
            #expect(rescheduled.fields[1].hasSuffix("(edited)") == (policy != .never),
                    "modified \(rescheduled.modified.timeIntervalSince1970); \(context)")
            #expect(notes[updates.edits.newOrdinal]?.cards.count == 2, "the reverse card asked for is added in every mode, as Anki does")
        }

        // Decks: Anki's importer takes a deck's description (when not empty) and preset (unless the
        // default) whatever the times; we do under --update always and when newer.
        let forward = order.label.isEmpty
        let updatesRows = policy == .always || (policy == .newer && forward)
        let decksAfter = try Self.deckStates(deck)
        for (name, state) in anki.decks where name != "Default" {
            #expect(decksAfter[name] == (updatesRows ? state : decksBefore[name]), "deck \(name)")
        }
        #expect(decksAfter[updates.edits.deckDescribed]?.desc.hasSuffix("(edited)") == (forward ? updatesRows : !updatesRows))
        // The deck moved to "Intense" in the edited copy: taken when allowed; never back to the default preset.
        #expect(decksAfter[updates.edits.deckPreset]?.preset == (forward && !updatesRows ? "Default" : updates.edits.presetUpdated))
        // Forward both decks differ; backward only the description (the other's incoming preset is the default).
        let differing = forward ? 2 : 1
        #expect(report.updates.decks.updated == (updatesRows ? differing : 0), "\(report.updates.decks)")
        #expect(report.updates.decks.kept == (updatesRows ? 0 : differing), "\(report.updates.decks)")
        #expect(report.updates.decks.added == 0)
        #expect(report.updates.decks.existing == report.decks)
        // Presets: Anki keeps every preset already there (its id is taken); we update by --update.
        let perDay = updates.edits.presetNewPerDay
        #expect(anki.presets[updates.edits.presetUpdated]?.newPerDay == perDay[forward ? 0 : 1], "Anki keeps the first package's preset")
        #expect(try Self.presetStates(deck)[updates.edits.presetUpdated]?.newPerDay
                == (updatesRows ? perDay[forward ? 1 : 0] : presetsBefore[updates.edits.presetUpdated]?.newPerDay))
        #expect(report.updates.presets.updated == (updatesRows ? 1 : 0), "\(report.updates.presets)")
        // Anki's default preset (id 1) is never updated; from the legacy layout it reads back with
        // other values than from the current one, so it counts as kept there.
        let defaultKept = order.second.contains("legacy") ? 1 : 0
        #expect(report.updates.presets.kept == (updatesRows ? 0 : 1) + defaultKept, "\(report.updates.presets)")
        #expect(report.updates.presets.added == 0)

        // The stock type with the same fields and templates: updated in place when Anki updates it.
        let ankiUpdated = anki.noteTypes.contains { $0.first?.text.hasPrefix(updates.edits.typeUpdated) == true && $0.last?.text.contains(".edited") == true }
        let types = try deck.mainContext.fetch(FetchDescriptor<V2.NoteType>())
        let oursUpdated = types.contains { $0.name == updates.edits.typeUpdated && $0.css.contains(".edited") }
        #expect(oursUpdated == ankiUpdated)
        let decision = report.updates.noteTypes.first { $0.name == updates.edits.typeUpdated }
        // Anki updates a type of the same schema when newer (forward only), always when asked, never when not.
        let updatesType = policy == .always || (policy == .newer && order.label.isEmpty)
        #expect(decision?.action == (updatesType ? .updated : .kept), "\(String(describing: decision))")
        // The custom type that gained a field: the deck's is kept, the package's added beside it.
        #expect(report.updates.noteTypes.first { $0.name == updates.edits.typeChanged }?.action == .copied)
        #expect(types.filter { $0.name.hasPrefix(updates.edits.typeChanged) }.map(\.fields.count).sorted() == [5, 6])
        #expect(types.filter { $0.name.hasPrefix(updates.edits.typeChanged) }.count == 2)
    }

    /// Anki's "merge note types" (`--merge-notetypes`): the custom type that gained a field in the
    /// edited copy is merged into the deck's (imported either way round) instead of copied. The
    /// merged type's fields and templates, every note's fields, tags, card ordinals and the counts
    /// are what Anki's own import with `merge_notetypes` makes of the same pair; the deck checks clean.
    @Test(arguments: [("", "current.apkg", "edited.apkg"), ("reverse-", "edited.apkg", "current.apkg")],
          [ImportUpdatePolicy.newer, .never])
    func mergesNoteTypesAsAnkiDoes(_ order: (label: String, first: String, second: String), _ policy: ImportUpdatePolicy) throws {
        let (folder, updates) = try Updates.load()
        let anki = try #require(updates.anki["merge-" + order.label + policy.rawValue])
        let scratch = try Scratch()
        let deck = try scratch.deck()
        try AnkiImporter().importPackage(at: folder.appendingPathComponent(order.first), into: deck)
        let scheduled = try Self.notesByGUID(deck).mapValues(Self.scheduling)
        let report = try AnkiImporter(update: policy, mergesNoteTypes: true)
            .importPackage(at: folder.appendingPathComponent(order.second), into: deck)
        let skipped = Dictionary(grouping: report.updates.skippedNotes, by: \.reason).mapValues(\.count)
        #expect(report.notesAdded == anki.new)
        #expect(report.updates.updated == anki.updated)
        #expect(report.updates.unchanged + (skipped[.older] ?? 0) + (skipped[.never] ?? 0) == anki.duplicate)
        #expect(skipped[.noteType] == nil && anki.conflicting == 0, "merged: no note of a changed type is skipped")

        let name = updates.edits.typeChanged
        #expect(report.updates.noteTypes.first { $0.name == name }?.action == .merged, "\(report.updates.noteTypes)")
        let types = try deck.mainContext.fetch(FetchDescriptor<V2.NoteType>()).filter { $0.name.hasPrefix(name) }
        #expect(types.count == 1, "no copy beside the merged type")
        let ankiType = try #require(anki.noteTypes.first { $0.first?.text == name })
        let ankiFields = ankiType.count > 1 ? ankiType[1] : .text("")
        guard case .list(let fieldNames) = ankiFields else { Issue.record("no field names for \(name)"); return }
        #expect(types.first?.fields.sorted { $0.ordinal < $1.ordinal }.map(\.name) == fieldNames)
        #expect(types.first?.templates.sorted { $0.ordinal < $1.ordinal }.map(\.name) == anki.templates[name])

        let notes = try Self.notesByGUID(deck)
        #expect(notes.count == anki.notes.count)
        // What a failure needs to be understood: the skips and every note's time in the deck.
        let context = "skipped \(report.updates.skippedNotes.map { "\($0.text): \($0.reason)" }); "
            + "\(order.first) then \(order.second) under \(policy)"
        for (guid, expected) in anki.notes {
            guard let ours = notes[guid] else {
                Issue.record("note \(guid) (\(expected.fields.first ?? "")) missing")
                continue
            }
            #expect(ours.fields == expected.fields, "note \(guid) modified \(ours.modified.timeIntervalSince1970); \(context)")
            #expect(Set(ours.tags.map(\.name)) == Set(expected.tags), "note \(guid)")
            #expect(ours.cards.map(\.ordinal).sorted() == anki.cardOrdinals[guid], "cards of note \(guid) (\(expected.fields.first ?? ""))")
            for card in Self.scheduling(ours) {
                if let before = scheduled[guid]?.first(where: { $0.ordinal == card.ordinal }) { #expect(card == before, "note \(guid)") }
            }
        }
        #expect(deck.check().isEmpty, "\(deck.check())")
        // Imported again with the option: the type matches now, nothing changes.
        let again = try AnkiImporter(update: policy, mergesNoteTypes: true).importPackage(at: folder.appendingPathComponent(order.second), into: deck)
        #expect(again.notesAdded == 0 && again.updates.updated == 0)
        // (The package with fewer fields merges again each time, as in Anki, to the same type.)
        #expect(again.updates.noteTypes.first { $0.name == name }?.action == (order.label.isEmpty ? .kept : .merged))
    }

    /// Importing the edited copy a second time changes nothing more, and makes no third copy of
    /// the note type whose fields changed (the copy is found by the id it came from).
    @Test func reimportOfEditedCopyIsStable() throws {
        let (folder, updates) = try Updates.load()
        let scratch = try Scratch()
        let deck = try scratch.deck()
        try AnkiImporter().importPackage(at: folder.appendingPathComponent("current.apkg"), into: deck)
        try AnkiImporter().importPackage(at: folder.appendingPathComponent("edited.apkg"), into: deck)
        let types = try deck.mainContext.fetchCount(FetchDescriptor<V2.NoteType>())
        let cards = try deck.mainContext.fetchCount(FetchDescriptor<V2.Card>())
        let again = try AnkiImporter().importPackage(at: folder.appendingPathComponent("edited.apkg"), into: deck)
        #expect(again.notesAdded == 0)
        #expect(again.cardsAdded == 0)
        #expect(again.updates.updated == 0)
        #expect(again.updates.skipped == 6, "the notes of the changed type stay the deck's: \(again.updates.skippedNotes.map { "\($0.text): \($0.reason)" })")
        #expect(again.updates.noteTypes.first { $0.name == updates.edits.typeChanged }?.action == .kept)
        #expect(again.updates.decks.updated == 0 && again.updates.decks.kept == 0, "\(again.updates.decks)")
        #expect(again.updates.presets.updated == 0 && again.updates.presets.kept == 0, "\(again.updates.presets)")
        #expect(try deck.mainContext.fetchCount(FetchDescriptor<V2.NoteType>()) == types)
        #expect(try deck.mainContext.fetchCount(FetchDescriptor<V2.Card>()) == cards)
    }
}
