import Foundation
import Testing

/// `deck due`, `deck review` and `deck study` on a deck made by `deck create` and `deck add`,
/// run as a user runs them.
@Suite struct StudyCommandTests {
    func deck() throws -> Playground {
        let play = try Playground()
        #expect(try play.run("create", "L.sampledeck").status == 0)
        #expect(try play.run("add", "L.sampledeck", "--front", "chat", "--back", "cat").status == 0)
        #expect(try play.run("add", "L.sampledeck", "--kind", "reversible", "--front", "chien", "--back", "dog").status == 0)
        return play
    }

    func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    @Test func reviewAnswersOneCardAndPrintsItsNewState() throws {
        let play = try deck()
        let first = try play.run("review", "L.sampledeck", "1", "good", "--at", "2026-12-01T12:00:00Z", "--no-fuzz", "--json")
        #expect(first.status == 0, "\(first.stderr)")
        let state = try #require(try json(first.stdout) as? [String: Any])
        #expect(Set(state.keys) == ["card", "state", "stability", "difficulty", "interval", "due", "position", "reps", "lapses"])
        #expect(state["card"] as? Int == 1 && state["state"] as? String == "learning" && state["reps"] as? Int == 1)
        #expect(state["due"] as? String == "2026-12-01T12:10:00.000Z", "Good on a new card: the 10-minute step")
        #expect(state["position"] is NSNull, "only a new card has a position")
        #expect((state["stability"] as? Double).map { $0 > 0 } == true)
        let second = try play.run("review", "L.sampledeck", "1", "3", "--at", "2026-12-01T12:11:00Z", "--no-fuzz", "--json")
        let graduated = try #require(try json(second.stdout) as? [String: Any])
        #expect(graduated["state"] as? String == "review" && (graduated["interval"] as? Int ?? 0) >= 1)

        let missing = try play.run("review", "L.sampledeck", "99", "good")
        #expect(missing.status == 1 && missing.stderr == "deck: error: L.sampledeck: no card with id 99\n")
        let wrong = try play.run("review", "L.sampledeck", "1", "maybe")
        #expect(wrong.status == 64 && wrong.stderr.contains("'maybe' is not an answer"))
        let badTime = try play.run("review", "L.sampledeck", "1", "good", "--at", "yesterday")
        #expect(badTime.status == 64 && badTime.stderr.contains("--at: 'yesterday' is not a time"))
    }

    /// The manifest's `modified` is "the last save" (docs/FORMAT.md): an answer is one, by
    /// `deck review` and by `deck study`; a session that answers nothing is not.
    @Test func answersMoveTheManifestsModifiedDate() throws {
        let play = try deck()
        func modified() throws -> String {
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: play.file("L.sampledeck/manifest.json"))) as? [String: Any]
            return try #require(manifest?["modified"] as? String)
        }
        let created = try modified()
        Thread.sleep(forTimeInterval: 0.01)
        #expect(try play.run("review", "L.sampledeck", "1", "good", "--no-fuzz").status == 0)
        let reviewed = try modified()
        #expect(reviewed > created, "\(created) -> \(reviewed)")
        Thread.sleep(forTimeInterval: 0.01)
        #expect(try play.run("study", "L.sampledeck", "--no-fuzz", stdin: "q\n").status == 0)
        #expect(try modified() == reviewed, "a session without answers saves nothing")
        #expect(try play.run("study", "L.sampledeck", "--no-fuzz", stdin: "\n3\nq\n").status == 0)
        #expect(try modified() > reviewed)
    }

    @Test func dueListsNewCardsAndWhatIsDueNow() throws {
        let play = try deck()
        let all = try #require(try json(try play.run("due", "L.sampledeck", "--json", "--at", "2026-12-01T12:00:00Z").stdout) as? [[String: Any]])
        #expect(all.compactMap { $0["card"] as? Int } == [1, 2, 3], "new cards count as due")
        // One type a key: a new card's `due` is null and its place in the new queue is `position`.
        #expect(all.allSatisfy { $0["due"] is NSNull && $0["position"] is Int && $0["state"] as? String == "new" }, "\(all)")
        #expect(all.compactMap { $0["position"] as? Int } == all.compactMap { $0["position"] as? Int }.sorted())
        #expect(try play.run("review", "L.sampledeck", "2", "again", "--at", "2026-12-01T12:00:00Z", "--no-fuzz").status == 0)
        let now = try #require(try json(try play.run("due", "L.sampledeck", "--json", "--at", "2026-12-01T12:00:30Z").stdout) as? [[String: Any]])
        #expect(now.compactMap { $0["card"] as? Int }.sorted() == [1, 3], "card 2 is due again in a minute")
        let later = try #require(try json(try play.run("due", "L.sampledeck", "--json", "--at", "2026-12-01T12:02:00Z").stdout) as? [[String: Any]])
        #expect(later.count == 3)
        // Learning first (due by now), then the new cards by position.
        #expect(later.compactMap { $0["card"] as? Int } == [2, 1, 3], "\(later)")
        #expect(later[0]["due"] as? String == "2026-12-01T12:01:00.000Z" && later[0]["position"] is NSNull, "\(later[0])")
        let text = try play.run("due", "L.sampledeck", "--at", "2026-12-01T12:02:00Z")
        #expect(text.stdout == "2\tlearning\tchien\n1\tnew\tchat\n3\tnew\tdog\n", "\(text.stdout)")
        // --limit: the first cards of the same order.
        let two = try play.run("due", "L.sampledeck", "--at", "2026-12-01T12:02:00Z", "--limit", "2")
        #expect(two.status == 0 && two.stdout == "2\tlearning\tchien\n1\tnew\tchat\n", "\(two)")
        let one = try #require(try json(try play.run("due", "L.sampledeck", "--json", "--at", "2026-12-01T12:02:00Z", "--limit", "1").stdout) as? [[String: Any]])
        #expect(one.compactMap { $0["card"] as? Int } == [2])
        let none = try play.run("due", "L.sampledeck", "--json", "--limit", "0")
        #expect(none.status == 0 && none.stdout == "[]\n", "\(none)")
        let negative = try play.run("due", "L.sampledeck", "--limit", "-1")
        #expect(negative.status == 64 && negative.stderr.contains("--limit must be zero or more"), "\(negative)")
    }

    @Test func aPipedStudySessionRecordsEachAnswerAndUndoes() throws {
        let play = try deck()
        // Noon UTC of today: the 10-minute learning step stays inside the study day (which starts at
        // 04:00), whatever the hour the suite runs at (at 03:50 "Good" showed 1d, not <10m).
        let noon = String(ISO8601DateFormatter().string(from: Date()).prefix(10)) + "T12:00:00Z"
        let session = try play.run("study", "L.sampledeck", "--no-fuzz", "--at", noon, stdin: "\n3\n\nagain\nu\n\n4\nq\n")
        #expect(session.status == 0, "\(session.stderr)")
        #expect(session.stdout.contains("Q: chat"), "\(session.stdout)")
        #expect(session.stdout.contains("1 Again <1m   2 Hard <6m   3 Good <10m   4 Easy 8d"))
        #expect(session.stdout.contains("Undid the last answer."))
        let states = try #require(try json(try play.run("due", "L.sampledeck", "--json", "--at", "2030-01-01T00:00:00Z").stdout) as? [[String: Any]])
        let reps = Dictionary(uniqueKeysWithValues: states.compactMap { s in (s["card"] as? Int).map { ($0, s["reps"] as? Int ?? -1) } })
        #expect(reps == [1: 1, 2: 1, 3: 0], "good on 1, easy on 2 (again undone), 3 untouched: \(states)")
    }
}

/// `deck stats`: counts by state, deck and note type, due today and this week, the forecast
/// and the retention of the last days, in text and JSON, after answers given by `deck review`.
@Suite struct StatsCommandTests {
    @Test func statsCountRetentionAndForecast() throws {
        let play = try Playground()
        #expect(try play.run("create", "L.sampledeck").status == 0)
        #expect(try play.run("add", "L.sampledeck", "--front", "chat", "--back", "cat").status == 0)
        #expect(try play.run("add", "L.sampledeck", "--kind", "reversible", "--front", "chien", "--back", "dog").status == 0)
        for (card, rating, at) in [("1", "good", "2026-12-01T12:00:00Z"), ("1", "good", "2026-12-01T12:11:00Z"),
                                   ("2", "easy", "2026-12-01T12:12:00Z"), ("1", "again", "2026-12-03T12:00:00Z"),
                                   ("2", "good", "2026-12-09T12:00:00Z")] {
            let answer = try play.run("review", "L.sampledeck", card, rating, "--at", at, "--no-fuzz")
            #expect(answer.status == 0, "\(answer.stderr)")
        }
        let run = try play.run("stats", "L.sampledeck", "--json", "--at", "2026-12-09T13:00:00Z", "--days", "10")
        #expect(run.status == 0, "\(run.stderr)")
        let stats = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(stats["deck"] as? String == "L.sampledeck" && stats["notes"] as? Int == 2 && stats["cards"] as? Int == 3)
        let states = try #require(stats["states"] as? [String: Int])
        #expect(states == ["new": 1, "learning": 0, "review": 1, "relearning": 1, "suspended": 0, "buried": 0], "\(states)")
        let retention = try #require(stats["retention"] as? [String: Any])
        #expect(retention["answers"] as? Int == 5, "every answer of the last 10 days")
        #expect(retention["reviews"] as? Int == 2 && retention["passed"] as? Int == 1, "card 1 lapsed, card 2 passed")
        #expect(retention["rate"] as? Double == 0.5)
        #expect((retention["young"] as? [String: Any])?["reviews"] as? Int == 2)
        let forecast = try #require(stats["forecast"] as? [[String: Any]])
        #expect(forecast.count == 10 && forecast.first?["date"] as? String == "2026-12-09")
        #expect((forecast.first?["start"] as? String)?.hasSuffix(":00.000Z") == true, "when the study day starts, an instant")
        let due = try #require(stats["due"] as? [String: Int])
        #expect(due["today"] == forecast.first?["cards"] as? Int, "today's count is the forecast's first day")
        #expect(due["today"] == 1, "the relearning card is overdue: it falls on today")
        #expect(forecast.compactMap { $0["cards"] as? Int }.reduce(0, +) <= 2)
        let long = try #require(try JSONSerialization.jsonObject(with: Data(try play.run("stats", "L.sampledeck", "--json", "--at", "2026-12-09T13:00:00Z", "--days", "365").stdout.utf8)) as? [String: Any])
        #expect((long["forecast"] as? [[String: Any]])?.compactMap { $0["cards"] as? Int }.reduce(0, +) == 2, "both answered cards come due within a year")
        let decks = try #require(stats["decks"] as? [[String: Any]])
        #expect(decks.first?["name"] as? String == "Default" && decks.first?["cards"] as? Int == 3 && decks.first?["new"] as? Int == 1)
        let types = try #require(stats["noteTypes"] as? [[String: Any]])
        #expect(types.first { $0["name"] as? String == "Basic (and reversed card)" }?["cards"] as? Int == 2)

        let text = try play.run("stats", "L.sampledeck", "--at", "2026-12-09T13:00:00Z", "--days", "10")
        #expect(text.stdout.contains("due today: 1\n"), "\(text.stdout)")
        #expect(text.stdout.contains("retention (last 10 days): 50.0% of 2 reviews (young 50.0% of 2, mature none)"), "\(text.stdout)")
        #expect(text.stdout.contains("  2026-12-09  1\n"))
        let early = try play.run("stats", "L.sampledeck", "--at", "2026-11-20T13:00:00Z", "--days", "5")
        #expect(early.stdout.contains("no reviews of review cards"), "answers after the time asked for are not counted: \(early.stdout)")
        #expect(try play.run("stats", "L.sampledeck", "--days", "0").status == 64)
        #expect(try play.run("stats", "L.sampledeck", "--quiet").stdout.isEmpty)
    }
}
