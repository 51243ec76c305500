import Foundation
import Testing
import Scheduling

/// Our scheduler against current Anki (the `anki` package: Anki's own Rust scheduler), answer by
/// answer: Anki answers a card, we answer the same state (as Anki stored it) with the same button
/// at the same time, and the new states, review-log rows and button labels must agree.
@Suite(.tags(.interop)) struct AnkiPeerTests {
    struct Preset: Codable {
        var learning_steps: [Double]
        var relearning_steps: [Double]
        var graduating_interval: Int
        var easy_interval: Int
        var initial_ease: Double
        var easy_multiplier: Double
        var hard_multiplier: Double
        var interval_multiplier: Double
        var maximum_interval: Int
        var lapse_multiplier: Double
        var minimum_lapse_interval: Int
        var leech_threshold: Int
        var leech_action: Int
        var desired_retention: Double
        var parameters: [Double]
    }
    struct Sequence: Encodable {
        var fsrs: Bool
        var preset: Preset
        var answers: [[Int64]]
    }
    struct Row: Decodable {
        struct Data: Decodable { var s: Double?; var d: Double?; var dr: Double?; var lrt: Int64?; var pos: Int? }
        var type, queue: Int
        var due: Int64
        var ivl, factor, reps, lapses, left: Int
        var data: Data
    }
    struct Step: Decodable {
        var before: Row
        var after: Row?
        var labels: [String]?
        var at: Int64?
        var today: Int64?
        var next_day_at: Int64?
        var revlog: [Int64]?
        var leech: Bool?
        /// Set when Anki failed on this state (its Rust code panics on some, see the report).
        var anki_error: String?
    }
    struct Output: Decodable {
        var crt: Int64
        var rollover: Int
        var utc_offset: Int
        var learn_ahead: Int
        var sequences: [[Step]]
    }

    static func sequences(seed: UInt64) -> [Sequence] {
        var rng = SeededGenerator(seed: seed)
        func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &rng)] }
        // 40 presets (20 FSRS, 20 SM-2), each shared by 10 sequences (a deck in Anki each).
        let presets: [Preset] = (0..<40).map { index in
            let fsrs = index % 2 == 0
            var parameters: [Double] = []
            if fsrs && index % 6 == 2 {
                parameters = FSRSParameters.default.weights.enumerated().map { i, w in
                    min(max(w * Double.random(in: 0.8...1.2, using: &rng), FSRSParameters.lowerBounds[i]), FSRSParameters.upperBounds[i])
                }
            }
            return Preset(
                learning_steps: pick([[1, 10], [1, 10], [10], [], [1, 5, 30], [1440]]),
                relearning_steps: pick([[10], [10], [], [5, 20]]),
                graduating_interval: pick([1, 1, 2]), easy_interval: pick([4, 4, 7]),
                initial_ease: pick([2.5, 2.5, 2.3]), easy_multiplier: pick([1.3, 1.3, 1.5]),
                hard_multiplier: pick([1.2, 1.2, 1.0, 0.8]), interval_multiplier: pick([1.0, 1.0, 0.8, 1.3]),
                // Anki panics (min > max) when an FSRS learning card's Good interval reaches a small maximum.
                maximum_interval: fsrs ? pick([36_500, 36_500, 365]) : pick([36_500, 36_500, 100]),
                lapse_multiplier: pick([0.0, 0.0, 0.5]),
                minimum_lapse_interval: pick([1, 1, 2]), leech_threshold: pick([8, 3]), leech_action: pick([0, 1]),
                desired_retention: pick([0.9, 0.9, 0.85, 0.95]), parameters: parameters)
        }
        return (0..<400).map { index in
            let fsrs = index % 2 == 0
            let preset = presets[(index % 40 / 2) * 2 + (fsrs ? 0 : 1)]
            let answers: [[Int64]] = (0..<Int.random(in: 4...12, using: &rng)).map { n in
                let rating = Int64(pick([1, 2, 3, 3, 3, 4]))
                let shift: Int64 = n == 0 ? 0 : pick([0, Int64.random(in: 20...3000, using: &rng), Int64.random(in: 20...3000, using: &rng),
                                                     86_400 * Int64.random(in: 1...3, using: &rng) + Int64.random(in: 0...3600, using: &rng),
                                                     86_400 * Int64.random(in: 4...120, using: &rng)])
                return [rating, shift]
            }
            return Sequence(fsrs: fsrs, preset: preset, answers: answers)
        }
    }

    static func state(_ row: Row) throws -> CardSchedulingState {
        CardSchedulingState(type: try #require(CardType(rawValue: row.type)), queue: try #require(CardQueue(rawValue: row.queue)),
                            due: row.due, interval: row.ivl, easeFactor: row.factor, reps: row.reps, lapses: row.lapses,
                            remainingSteps: row.left,
                            memory: row.data.s.flatMap { s in row.data.d.map { MemoryState(stability: s, difficulty: $0) } },
                            desiredRetention: row.data.dr, lastReview: row.data.lrt, originalPosition: row.data.pos)
    }

    static func preset(_ p: Preset, fsrs: Bool) throws -> SchedulingPreset {
        SchedulingPreset(learningSteps: p.learning_steps, relearningSteps: p.relearning_steps, fsrsEnabled: fsrs,
                         fsrsParameters: try FSRSParameters(p.parameters), desiredRetention: p.desired_retention,
                         maximumInterval: p.maximum_interval, graduatingInterval: p.graduating_interval,
                         easyInterval: p.easy_interval, initialEase: p.initial_ease, easyMultiplier: p.easy_multiplier,
                         hardMultiplier: p.hard_multiplier, intervalMultiplier: p.interval_multiplier,
                         lapseMultiplier: p.lapse_multiplier, minimumLapseInterval: p.minimum_lapse_interval,
                         leechThreshold: p.leech_threshold,
                         leechAction: try #require(SchedulingPreset.LeechAction(rawValue: p.leech_action)))
    }

    @Test func fourHundredSequencesAgreeWithCurrentAnki() throws {
        let sequences = Self.sequences(seed: 1818)
        let anki = try Peer.run("anki_peer.py", input: sequences, as: Output.self, environment: ["ANKI_TEST_MODE": "1"])
        try #require(anki.sequences.count == sequences.count)
        let timing = SchedulingTiming(creation: anki.crt, utcOffset: anki.utc_offset, rolloverHour: anki.rollover)
        let scheduler = Scheduler(timing: timing, learnAheadSeconds: anki.learn_ahead, fuzz: .off)
        var compared = [true: 0, false: 0], identical = [true: 0, false: 0]
        var maxStability = 0.0, maxDifficulty = 0.0
        var failures: [String] = [], ankiErrors: [String] = []
        for (index, sequence) in sequences.enumerated() {
            let preset = try Self.preset(sequence.preset, fsrs: sequence.fsrs)
            for (n, step) in anki.sequences[index].enumerated() {
                if let error = step.anki_error {
                    ankiErrors.append("\(sequence.fsrs ? "FSRS" : "SM-2") sequence \(index) answer \(n): \(error) (ivl \(step.before.ivl), maximum \(preset.maximumInterval))")
                    continue
                }
                guard let after = step.after, let labels = step.labels, let stepAt = step.at, let stepToday = step.today,
                      let nextDayAt = step.next_day_at, let revlog = step.revlog, let leech = step.leech else {
                    Issue.record("sequence \(index) answer \(n): incomplete peer output")
                    continue
                }
                compared[sequence.fsrs, default: 0] += 1
                let rating = try #require(Rating(rawValue: Int(sequence.answers[n][0])))
                let at = Date(timeIntervalSince1970: TimeInterval(stepAt) / 1000)
                let today = timing.today(at: at)
                var problems: [String] = []
                if today.day != stepToday || today.nextDayAt != nextDayAt {
                    problems.append("day \(today) vs Anki \(stepToday) \(nextDayAt)")
                }
                let before = try Self.state(step.before)
                let cardID: Int64 = 1
                let previews = try scheduler.preview(before, at: at, preset: preset, cardID: cardID)
                // Anki's Fluent strings wrap numbers in Unicode isolation marks (U+2068, U+2069).
                let ankiLabels = labels.map { $0.replacingOccurrences(of: "\u{2068}", with: "").replacingOccurrences(of: "\u{2069}", with: "") }
                if previews.map(\.label) != ankiLabels { problems.append("labels \(previews.map(\.label)) vs \(ankiLabels)") }
                let answer = try scheduler.answer(before, rating: rating, at: at, preset: preset, cardID: cardID, timeTaken: 1500)
                let ours = answer.state, theirs = try Self.state(after)
                let dueSlack: Int64 = theirs.queue == .learning ? 1 : 0
                if ours.type != theirs.type || ours.queue != theirs.queue || abs(ours.due - theirs.due) > dueSlack
                    || ours.interval != theirs.interval || ours.easeFactor != theirs.easeFactor || ours.reps != theirs.reps
                    || ours.lapses != theirs.lapses || ours.remainingSteps != theirs.remainingSteps
                    || ours.originalPosition != theirs.originalPosition || ours.lastReview != theirs.lastReview
                    || (ours.desiredRetention == nil) != (theirs.desiredRetention == nil) {
                    problems.append("state \(ours) vs Anki \(theirs)")
                }
                switch (ours.memory, theirs.memory) {
                case (nil, nil): break
                case (let a?, let b?):
                    // Anki computes in single precision and stores s to 4 and d to 3 decimals.
                    let ds = abs(a.stability - b.stability), dd = abs(a.difficulty - b.difficulty)
                    maxStability = max(maxStability, ds / max(1, b.stability))
                    maxDifficulty = max(maxDifficulty, dd)
                    if ds > 6e-5 + 5e-6 * b.stability || dd > 6e-4 { problems.append("memory \(a) vs Anki \(b)") }
                default: problems.append("memory \(String(describing: ours.memory)) vs Anki \(String(describing: theirs.memory))")
                }
                let log = answer.log, r = revlog
                if r.count != 7 || log.ease != Int(r[1]) || log.interval != Int(r[2]) || log.lastInterval != Int(r[3])
                    || abs(log.factor - Int(r[4])) > 1 || log.time != Int(r[5]) || log.kind.rawValue != Int(r[6]) || log.id != r[0] {
                    problems.append("revlog \(log) vs Anki \(r)")
                }
                if answer.becameLeech != leech { problems.append("leech: ours \(answer.becameLeech), Anki \(leech)") }
                if problems.isEmpty {
                    identical[sequence.fsrs, default: 0] += 1
                } else {
                    failures.append("\(sequence.fsrs ? "FSRS" : "SM-2") sequence \(index) answer \(n) (\(rating), from \(before)): " + problems.joined(separator: "; "))
                }
            }
        }
        print("anki peer: FSRS \(identical[true] ?? 0)/\(compared[true] ?? 0) answers identical, SM-2 \(identical[false] ?? 0)/\(compared[false] ?? 0); max relative Δs \(maxStability), max Δd \(maxDifficulty); Anki failed on \(ankiErrors.count) states: \(ankiErrors.prefix(3))")
        #expect(failures.isEmpty, "\(failures.count) differences, first: \(failures.prefix(30).joined(separator: "\n"))")
    }
}
