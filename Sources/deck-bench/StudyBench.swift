import DeckDocument
import Foundation
import Persistence
import SQLite
import Scheduling
import Study

/// Issue 18's bars on a real deck: today's queue of a 1,000,000-card `.sampledeck` through
/// `DeckStudy` (streamed from the store), one answer through the library with its save, and
/// `deck review` end to end (process start included) against `sqlite3` writing the same rows.
enum StudyBench {
    /// Day 0 of the bench deck: 2026-01-05 04:00 UTC; the bench studies on day 300 at noon UTC.
    static let dayZero: Int64 = 1_767_585_600
    static let today: Int64 = 300
    static let now: Int64 = dayZero + today * 86_400 + 8 * 3600

    struct Deck {
        let url: URL
        let store: URL
        /// Review cards due today, to answer (each run answers a different one).
        let reviewCards: [Int64]
    }

    /// A deck of `cards` cards, two per note (Basic (and reversed card)), in a root deck
    /// "Bench" and 20 subdecks, half of them on a preset burying siblings: 0.2 % intraday
    /// learning due today, 0.8 % interday learning, 29 % reviews (about half due today), the rest
    /// new. The decks and presets go through the models; the notes and cards are inserted with
    /// one prepared statement each (the bench's setup, not measured).
    static func makeDeck(in scratch: Scratch, cards: Int) throws -> Deck {
        try makeDeck(at: scratch.file("study-\(cards).sampledeck"), cards: cards)
    }

    /// ``makeDeck(in:cards:)`` at `url` (replaced when it exists): the `study-deck` child mode
    /// keeps it for profiling.
    static func makeDeck(at url: URL, cards: Int) throws -> Deck {
        try? FileManager.default.removeItem(at: url)
        try DeckDocument.create(at: url, title: "Study bench").close()
        let document = try DeckDocument.open(at: url)
        let context = document.mainContext
        let bury = DeckSchemaV2.Preset(name: "Bury siblings")
        bury.buryNewSiblings = true
        bury.buryReviewSiblings = true
        context.insert(bury)
        let standard = try context.fetch(FetchDescriptor<DeckSchemaV2.Preset>()).first { $0.name == "Default" }
        let names = ["Bench"] + (1...20).map { String(format: "Bench::Sub %02d", $0) }
        var deckModels: [DeckSchemaV2.Deck] = []
        for (index, name) in names.enumerated() {
            let deck = DeckSchemaV2.Deck(name: name)
            context.insert(deck)
            deck.preset = index % 2 == 0 ? standard : bury
            deckModels.append(deck)
        }
        let info = try context.fetch(FetchDescriptor<DeckSchemaV2.DeckInfo>()).first
        info?.dayZero = dayZero
        try document.save()
        let type = try document.stockNoteType(.reversible)
        let typeKey = type.persistentModelID.primaryKey
        let deckKeys = deckModels.map { $0.persistentModelID.primaryKey }
        var reviewCards: [Int64] = []
        try document.container.withDatabase(for: DeckSchemaV2.Card.self) { db in
            try db.transaction(.immediate) {
                let note = try db.prepare(#"INSERT INTO "Note" ("guid", "fields", "sortText", "created", "modified", "noteType") VALUES (?, ?, ?, ?, ?, ?)"#)
                let card = try db.prepare("""
                    INSERT INTO "Card" ("ordinal", "type", "queue", "due", "interval", "easeFactor", "repetitions", "lapses", \
                    "remainingSteps", "originalDue", "flag", "stability", "difficulty", "lastReview", "customData", "created", \
                    "modified", "ankiOptions", "note", "deck") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?, '', ?, ?, '{}', ?, ?)
                    """)
                let learning = cards / 500, interday = cards / 125, reviews = cards * 29 / 100
                let created = Double(now - 400 * 86_400)
                var noteKey: Int64 = 0
                for i in 0..<cards {
                    if i % 2 == 0 {
                        try note.execute([.text("bench-\(i / 2)"), .text("[\"front \(i / 2)\",\"back \(i / 2)\"]"), .text("front \(i / 2)"),
                                          .real(created), .real(created), .integer(typeKey)])
                        noteKey = db.lastInsertRowID
                    }
                    // (type, queue, due, interval, ease, reps, lapses, left, stability, difficulty, lastReview)
                    let row: (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, SQLValue, SQLValue, SQLValue)
                    let deck: Int64
                    if i < learning {
                        row = (1, 1, now - 3600 + Int64(i % 3600), 0, 0, 1, 0, 1001, .real(2.3), .real(5.1), .integer(now - 4000))
                        deck = deckKeys[i % 20 + 1]
                    } else if i < learning + interday {
                        row = (1, 3, today - Int64(i % 3), 0, 0, 2, 0, 1, .real(1.5), .real(6), .integer(now - 2 * 86_400))
                        deck = deckKeys[i % 20 + 1]
                    } else if i < learning + interday + reviews {
                        row = (2, 2, today - 15 + Int64(i % 31), 12, 2500, 6, 0, 0, .real(12.5), .real(5.2), .integer(now - 12 * 86_400))
                        deck = deckKeys[i % 20 + 1]
                    } else {
                        let rest = cards - learning - interday - reviews
                        row = (0, 0, Int64(i / 2), 0, 0, 0, 0, 0, .null, .null, .null)
                        deck = deckKeys[(i - learning - interday - reviews) * 20 / max(rest, 1) + 1]
                    }
                    try card.execute([.integer(Int64(i % 2)), .integer(row.0), .integer(row.1), .integer(row.2), .integer(row.3),
                                      .integer(row.4), .integer(row.5), .integer(row.6), .integer(row.7), row.8, row.9, row.10,
                                      .real(created), .real(created), .integer(noteKey), .integer(deck)])
                    if row.1 == 2 && row.2 <= today && reviewCards.count < 200 && i % 7 == 0 { reviewCards.append(db.lastInsertRowID) }
                }
            }
        }
        let store = document.storeURL
        try document.close()
        return Deck(url: url, store: store, reviewCards: reviewCards)
    }

    /// The `profile-answer` child mode: `answers` review cards due today of the deck at `path`
    /// (a ``makeDeck(at:cards:)`` deck) answered Good through the library as the "answer one
    /// card through the library" row does, for perf or callgrind; prints CPU and wall per answer.
    static func profileAnswers(deck path: String, answers: Int) throws {
        let document = try DeckDocument.open(at: URL(fileURLWithPath: path))
        let ids = try document.container.withDatabase(for: DeckSchemaV2.Card.self) { db in
            try db.rows(#"SELECT "pk" FROM "Card" WHERE "queue" = 2 AND "due" <= ? ORDER BY "pk" LIMIT ?"#,
                        [.integer(today), .integer(Int64(answers))]).compactMap { row -> Int64? in
                if case .integer(let id) = row[0] { return id }
                return nil
            }
        }
        let study = DeckStudy(context: document.mainContext, fuzz: .seeded, utcOffset: 0)
        let at = Date(timeIntervalSince1970: TimeInterval(now))
        let t = try timeBoth {
            for id in ids {
                guard let card = try study.card(id) else { throw BenchError("card \(id) is missing") }
                try study.answer(card, rating: .good, at: at, timeTaken: 3000)
            }
        }
        // The answers' saves are committed; a failure to close is this mode's error.
        try document.close()
        let count = Double(max(ids.count, 1))
        print(String(format: "%d answers: %.3f ms CPU, %.3f ms wall per answer", ids.count, t.cpu / count * 1000, t.wall / count * 1000))
    }

    static func measurement(_ name: String, samples: [Sample], per: Double = 1, bar: Double, barText: String, judge: Judge,
                            reference: [Sample] = [], referenceName: String? = nil, note: String) -> Measurement {
        let cpu = median(samples.map(\.cpu)) / per, wall = median(samples.map(\.wall)) / per
        let judged = judge == .wall ? samples.map(\.wall) : samples.map(\.cpu)
        let referenceWall = reference.isEmpty ? 0 : median(reference.map(\.wall)) / per
        var m = Measurement(name: name, ours_s: wall, reference_s: referenceWall, ratio: reference.isEmpty ? 0 : wall / max(referenceWall, 1e-9),
                            bar: bar, peak_mib: nil, met: (judge == .wall ? wall : cpu) < bar, runs: samples.count,
                            spread: (judged.max() ?? 0) / max(judged.min() ?? 1, 1e-9))
        m.ours_cpu_s = cpu
        if !reference.isEmpty {
            m.reference_cpu_s = median(reference.map(\.cpu)) / per
            m.cpu_ratio = cpu / max(m.reference_cpu_s ?? 1, 1e-9)
        }
        m.reference_name = referenceName
        m.group = "study"
        m.bar_text = barText
        m.judged_on = judge
        m.note = note
        return m
    }

    static func run(runs: Int, cards: Int, scratch: Scratch, log: (String) -> Void) throws -> [Measurement] {
        let deck = try makeDeck(in: scratch, cards: cards)
        log("study deck of \(cards) cards built")
        let at = Date(timeIntervalSince1970: TimeInterval(now))
        var results: [Measurement] = []

        // Today's queue, and the first card rendered with its buttons, on a deck opened read-only.
        do {
            let document = try DeckDocument.open(at: deck.url, mode: .readOnly)
            defer { try? document.close() }
            let study = DeckStudy(context: document.mainContext, fuzz: .off, utcOffset: 0)
            var queued = 0
            var queueSamples: [Sample] = [], firstSamples: [Sample] = []
            for _ in 0..<max(runs, 1) {
                var queue: StudyQueue?
                let q = try timeBoth { queue = try study.queue(deck: "Bench", at: at) }
                queueSamples.append(Sample(wall: q.wall, cpu: q.cpu))
                queued = (queue?.learning.count ?? 0) + (queue?.main.count ?? 0)
                let f = try timeBoth {
                    let built = try study.queue(deck: "Bench", at: at)
                    guard let entry = built.next(at: now), let card = try study.card(entry.cardID) else { throw BenchError("no card to study") }
                    _ = DeckStudy.render(card)
                    _ = try study.preview(card, at: at)
                }
                firstSamples.append(Sample(wall: f.wall, cpu: f.cpu))
            }
            results.append(measurement("today's queue of a \(cards)-card deck (DeckStudy)", samples: queueSamples, bar: 0.1,
                                       barText: "< 100 ms CPU", judge: .cpu,
                                       note: "DeckStudy.queue(deck: \"Bench\") on a .sampledeck of \(cards) cards in 21 decks (half burying siblings), default limits (20 new, 200 reviews a day); \(queued) cards queued. Candidates streamed from the store's (deck, queue, due) index, one statement per deck and queue, stopped at the limits; the deck is open (opening is in the deck review row)."))
            results.append(measurement("first card of a \(cards)-card deck: queue, card, render, buttons", samples: firstSamples, bar: 0.1,
                                       barText: "< 100 ms CPU", judge: .cpu,
                                       note: "The queue as above, then the first card read by its key, rendered from its template and its four buttons previewed: what deck study does before it shows a card."))
        }

        // One answer through the library, saved: DeckStudy.answer on review cards due today.
        do {
            let document = try DeckDocument.open(at: deck.url)
            defer { try? document.close() }
            let study = DeckStudy(context: document.mainContext, fuzz: .seeded, utcOffset: 0)
            let perRun = 20
            var samples: [Sample] = []
            var next = 0
            for _ in 0..<max(runs, 1) {
                let ids = (0..<perRun).map { deck.reviewCards[(next + $0) % deck.reviewCards.count] }
                next += perRun
                let t = try timeBoth {
                    for id in ids {
                        guard let card = try study.card(id) else { throw BenchError("card \(id) is missing") }
                        try study.answer(card, rating: .good, at: at, timeTaken: 3000)
                    }
                }
                samples.append(Sample(wall: t.wall, cpu: t.cpu))
            }
            results.append(measurement("answer one card through the library, saved", samples: samples, per: Double(perRun), bar: 0.001,
                                       barText: "< 1 ms CPU", judge: .cpu,
                                       note: "DeckStudy.card(id) and answer(_:rating: .good) on review cards due today of the \(cards)-card deck (FSRS, fuzz on): the new state, a review row and one save each; median of \(runs) runs of \(perRun) answers, per answer. The Scheduler row above is the computation alone."))
        }

        // deck review end to end, against sqlite3 writing the same rows from its command line.
        let reviewRuns = max(runs, 30)
        var ours: [Sample] = [], reference: [Sample] = []
        let store = deck.store
        for run in 0..<reviewRuns {
            let id = deck.reviewCards[(100 + run) % deck.reviewCards.count]
            ours.append(try ChildProcess.deck(["review", deck.url.path, String(id), "good", "--at", String(now), "--quiet"]).sample)
            let other = deck.reviewCards[(100 + run + reviewRuns) % deck.reviewCards.count]
            reference.append(try ChildProcess.run("sqlite3", [store.path, """
                BEGIN; UPDATE "Card" SET "queue" = 2, "due" = "due" + 30, "interval" = 30, "repetitions" = "repetitions" + 1, \
                "stability" = 30.5, "difficulty" = 5.1, "lastReview" = \(now), "modified" = \(now) WHERE "pk" = \(other); \
                INSERT INTO "Review" ("time", "rating", "interval", "lastInterval", "easeFactor", "duration", "kind", "card") \
                VALUES (\(now * 1000 + Int64(run)), 3, 30, 12, 2500, 0, 1, \(other)); COMMIT;
                """]).sample)
        }
        results.append(measurement("deck review end to end (\(cards)-card deck)", samples: ours, bar: 0.03, barText: "< 30 ms wall",
                                   judge: .wall, reference: reference, referenceName: "sqlite3 CLI updating the card and inserting its review row",
                                   note: "The release deck binary answering a review card Good on the \(cards)-card deck, process start to exit (open with its lock and checks, the answer, one save, close), median of \(reviewRuns) runs, each a different card; sqlite3 writes the same two rows in one transaction from its own process."))
        return results
    }
}
