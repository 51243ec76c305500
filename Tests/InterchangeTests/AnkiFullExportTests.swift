import Anki
import DeckDocument
import Foundation
import Persistence
import Scheduling
import Testing
@testable import Interchange

private typealias V2 = DeckSchemaV2

/// A format-v2 deck built through DeckDocument's API with what an Anki collection holds:
/// several note types (stock, a custom 3-field 2-template type with options, image occlusion),
/// siblings, nested decks with descriptions, two presets, a filtered deck, suspended, buried
/// and flagged cards, FSRS memory states, custom data, reviews, hierarchical tags and two media
/// names with equal bytes.
enum AnkiExportDeck {
    static let dayZero: Int64 = 1_767_240_000  // 2026-01-01 04:00 UTC

    static func make(in scratch: Scratch, name: String = "Full.sampledeck") throws -> DeckDocument {
        let deck = try scratch.deck(name, title: "Full")
        let context = deck.mainContext
        if let info = try deck.deckInfo() {
            info.dayZero = dayZero
            info.dayStartsAt = 5
        }
        let dot = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 9, 8, 7])
        _ = try deck.addMedia(dot, originalName: "dot.png")
        _ = try deck.addMedia(dot, originalName: "same bytes.png")

        // Presets and decks.
        let intense = V2.Preset(name: "Intense")
        intense.newPerDay = 35
        intense.reviewsPerDay = 444
        intense.learningSteps = "[2,15,1440]"
        intense.relearningSteps = "[5,30]"
        intense.maximumInterval = 3650
        intense.desiredRetention = 0.87
        intense.fsrsParameters = "[" + (0..<21).map { String(0.1 + Double($0) / 10) }.joined(separator: ",") + "]"
        intense.startingEase = 2300
        intense.graduatingInterval = 2
        intense.easyInterval = 5
        intense.easyBonus = 1.4
        intense.hardMultiplier = 1.1
        intense.intervalMultiplier = 0.95
        intense.lapseMultiplier = 0.2
        intense.minimumLapseInterval = 2
        intense.leechThreshold = 6
        intense.buryNewSiblings = true
        intense.buryReviewSiblings = true
        intense.buryInterdaySiblings = true
        intense.ankiOptions = #"{"maxTaken": 90, "new": {"order": 0}, "autoplay": false}"#
        context.insert(intense)
        let vocab = try deck.deck(named: "Languages::French::Vocab")
        vocab.deckDescription = "<b>French</b> words"
        vocab.preset = intense
        let languages = try deck.deck(named: "Languages")
        languages.deckDescription = "All **languages**"
        languages.markdownDescription = true
        let science = try deck.deck(named: "Science")
        science.collapsed = true
        let cram = V2.Deck(name: "Cram")
        cram.kind = .filtered
        cram.filterTerms = #"[{"search": "deck:Science is:review", "limit": 50, "order": 1}]"#
        cram.reschedules = false
        cram.preset = nil
        context.insert(cram)

        // Note types: the stock ones, a custom one, image occlusion.
        let basic = try deck.stockNoteType(.basic)
        let reversed = try deck.stockNoteType(.reversible)
        let cloze = try deck.stockNoteType(.cloze)
        let custom = V2.NoteType(name: "Vocab+", kind: .standard, stockKind: nil, css: ".card { color: navy; }")
        custom.sortField = 1
        custom.latexPre = "\\documentclass{article}\\begin{document}"
        custom.latexPost = "\\end{document}"
        custom.latexSVG = true
        custom.ankiOptions = #"{"vers": [], "tags": ["vocab"]}"#
        context.insert(custom)
        for (ordinal, name) in ["Word", "Meaning", "Example"].enumerated() {
            let field = V2.NoteField(ordinal: ordinal, name: name)
            field.font = "Liberation Serif"
            field.fontSize = 24 + ordinal
            field.rightToLeft = ordinal == 2
            field.sticky = ordinal == 0
            field.plainText = ordinal == 1
            field.collapsed = ordinal == 2
            field.excludeFromSearch = ordinal == 2
            field.fieldDescription = "the \(name.lowercased())"
            field.noteType = custom
            context.insert(field)
        }
        let forward = V2.CardTemplate(ordinal: 0, name: "Recognise", questionFormat: "{{Word}}",
                                      answerFormat: "{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{Example}}")
        forward.browserQuestionFormat = "{{Word}} (q)"
        forward.browserAnswerFormat = "{{Meaning}} (a)"
        forward.browserFont = "Courier"
        forward.browserFontSize = 11
        let backward = V2.CardTemplate(ordinal: 1, name: "Recall", questionFormat: "{{#Meaning}}{{Meaning}}{{/Meaning}}",
                                       answerFormat: "{{FrontSide}}<hr id=answer>{{Word}}")
        backward.targetDeck = science
        for template in [forward, backward] {
            template.noteType = custom
            context.insert(template)
        }
        let occlusion = V2.NoteType(name: "Image Occlusion", kind: .cloze, stockKind: .imageOcclusion, css: ".card { }")
        context.insert(occlusion)
        for (ordinal, name) in ["Occlusion", "Image", "Header", "Back Extra", "Comments"].enumerated() {
            let field = V2.NoteField(ordinal: ordinal, name: name)
            field.noteType = occlusion
            context.insert(field)
        }
        let io = V2.CardTemplate(ordinal: 0, name: "Image Occlusion",
                                 questionFormat: "{{#Header}}<div>{{Header}}</div>{{/Header}}{{cloze:Occlusion}}{{Image}}",
                                 answerFormat: "{{cloze:Occlusion}}{{Image}}{{Back Extra}}")
        io.noteType = occlusion
        context.insert(io)
        try deck.save()

        // Notes.
        let hello = try deck.addNote(type: basic, fields: ["bonjour", "hello <img src=\"dot.png\">"], tags: ["lang::fr", "greeting"],
                                     deck: "Languages::French::Vocab")
        let cat = try deck.addNote(type: reversed, fields: ["le chat", "the cat <img src=\"same bytes.png\">"], tags: ["lang::fr"],
                                   deck: "Languages::French::Vocab")
        let paris = try deck.addNote(type: cloze, fields: ["{{c1::Paris}} is in {{c2::France}}, {{c3::Europe}}", "geo"],
                                     tags: ["geo"], deck: "Science")
        let word = try deck.addNote(type: custom, fields: ["chien", "dog", "le chien aboie"], tags: ["lang::fr::animals"])
        let shape = try deck.addNote(type: occlusion, fields: [
            "{{c1::image-occlusion:rect:left=.1:top=.2:width=.3:height=.4:oi=1}}{{c2::image-occlusion:ellipse:left=.5:top=.5:width=.2:height=.2:oi=1}}",
            "<img src=\"dot.png\">", "Shapes", "", ""], deck: "Science")
        try deck.attachMedia(named: ["dot.png"], to: hello)
        try deck.attachMedia(named: ["same bytes.png"], to: cat)
        try deck.attachMedia(named: ["dot.png"], to: shape)
        try deck.save()

        // Scheduling: every card its own state.
        func card(_ note: Note, _ ordinal: Int) throws -> V2.Card {
            try #require(note.cards.first { $0.ordinal == ordinal })
        }
        let review = try card(hello, 0)
        review.type = .review
        review.queue = .review
        review.due = 400
        review.interval = 21
        review.easeFactor = 2650
        review.repetitions = 6
        review.lapses = 1
        review.flag = 3
        review.stability = 23.75
        review.difficulty = 6.125
        review.desiredRetention = 0.87
        review.customData = #"{"k":"v"}"#
        review.lastReview = dayZero + 310 * 86_400
        // Reviews lie in the past (Anki's import moves review times that lie ahead of its clock).
        for (index, rating) in [3, 3, 1, 3, 4, 3].enumerated() {
            let row = V2.Review(time: (dayZero + Int64(index * 8 + 270) * 86_400) * 1000 + Int64(index), rating: rating,
                                interval: index == 2 ? -600 : index * 4 + 1, lastInterval: index * 3,
                                easeFactor: 2500 + index * 30, duration: 4_000 + index * 111, kind: index == 2 ? .relearn : .review)
            context.insert(row)
            row.card = review
        }
        let suspended = try card(cat, 0)
        suspended.type = .review
        suspended.queue = .suspended
        suspended.due = 390
        suspended.interval = 9
        suspended.easeFactor = 2500
        suspended.repetitions = 3
        suspended.stability = 8.5
        suspended.difficulty = 4.0
        let learning = try card(cat, 1)
        learning.type = .learning
        learning.queue = .learning
        learning.due = dayZero + 395 * 86_400 + 3_600
        learning.remainingSteps = 1002
        learning.repetitions = 1
        learning.flag = 1
        let learnRow = V2.Review(time: (dayZero + 320 * 86_400) * 1000 + 77, rating: 1, interval: -60, lastInterval: 0,
                                 easeFactor: 0, duration: 2_500, kind: .learn)
        context.insert(learnRow)
        learnRow.card = learning
        let buried = try card(paris, 1)
        buried.queue = .buriedSibling
        let buriedByHand = try card(paris, 2)
        buriedByHand.queue = .buriedManually
        buriedByHand.flag = 7
        let filtered = try card(paris, 0)
        filtered.type = .review
        filtered.queue = .review
        filtered.interval = 4
        filtered.easeFactor = 2500
        filtered.repetitions = 2
        filtered.originalDeck = filtered.deck
        filtered.originalDue = 398
        filtered.deck = cram
        filtered.due = -100_000
        let relearning = try card(word, 0)
        relearning.type = .relearning
        relearning.queue = .dayLearning
        relearning.due = 397
        relearning.interval = 1
        relearning.easeFactor = 2100
        relearning.repetitions = 9
        relearning.lapses = 3
        relearning.remainingSteps = 2
        relearning.flag = 5
        relearning.stability = 1.5
        relearning.difficulty = 9.25
        try deck.save()
        return deck
    }
}

@Suite struct AnkiFullExportTests {
    /// Every card of every note is written with its own state, ids and data.
    @Test func writesEveryCardWithItsState() throws {
        let scratch = try Scratch()
        let deck = try AnkiExportDeck.make(in: scratch)
        let out = scratch.file("full.apkg")
        let report = try AnkiExporter().export(deck, to: out)
        #expect(report.notes == 5)
        #expect(report.cards == 10)  // 1 + 2 + 3 cloze + 2 custom + 2 occlusion
        #expect(report.reviews == 7)
        #expect(report.media == 2)
        let reader = try AnkiPackageReader(url: out)
        defer { reader.close() }
        var cards: [Int64: AnkiCard] = [:]
        try reader.forEachCard { cards[$0.id] = $0 }
        var stored: [Int64: StoredCard] = [:]
        try deck.forEachStoredNote { note in for card in note.cards { stored[try #require(card.ankiID)] = card } }
        #expect(Set(cards.keys) == Set(stored.keys))
        for (id, ours) in stored {
            let theirs = try #require(cards[id])
            #expect(theirs.type.rawValue == ours.type && theirs.queue.rawValue == ours.queue, "card \(id)")
            #expect(theirs.due == ours.due && theirs.interval == Int64(ours.interval) && theirs.factor == Int64(ours.easeFactor))
            #expect(theirs.reps == Int64(ours.repetitions) && theirs.lapses == Int64(ours.lapses) && theirs.left == Int64(ours.remainingSteps))
            #expect(theirs.originalDue == ours.originalDue && theirs.flags == ours.flag)
        }
        #expect(Set(reader.media.map(\.name)) == ["dot.png", "same bytes.png"])
    }

    /// A note made here gets its GUID and Anki ids once, at its first save; exporting an
    /// unchanged deck twice writes the same GUIDs and ids.
    @Test func idsAreAssignedOnceAndExportsAreStable() throws {
        let scratch = try Scratch()
        let deck = try AnkiExportDeck.make(in: scratch)
        let notes = try deck.mainContext.fetch(FetchDescriptor<Note>())
        #expect(notes.allSatisfy { $0.ankiID != nil && !$0.guid.isEmpty })
        let before = notes.map { ($0.guid, $0.ankiID) }
        try deck.setTags(["changed"], of: try #require(notes.first))
        try deck.save()
        #expect(notes.map { ($0.guid, $0.ankiID) }.elementsEqual(before) { $0 == $1 })

        func contents(_ url: URL) throws -> (notes: [String: Int64], cards: [Int64], types: [Int64], decks: [String: Int64]) {
            try AnkiExporter().export(deck, to: url)
            let reader = try AnkiPackageReader(url: url)
            defer { reader.close() }
            var notes: [String: Int64] = [:], cards: [Int64] = []
            try reader.forEachNote { notes[$0.guid] = $0.id }
            try reader.forEachCard { cards.append($0.id) }
            return (notes, cards.sorted(), reader.noteTypes.map(\.id).sorted(),
                    Dictionary(uniqueKeysWithValues: reader.decks.map { ($0.name, $0.id) }))
        }
        let first = try contents(scratch.file("one.apkg"))
        let second = try contents(scratch.file("two.apkg"))
        #expect(first.notes == second.notes)
        #expect(first.cards == second.cards)
        #expect(first.types == second.types)
        #expect(first.decks == second.decks)
        #expect(first.decks["Default"] == 1)
        #expect(Set(first.notes.keys) == Set(notes.map(\.guid)))
        // A deck whose rows have no stored ids (made before they were assigned) derives the same ones each time.
        try deck.mainContext.fetch(FetchDescriptor<Note>()).forEach { $0.ankiID = nil }
        try deck.mainContext.fetch(FetchDescriptor<V2.Card>()).forEach { $0.ankiID = nil }
        try deck.save()
        let third = try contents(scratch.file("three.apkg"))
        let fourth = try contents(scratch.file("four.apkg"))
        #expect(third.notes == fourth.notes && third.cards == fourth.cards)
        #expect(Set(third.cards).count == 10)
    }
}

/// Our packages imported by current Anki (Peers/import_into_anki.py, one process), every
/// property checked in Anki's collection; fails, not skips, when python3 or anki is missing.
@Suite(.tags(.interop)) struct AnkiFullExportInteropTests {
    typealias Truth = AnkiPeerCollection.Truth
    struct Job: Encodable { let name: String, kind: String, packages: [String] }
    struct Jobs: Encodable { let jobs: [Job] }
    struct Log: Decodable { let new, updated, duplicate, conflicting: Int }
    struct Result: Decodable { let logs: [Log]; let state: Truth }

    static func importIntoAnki(_ jobs: [Job]) throws -> [String: Result] {
        let scratch = try Scratch()
        let input = scratch.file("jobs.json"), output = scratch.file("out.json")
        try JSONEncoder().encode(Jobs(jobs: jobs)).write(to: input)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/import_into_anki.py")
        let result = try runProgram("/usr/bin/env", ["python3", script.path, input.path, output.path])
        try #require(result.status == 0, "import_into_anki.py failed: \(result.stderr)")
        return try JSONDecoder().decode([String: Result].self, from: Data(contentsOf: output))
    }

    /// (a) Every property of a v2 deck arrives in Anki; (c) a re-export imports as the same
    /// notes (nothing new), an edited one updates its note; a .colpkg carries it all too.
    @Test func ankiImportsEveryProperty() throws {
        let scratch = try Scratch()
        let deck = try AnkiExportDeck.make(in: scratch)
        let first = scratch.file("first.apkg"), again = scratch.file("again.apkg"), edited = scratch.file("edited.apkg")
        let collection = scratch.file("full.colpkg")
        try AnkiExporter().export(deck, to: first)
        try AnkiExporter().export(deck, to: again)
        try AnkiExporter(options: .init(format: .collectionPackage)).export(deck, to: collection)
        let hello = try #require(try deck.mainContext.fetch(FetchDescriptor<Note>()).first { $0.fields.first == "bonjour" })
        try deck.setFields(["bonjour!", hello.fields[1]], of: hello)
        hello.modified = Date(timeIntervalSinceNow: 3_600)
        try deck.save()
        try AnkiExporter().export(deck, to: edited)
        let results = try Self.importIntoAnki([
            Job(name: "apkg", kind: "apkg", packages: [first.path]),
            Job(name: "again", kind: "apkg", packages: [first.path, again.path, edited.path]),
            Job(name: "colpkg", kind: "colpkg", packages: [collection.path]),
        ])
        let apkg = try #require(results["apkg"]), reimported = try #require(results["again"]), colpkg = try #require(results["colpkg"])
        #expect(apkg.logs.first?.new == 5)
        // (c): the unchanged re-export adds nothing, the edited one updates one note.
        #expect(reimported.logs.count == 3)
        if reimported.logs.count == 3 {
            #expect(reimported.logs[1].new == 0 && reimported.logs[1].updated == 0 && reimported.logs[1].duplicate == 5)
            #expect(reimported.logs[2].new == 0 && reimported.logs[2].updated == 1)
        }
        #expect(reimported.state.notes.count == 5 && reimported.state.cards.count == 10)
        #expect(reimported.state.notes.contains { $0.fields.first == "bonjour!" })
        try deck.setFields(["bonjour", hello.fields[1]], of: hello)
        try deck.save()
        try checkEveryProperty(of: deck, in: apkg.state, package: "apkg", wholeCollection: false)
        try checkEveryProperty(of: deck, in: colpkg.state, package: "colpkg", wholeCollection: true)
    }

    /// Compares the deck with what Anki holds after importing its export, property by property.
    func checkEveryProperty(of deck: DeckDocument, in anki: Truth, package: String, wholeCollection: Bool) throws {
        let info = try #require(try deck.deckInfo())
        let ankiToday = try #require(anki.today, "the peer reports sched.today")
        let ourToday = SchedulingTiming(creation: info.dayZero, utcOffset: 0, rolloverHour: info.dayStartsAt).today(at: Date()).day
        // Note types, by id.
        let types = Dictionary(anki.noteTypes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var typeIDs: [Int64: Int64] = [:]
        var deckNames: [Int64: String] = [:]  // Anki deck id → name
        for ankiDeck in anki.decks { deckNames[ankiDeck.id] = ankiDeck.name }
        for type in try deck.noteTypes() {
            let id = try #require(type.ankiID ?? anki.noteTypes.first { $0.name.hasPrefix(type.name) && $0.flds.count == type.fields.count }?.id)
            typeIDs[type.persistentModelID.primaryKey] = id
            let theirs = try #require(types[id], "\(package): note type \(type.name)")
            #expect(theirs.name.hasPrefix(type.name), "\(package)")
            #expect(theirs.type == type.kind.rawValue && theirs.sortf == type.sortField && theirs.css == type.css, "\(package): \(type.name)")
            #expect(theirs.latexPre == type.latexPre && theirs.latexPost == type.latexPost && theirs.latexsvg == type.latexSVG, "\(package): \(type.name)")
            #expect((theirs.originalStockKind ?? 0) == (type.stockKind?.rawValue ?? 0), "\(package): \(type.name)")
            let fields = type.fields.sorted { $0.ordinal < $1.ordinal }
            #expect(theirs.flds.map(\.name) == fields.map(\.name), "\(package)")
            for (field, f) in zip(fields, theirs.flds) {
                #expect(f.font == field.font && f.size == field.fontSize && f.rtl == field.rightToLeft && f.sticky == field.sticky, "\(package): \(field.name)")
                #expect(f.plainText == field.plainText && f.collapsed == field.collapsed && f.excludeFromSearch == field.excludeFromSearch, "\(package): \(field.name)")
                #expect((f.description ?? "") == field.fieldDescription, "\(package): \(field.name)")
            }
            let templates = type.templates.sorted { $0.ordinal < $1.ordinal }
            #expect(theirs.tmpls.map(\.name) == templates.map(\.name), "\(package)")
            for (template, t) in zip(templates, theirs.tmpls) {
                #expect(t.qfmt == template.questionFormat && t.afmt == template.answerFormat, "\(package): \(template.name)")
                #expect(t.bqfmt == template.browserQuestionFormat && t.bafmt == template.browserAnswerFormat, "\(package): \(template.name)")
                #expect(t.bfont == template.browserFont && t.bsize == template.browserFontSize, "\(package): \(template.name)")
                // Anki's .apkg import gives new decks new ids and leaves a template's target deck
                // pointing at the old one (it does so with its own packages: Peers' current.apkg);
                // a .colpkg keeps it.
                let target = t.did.flatMap { deckNames[$0] }
                #expect(target == template.targetDeck?.name || (!wholeCollection && target == nil), "\(package): \(template.name) target deck")
            }
        }
        // Decks and presets, by name.
        let ankiDecks = Dictionary(anki.decks.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let presets = Dictionary(anki.presets.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for ours in try deck.decksByName() {
            let theirs = try #require(ankiDecks[ours.name], "\(package): deck \(ours.name)")
            #expect(theirs.desc == ours.deckDescription && (theirs.md ?? false) == ours.markdownDescription, "\(package): \(ours.name)")
            #expect(theirs.dyn == ours.kind.rawValue, "\(package): \(ours.name)")
            if ours.kind == .filtered {
                #expect(theirs.terms?.map(\.search) == ["deck:Science is:review"] && theirs.terms?.first?.limit == 50, "\(package)")
                #expect(theirs.terms?.first?.order == 1 && theirs.resched == ours.reschedules, "\(package)")
                continue
            }
            // An .apkg import leaves the collection's own Default deck as it was (collapsed in a new one).
            if wholeCollection || ours.name != "Default" { #expect(theirs.collapsed == ours.collapsed, "\(package): \(ours.name)") }
            let preset = try #require(ours.preset)
            let config = try #require(theirs.conf.flatMap { presets[$0] }, "\(package): preset of \(ours.name)")
            #expect(config.name == preset.name, "\(package): \(ours.name)")
            #expect(config.new.perDay == preset.newPerDay && config.rev.perDay == preset.reviewsPerDay, "\(package): \(preset.name)")
            let steps = { (json: String) in try JSONDecoder().decode([Double].self, from: Data(json.utf8)) }
            #expect(try config.new.delays == steps(preset.learningSteps) && config.lapse.delays == steps(preset.relearningSteps), "\(package)")
            #expect(config.rev.maxIvl == preset.maximumInterval && abs(config.desiredRetention - preset.desiredRetention) < 1e-6, "\(package)")
            #expect(config.new.initialFactor == preset.startingEase && config.new.ints.prefix(2) == [preset.graduatingInterval, preset.easyInterval], "\(package)")
            #expect(abs(config.rev.ease4 - preset.easyBonus) < 1e-6 && abs(config.rev.hardFactor - preset.hardMultiplier) < 1e-6, "\(package)")
            #expect(abs(config.rev.ivlFct - preset.intervalMultiplier) < 1e-6 && abs(config.lapse.mult - preset.lapseMultiplier) < 1e-6, "\(package)")
            #expect(config.lapse.minInt == preset.minimumLapseInterval && config.lapse.leechFails == preset.leechThreshold, "\(package)")
            #expect(config.new.bury == preset.buryNewSiblings && config.rev.bury == preset.buryReviewSiblings, "\(package)")
            #expect((config.buryInterdayLearning ?? false) == preset.buryInterdaySiblings, "\(package)")
            let weights = try steps(preset.fsrsParameters)
            if !weights.isEmpty {
                let theirs = config.fsrsParams6 ?? []
                #expect(theirs.count == weights.count && zip(theirs, weights).allSatisfy { abs($0 - $1) < 1e-5 }, "\(package): weights of \(preset.name)")
            }
        }
        if wholeCollection {
            #expect(anki.crt == info.dayZero, "colpkg keeps col.crt")
            #expect(anki.fsrs, "colpkg keeps the FSRS switch")
        }
        // Notes, by GUID.
        let notes = Dictionary(anki.notes.map { ($0.guid, $0) }, uniquingKeysWith: { a, _ in a })
        let cards = Dictionary(anki.cards.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let reviews = Dictionary(anki.revlog.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var ourCards = 0, ourReviews = 0
        try deck.forEachStoredNote { note in
            let theirs = try #require(notes[note.guid], "\(package): note \(note.guid)")
            #expect(theirs.id == note.ankiID && theirs.fields == note.fields && Set(theirs.tags) == Set(note.tags), "\(package): \(note.guid)")
            #expect(theirs.mid == typeIDs[note.noteTypeKey], "\(package): \(note.guid)")
            for card in note.cards {
                ourCards += 1
                let cardID = try #require(card.ankiID)
                let c = try #require(cards[cardID], "\(package): card \(card.pk)")
                let label = "\(package): card \(card.ordinal) of \(note.fields[0].prefix(12))"
                #expect(c.nid == theirs.id && c.ord == card.ordinal, "\(label)")
                let deckName = try deck.decksByName().first { $0.persistentModelID.primaryKey == card.deckKey }?.name
                #expect(deckNames[c.did] == deckName, "\(label): deck")
                #expect(c.type == card.type && c.queue == card.queue, "\(label): type/queue")
                // Day numbers count from each collection's creation day: Anki's import keeps the
                // days from today (its own today against the package's), so compare those; crt
                // arithmetic named different days before and after the 04:00 rollover.
                let dayNumbered = [2, 3].contains(card.queue) || ([-1, -2, -3].contains(card.queue) && [2, 3].contains(card.type))
                if dayNumbered {
                    #expect(c.due - ankiToday == card.due - ourToday, "\(label): due")
                } else {
                    #expect(c.due == card.due, "\(label): due")
                }
                #expect(c.ivl == card.interval && c.factor == card.easeFactor && c.reps == card.repetitions, "\(label)")
                #expect(c.lapses == card.lapses && c.left == card.remainingSteps && c.flags == card.flag, "\(label)")
                if let original = card.originalDeckKey {
                    let name = try deck.decksByName().first { $0.persistentModelID.primaryKey == original }?.name
                    #expect(deckNames[c.odid] == name, "\(label): original deck")
                    #expect(c.odue - ankiToday == card.originalDue - ourToday, "\(label): original due")
                } else {
                    #expect(c.odid == 0 && c.odue == 0, "\(label)")
                }
                #expect(close(c.stability, card.stability) && close(c.difficulty, card.difficulty), "\(label): memory state")
                #expect(close(c.desiredRetention, card.desiredRetention), "\(label): desired retention")
                #expect(c.customData == card.customData, "\(label): custom data")
                for review in card.reviews {
                    ourReviews += 1
                    let r = try #require(reviews[review.ankiID ?? review.time],
                                         "\(label): review \(review.time) of \(anki.revlog.filter { $0.cid == c.id }.map { [$0.id, Int64($0.ease), Int64($0.type)] })")
                    #expect(r.cid == c.id && r.ease == review.rating && r.ivl == review.interval && r.lastIvl == review.lastInterval, "\(label)")
                    #expect(r.factor == review.easeFactor && r.time == review.duration && r.type == review.kind, "\(label)")
                }
            }
        }
        #expect(anki.cards.count == ourCards && anki.revlog.count == ourReviews, "\(package)")
        var media: [String: String] = [:]
        for item in try deck.allMedia() { media[item.originalName] = sha1Hex(try Data(contentsOf: deck.fileURL(of: item))) }
        #expect(anki.media == media, "\(package): media")
    }

    func close(_ a: Double?, _ b: Double?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): abs(a - b) < 1e-4
        default: false
        }
    }
}
