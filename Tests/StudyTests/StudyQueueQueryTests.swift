import DeckDocument
import Foundation
import Persistence
import Scheduling
@testable import Study
import Testing

/// The queue DeckStudy streams from the store's index, phase by phase and deck by deck,
/// against the builder fed every card of the tree in the documented candidate order (the
/// order the Anki peer test checks the builder with), on random trees, presets, card states
/// and reviews already done today.
@Suite struct StudyQueueQueryTests {
    typealias V2 = DeckSchemaV2

    /// SplitMix64, so a failing case can be replayed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let dayZero: Int64 = 1_764_547_200
    /// 2026-12-01 12:00 UTC: day 365 of the deck.
    static let now = Date(timeIntervalSince1970: 1_796_126_400)

    struct Case {
        let folder: URL
        let container: ModelContainer
        let context: ModelContext
        let decks: [V2.Deck]
        let presets: [V2.Deck: SchedulingPreset]
    }

    static func makeCase(seed: UInt64) throws -> Case {
        var rng = Generator(state: seed)
        func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &rng)] }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("study-query-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("Deck.sqlite")
        try DeckStoreV2.createStore(at: url, title: "Query", dayZero: dayZero)
        let container = try ModelContainer(for: DeckStoreV2.schema(), configurations: [ModelConfiguration("Deck", url: url)])
        let context = ModelContext(container)
        let presets = (0..<Int.random(in: 1...3, using: &rng)).map { index -> V2.Preset in
            let preset = V2.Preset(name: "P\(index)")
            preset.newPerDay = pick([0, 2, 5, 20])
            preset.reviewsPerDay = pick([1, 4, 10, 200])
            preset.buryNewSiblings = Bool.random(using: &rng)
            preset.buryReviewSiblings = Bool.random(using: &rng)
            preset.buryInterdaySiblings = Bool.random(using: &rng)
            preset.ankiOptions = "{\"newSortOrder\": \(pick([0, 1, 2, 3, 4])), \"newMix\": \(pick([0, 1, 2])), \"interdayLearningMix\": \(pick([0, 1, 2]))}"
            context.insert(preset)
            return preset
        }
        // Inserted out of name order, so keys and name order differ.
        let names = ["R::B", "R", "R::A::X", "R::A", "R::B::Y", "Other"]
        let decks = names.map { name -> V2.Deck in
            let deck = V2.Deck(name: name)
            context.insert(deck)
            deck.preset = pick(presets)
            return deck
        }
        let type = V2.NoteType(name: "Two", kind: .standard)
        context.insert(type)
        let today: Int64 = 365
        let nowSeconds = Int64(now.timeIntervalSince1970)
        let tags = ["zeta", "alpha"].map { name -> V2.Tag in
            let tag = V2.Tag(name: name)
            context.insert(tag)
            return tag
        }
        for position in 0..<Int64(Int.random(in: 30...70, using: &rng)) {
            let note = V2.Note(guid: "n\(position)", fields: ["a\(position)", "b"])
            context.insert(note)
            note.noteType = type
            if position % 3 == 0 { note.tags = position % 2 == 0 ? tags : [tags[0]] }
            for ordinal in 0..<2 {
                let card = V2.Card(ordinal: ordinal)
                context.insert(card)
                card.note = note
                card.deck = pick(decks)
                // Ties on due are common, so the ordinal and key tie-breaks matter.
                switch pick([0, 0, 0, 1, 1, 2, 2, 2, 3, -1, -2, 4]) {
                case 0: card.queue = .new; card.due = position / 2
                case 1: card.queue = .learning; card.type = .learning; card.due = nowSeconds + pick([-3000, -600, -600, 0, 500, 5000, 40_000, 60_000]); card.repetitions = pick([0, 1, 3])
                case 2: card.queue = .review; card.type = .review; card.due = today + pick([-5, -1, -1, 0, 0, 1, 3]); card.repetitions = 3
                case 3: card.queue = .dayLearning; card.type = .learning; card.due = today + pick([-2, 0, 0, 1]); card.repetitions = 1
                case 4: card.queue = .preview; card.type = .learning; card.due = nowSeconds + pick([-100, 100]); card.repetitions = 1
                case -1: card.queue = .suspended
                default: card.queue = .buriedSibling
                }
                // Some answers already given today (they use up the limits).
                if Int.random(in: 0..<8, using: &rng) == 0 {
                    let review = V2.Review(time: (nowSeconds - 3600) * 1000, rating: 3, interval: 1, lastInterval: pick([0, 3]),
                                           easeFactor: 2500, duration: 1000, kind: pick([.learn, .review]))
                    context.insert(review)
                    review.card = card
                }
            }
        }
        try context.save()
        var resolved: [V2.Deck: SchedulingPreset] = [:]
        for deck in decks { resolved[deck] = try DeckStudy.preset(of: deck) }
        return Case(folder: folder, container: container, context: context, decks: decks, presets: resolved)
    }

    /// The builder fed every card of the models, filtered and sorted as StudyQueueBuilder documents.
    static func reference(_ test: Case, root rootName: String, at time: Date) throws -> StudyQueue {
        let timing = SchedulingTiming(creation: dayZero, utcOffset: 0, rolloverHour: 4)
        let now = Int64(time.timeIntervalSince1970)
        let today = timing.today(at: now)
        let dayStart = (today.nextDayAt - 86_400) * 1000
        let tree = test.decks.filter { $0.name == rootName || $0.name.hasPrefix(rootName + "::") }
            .sorted { DeckStudy.rank($0.name) < DeckStudy.rank($1.name) }
        let byName = Dictionary(uniqueKeysWithValues: tree.map { ($0.name, $0) })
        let decks = tree.map { deck -> StudyDeck in
            let parentName = deck.name.range(of: "::", options: .backwards).map { String(deck.name[..<$0.lowerBound]) }
            var new = 0, reviews = 0
            for card in deck.cards {
                for review in card.reviews where review.time >= dayStart {
                    if review.kind == .learn && review.lastInterval == 0 { new += 1 }
                    if review.kind == .review { reviews += 1 }
                }
            }
            return StudyDeck(id: deck.id, parentID: parentName.flatMap { byName[$0]?.id }, preset: test.presets[deck] ?? .default,
                             newStudiedToday: new, reviewsStudiedToday: reviews)
        }
        var builder = try StudyQueueBuilder(root: try #require(byName[rootName]).id, decks: decks, timing: timing, at: time)
        func phase(_ queue: V2.CardQueue) -> Int { [.learning: 0, .preview: 0, .dayLearning: 1, .review: 2, .new: 3][queue] ?? 9 }
        var candidates: [(key: (Int, Int, Int64, Int, Int64), candidate: StudyCandidate)] = []
        for (rank, deck) in tree.enumerated() {
            for card in deck.cards {
                switch card.queue {
                case .learning, .preview: guard card.due < today.nextDayAt else { continue }
                case .review, .dayLearning: guard card.due <= today.day else { continue }
                case .new: break
                default: continue
                }
                let queue = try #require(CardQueue(rawValue: card.queue.rawValue))
                candidates.append(((phase(card.queue), card.queue == .new ? rank : 0, card.due, card.ordinal, card.id),
                                   StudyCandidate(id: card.id, noteID: card.note?.id ?? 0, deckID: deck.id, queue: queue, due: card.due,
                                                  reps: card.repetitions, templateIndex: card.ordinal)))
            }
        }
        candidates.sort { $0.key < $1.key }
        for entry in candidates where !builder.add(entry.candidate) { break }
        return builder.build()
    }

    @Test(arguments: 1...12) func theStreamedQueueIsTheDocumentedQuerysQueue(seed: Int) throws {
        let test = try Self.makeCase(seed: UInt64(seed))
        defer { try? FileManager.default.removeItem(at: test.folder) }
        let study = DeckStudy(context: test.context, fuzz: .off, utcOffset: 0)
        for root in ["R", "R::A", "R::B", "Other"] {
            for time in [Self.now, Self.now.addingTimeInterval(-20_000)] {
                let ours = try study.queue(deck: root, at: time)
                let expected = try Self.reference(test, root: root, at: time)
                #expect(ours == expected, "seed \(seed), deck \(root), at \(time)")
            }
        }
    }

    @Test func dueListsWhatIsDueInStudyOrder() throws {
        let test = try Self.makeCase(seed: 99)
        defer { try? FileManager.default.removeItem(at: test.folder) }
        let study = DeckStudy(context: test.context, fuzz: .off, utcOffset: 0)
        let now = Int64(Self.now.timeIntervalSince1970)
        let tree = test.decks.filter { $0.name == "R" || $0.name.hasPrefix("R::") }.sorted { DeckStudy.rank($0.name) < DeckStudy.rank($1.name) }
        func phase(_ queue: V2.CardQueue) -> Int { [.learning: 0, .preview: 0, .dayLearning: 1, .review: 2, .new: 3][queue] ?? 9 }
        let expected = tree.enumerated().flatMap { rank, deck in
            deck.cards.filter { card in
                switch card.queue {
                case .new: true
                case .learning, .preview: card.due <= now
                case .review, .dayLearning: card.due <= 365
                default: false
                }
            }.map { ((phase($0.queue), $0.queue == .new ? rank : 0, $0.due, $0.ordinal, $0.id), $0.id) }
        }.sorted { $0.0 < $1.0 }.map(\.1)
        #expect(!expected.isEmpty)
        #expect(try study.dueCardIDs(deck: "R", at: Self.now) == expected)
        #expect(try study.dueCards(deck: "R", at: Self.now).map(\.id) == expected)

        // The rows deck due lists: the same cards in the same order, each with its state and note as the models hold them.
        var rows: [DueCardRow] = []
        try study.forEachDueCard(deck: "R", at: Self.now, package: test.folder) { rows.append($0); return true }
        #expect(rows.map(\.id) == expected)
        for row in rows {
            let card = try #require(try study.card(row.id))
            #expect(row.type == card.type && row.study.queue == card.queue && row.study.due == card.due && row.interval == card.interval
                        && row.study.repetitions == card.repetitions && row.lapses == card.lapses && row.flag == card.flag
                        && row.stability == card.stability && row.difficulty == card.difficulty, "card \(row.id)")
            #expect(row.fields == card.note?.fields && row.tags == card.note?.tags.map(\.name).sorted()
                        && row.noteType == card.note?.noteType?.persistentModelID.primaryKey, "card \(row.id)")
        }
        #expect(rows.contains { $0.tags == ["alpha", "zeta"] } || rows.contains { $0.tags == ["zeta"] }, "some listed notes are tagged")
        var first: [Int64] = []
        try study.forEachDueCard(deck: "R", at: Self.now, package: test.folder) { first.append($0.id); return first.count < 3 }
        #expect(first == Array(expected.prefix(3)), "false from the body stops the scan")
    }

    /// deck due checks what it lists: a card (or note) breaking a value rule is refused as the
    /// scan reads it, naming the deck, the row and the column; one that isn't due is not read.
    @Test func theDueScanRefusesBadValuesInWhatItLists() throws {
        let test = try Self.makeCase(seed: 99)
        defer { try? FileManager.default.removeItem(at: test.folder) }
        let study = DeckStudy(context: test.context, fuzz: .off, utcOffset: 0)
        let due = try study.dueCardIDs(deck: "R", at: Self.now)
        let listed = try #require(due.last)
        let unlisted = try #require(try test.container.withDatabase(for: V2.Card.self) { db in
            try db.scalar(#"SELECT min("pk") FROM "Card" WHERE "queue" = -1"#, as: Int64.self)
        })
        try test.container.withDatabase(for: V2.Card.self) { db in try db.execute(#"UPDATE "Card" SET "flag" = 99 WHERE "pk" = \#(unlisted)"#) }
        var count = 0
        try study.forEachDueCard(deck: "R", at: Self.now, package: test.folder) { _ in count += 1; return true }
        #expect(count == due.count, "a suspended card is not read")
        try test.container.withDatabase(for: V2.Card.self) { db in try db.execute(#"UPDATE "Card" SET "lapses" = -1 WHERE "pk" = \#(listed)"#) }
        count = 0
        do {
            try study.forEachDueCard(deck: "R", at: Self.now, package: test.folder) { _ in count += 1; return true }
            Issue.record("a listed card with lapses = -1 was not refused")
        } catch let error as DeckError {
            #expect(error.kind == .corrupt && error.reason.hasPrefix("Card \(listed).lapses = -1: out of range"), "\(error)")
            #expect(count == due.count - 1, "the cards before it were listed")
        }
        let note = try #require(try test.container.withDatabase(for: V2.Card.self) { db in
            try db.scalar(#"SELECT "note" FROM "Card" WHERE "pk" = \#(due[0])"#, as: Int64.self)
        })
        try test.container.withDatabase(for: V2.Card.self) { db in try db.execute(#"UPDATE "Note" SET "fields" = '{"a": 1}' WHERE "pk" = \#(note)"#) }
        do {
            try study.forEachDueCard(deck: "R", at: Self.now, package: test.folder) { _ in true }
            Issue.record("a listed card's note whose fields are not an array was not refused")
        } catch let error as DeckError {
            #expect(error.kind == .corrupt && error.reason.hasPrefix("Note \(note).fields"), "\(error)")
        }
    }

    @Test func aCardRowOfTheWrongStorageClassIsAnError() throws {
        let test = try Self.makeCase(seed: 7)
        defer { try? FileManager.default.removeItem(at: test.folder) }
        try test.container.withDatabase(for: V2.Card.self) { db in
            try db.execute(#"UPDATE "Card" SET "repetitions" = 'many'"#)
            try db.execute(#"UPDATE "Card" SET "queue" = 1, "due" = 1796126000, "deck" = (SELECT "pk" FROM "Deck" WHERE "name" = 'R') WHERE "pk" = (SELECT min("pk") FROM "Card")"#)
        }
        let study = DeckStudy(context: test.context, fuzz: .off, utcOffset: 0)
        #expect(throws: PersistenceError.self) { try study.queue(deck: "R", at: Self.now) }
    }
}
