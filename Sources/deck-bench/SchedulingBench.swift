import Foundation
import Scheduling

/// Study (issue 18): one answer through the Scheduling library (< 1 ms) and today's queue of a
/// 1,000,000-card deck built from streamed candidates (< 100 ms). Absolute bars, judged on CPU
/// time; there is no reference to compare with (the reference columns are 0).
enum SchedulingBench {
    static func run(runs: Int, cards: Int) -> [Measurement] {
        [answer(runs: runs), queue(runs: runs, cards: cards, limits: nil), queue(runs: runs, cards: cards, limits: 100_000)]
    }

    static func measurement(_ name: String, samples: [Sample], per: Double, bar: Double, barText: String, note: String) -> Measurement {
        let cpu = median(samples.map(\.cpu)) / per, wall = median(samples.map(\.wall)) / per
        let values = samples.map(\.cpu)
        var m = Measurement(name: name, ours_s: wall, reference_s: 0, ratio: 0, bar: bar, peak_mib: nil, met: cpu < bar,
                            runs: samples.count, spread: (values.max() ?? 0) / max(values.min() ?? 1, 1e-9))
        m.ours_cpu_s = cpu
        m.group = "study"
        m.bar_text = barText
        m.judged_on = .cpu
        m.note = note
        return m
    }

    /// 10,000 answers of cards in every state, FSRS and SM-2, fuzz on; the figure is per answer.
    static func answer(runs: Int) -> Measurement {
        let creation: Int64 = 1_767_585_600
        let scheduler = Scheduler(timing: SchedulingTiming(creation: creation, rolloverHour: 4))
        let memory = MemoryState(stability: 12.5, difficulty: 5.2)
        let states: [CardSchedulingState] = [
            .new(position: 1),
            CardSchedulingState(type: .learning, queue: .learning, due: creation + 200 * 86_400, reps: 1, remainingSteps: 1,
                                memory: memory, lastReview: creation + 200 * 86_400 - 600),
            CardSchedulingState(type: .review, queue: .review, due: 200, interval: 10, easeFactor: 2500, reps: 6,
                                memory: memory, lastReview: creation + 190 * 86_400),
            CardSchedulingState(type: .relearning, queue: .learning, due: creation + 200 * 86_400, interval: 3, easeFactor: 2300,
                                reps: 8, lapses: 1, remainingSteps: 1, memory: memory, lastReview: creation + 200 * 86_400 - 600),
        ]
        let presets = [SchedulingPreset.default, .sm2]
        let at = Date(timeIntervalSince1970: TimeInterval(creation + 200 * 86_400 + 3600))
        let count = 10_000
        var checksum = 0
        let samples = (0..<max(runs, 1)).map { _ in
            let t = timeBoth {
                for i in 0..<count {
                    let rating = Rating(rawValue: i % 4 + 1) ?? .good
                    if let answer = try? scheduler.answer(states[i % 4], rating: rating, at: at, preset: presets[(i / 4) % 2],
                                                          cardID: Int64(i)) {
                        checksum &+= answer.state.interval
                    }
                }
            }
            return Sample(wall: t.wall, cpu: t.cpu)
        }
        _ = checksum
        var m = measurement("answer one card through the library", samples: samples, per: Double(count), bar: 0.001,
                            barText: "< 1 ms CPU",
                            note: "Scheduler.answer over new, learning, review and relearning cards, all four buttons, FSRS-6 and SM-2 presets, fuzz on; median of \(runs) runs of \(count) answers, per answer. The state and its review-log row are computed; storing them is the store's part (the DeckStudy row below). Reference: the fsrs package's Scheduler.review_card on new, learning and review cards, all four buttons, fuzz on, \(count) answers timed inside its process.")
        // The reference implementation, side by side: fsrs (PyPI) answering the same mix.
        let reference = (0..<max(runs, 1)).compactMap { _ -> Sample? in
            guard let result = try? ChildProcess.run("python3", ["-c", fsrsScript, String(count)]) else { return nil }
            let fields = result.stdout.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
            return fields.count == 2 ? Sample(wall: fields[0], cpu: fields[1]) : nil
        }
        if !reference.isEmpty {
            let wall = median(reference.map(\.wall)), cpu = median(reference.map(\.cpu))
            m = Measurement(name: m.name, ours_s: m.ours_s, reference_s: wall, ratio: m.ours_s / max(wall, 1e-12),
                            bar: m.bar, peak_mib: nil, met: m.met, runs: m.runs, spread: m.spread)
            m.ours_cpu_s = median(samples.map(\.cpu)) / Double(count)
            m.reference_cpu_s = cpu
            m.cpu_ratio = (m.ours_cpu_s ?? 0) / max(cpu, 1e-12)
            m.reference_name = "fsrs \(PythonPeers.version("fsrs")) (PyPI), Scheduler.review_card per answer"
            m.group = "study"
            m.bar_text = "< 1 ms CPU"
            m.judged_on = .cpu
            m.note = "Scheduler.answer over new, learning, review and relearning cards, all four buttons, FSRS-6 and SM-2 presets, fuzz on; median of \(runs) runs of \(count) answers, per answer; the fsrs package answers the same four kinds of card with the four buttons, fuzz on, timed inside its process (its start-up left out). Storing the answer is the DeckStudy row below."
        }
        return m
    }

    /// fsrs answering `argv[1]` cards (new, learning, review, relearning by turns; the four
    /// buttons), printing wall and CPU seconds per answer.
    static let fsrsScript = """
        import sys, time
        from datetime import datetime, timedelta, timezone
        from fsrs import Card, Rating, Scheduler
        scheduler = Scheduler(enable_fuzzing=True)
        now = datetime(2026, 12, 1, 12, tzinfo=timezone.utc)
        cards = [Card() for _ in range(4)]
        for i in range(1, 4):
            for k in range(i + 1):
                cards[i], _ = scheduler.review_card(cards[i], Rating.Good if k < 3 else Rating.Again, review_datetime=now - timedelta(days=40 - 12 * k))
        ratings = [Rating.Again, Rating.Hard, Rating.Good, Rating.Easy]
        n = int(sys.argv[1])
        wall, cpu = time.perf_counter(), time.process_time()
        for i in range(n):
            scheduler.review_card(cards[i % 4], ratings[(i // 4) % 4], review_datetime=now)
        print((time.perf_counter() - wall) / n, (time.process_time() - cpu) / n)
        """

    /// A 1,000,000-card tree of 21 decks: 2,000 intraday learning, 8,000 interday learning,
    /// 290,000 reviews due today and 700,000 new cards, fed to the builder in the documented
    /// query order, every candidate (the builder's early stop not used).
    static func queue(runs: Int, cards: Int, limits: Int?) -> Measurement {
        let creation: Int64 = 1_767_585_600
        let timing = SchedulingTiming(creation: creation, rolloverHour: 4)
        let today: Int64 = 300
        let now = creation + today * 86_400 + 3600
        var preset = SchedulingPreset.default
        if let limits { preset.newCardsPerDay = limits; preset.reviewsPerDay = limits }
        var buried = preset
        buried.buryNew = true
        buried.buryReviews = true
        let decks = [StudyDeck(id: 1, preset: preset)] + (2...21).map { StudyDeck(id: Int64($0), parentID: 1, preset: $0 % 2 == 0 ? buried : preset) }
        let learning = cards / 500, interday = cards / 125, reviews = cards * 29 / 100
        var candidates: [StudyCandidate] = []
        candidates.reserveCapacity(cards)
        for i in 0..<cards {
            let id = Int64(i + 1), note = Int64(i / 2 + 1), deck = Int64(i % 20 + 2)
            if i < learning {
                candidates.append(StudyCandidate(id: id, noteID: note, deckID: deck, queue: .learning, due: now - 3600 + Int64(i), reps: 1))
            } else if i < learning + interday {
                candidates.append(StudyCandidate(id: id, noteID: note, deckID: deck, queue: .dayLearning, due: today - Int64(i % 3), reps: 2))
            } else if i < learning + interday + reviews {
                candidates.append(StudyCandidate(id: id, noteID: note, deckID: deck, queue: .review, due: today - 30 + Int64(i % 31), reps: 5))
            } else {
                candidates.append(StudyCandidate(id: id, noteID: note, deckID: Int64((i - learning - interday - reviews) * 20 / (cards - learning - interday - reviews) + 2),
                                                 queue: .new, due: note, templateIndex: i % 2))
            }
        }
        // The documented order: phase, then due (reviews) or deck and position (new).
        func phase(_ q: CardQueue) -> Int { q == .learning ? 0 : q == .dayLearning ? 1 : q == .review ? 2 : 3 }
        candidates.sort { (phase($0.queue), $0.queue == .new ? $0.deckID : 0, $0.due, $0.id) < (phase($1.queue), $1.queue == .new ? $1.deckID : 0, $1.due, $1.id) }
        var queued = 0
        let samples = (0..<max(runs, 1)).map { _ in
            let t = timeBoth {
                guard var builder = try? StudyQueueBuilder(root: 1, decks: decks, timing: timing, at: Date(timeIntervalSince1970: TimeInterval(now))) else { return }
                for candidate in candidates { builder.add(candidate) }
                let queue = builder.build()
                queued = queue.learning.count + queue.main.count
            }
            return Sample(wall: t.wall, cpu: t.cpu)
        }
        let limitText = limits.map { "limits of \($0) new and \($0) reviews a day" } ?? "default limits (20 new, 200 reviews a day)"
        return measurement("queue of \(cards) cards, \(limits == nil ? "default limits" : "limits \(limits ?? 0)")", samples: samples, per: 1,
                           bar: 0.1, barText: "< 100 ms CPU",
                           note: "StudyQueueBuilder fed every one of \(cards) candidates (\(learning) intraday learning, \(interday) interday learning, \(reviews) reviews due, the rest new) over a root and 20 subdecks, half of them burying siblings, \(limitText); \(queued) cards queued. Candidate rows are prepared beforehand: the SQL query that yields them is the store's part.")
    }
}
