import ArgumentParsing
import DeckDocument
import Foundation
import Scheduling
import Study

/// `deck stats <deck>`
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show a deck's counts, what is due, a due forecast and recent retention.",
        discussion: """
            Counts cards by state (new, learning, review, relearning, suspended, buried), by deck (with the new \
            cards and the cards due today of each) and by note type, and the media files and their size. Then \
            the cards due today and in the next seven days (learning and reviews; new cards are counted apart), \
            a forecast of the cards due on each of the next --days days (overdue cards fall on today), and the \
            retention of the reviews of the last --days days: the share of answers of review cards that were not \
            Again, for young cards (previous interval under 21 days) and mature ones, as Anki's true retention \
            counts it. Days start at the deck's "next day starts at" hour in the local time zone.
            """,
        examples: [.init("A month's forecast and retention as JSON.", command: "deck stats French.sampledeck --json"),
                   .init("The coming week only.", command: "deck stats French.sampledeck --days 7")])

    @Argument(help: ArgumentHelp("The deck.", valueName: "deck")) var deck: String
    @Option(help: ArgumentHelp("Days of forecast, and of reviews the retention covers (default 30).", valueName: "n"))
    var days: Int = 30
    @Option(help: ArgumentHelp("The time to count at: ISO 8601 (2026-12-01T09:30:00Z) or Unix seconds (default: now).", valueName: "time"))
    var at: String?
    @OptionGroup var output: OutputOptions

    init() {}

    func validate() throws {
        guard (1...3650).contains(days) else { throw ValidationError("--days must be between 1 and 3650") }
        _ = try StudyTimeOptions.parse(at)
    }

    mutating func run() async throws {
        let time = try StudyTimeOptions.parse(at)
        let store = try OpenDeck.open(at: deck, readOnly: true)
        let study = DeckStudy(context: store.document.mainContext)
        let statistics = try StudyErrors.run(deck) { try study.statistics(at: time, forecastDays: days, retentionDays: days) }
        if output.quiet { return }
        let dayStart = statistics.today.nextDayAt - 86_400
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: study.utcOffset) ?? TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        let dates = statistics.forecast.indices.map {
            formatter.string(from: Date(timeIntervalSince1970: TimeInterval(dayStart + Int64($0) * 86_400)))
        }
        Terminal.current.stdout.write(output.json
            ? Self.json(statistics, path: deck, at: time, dates: dates)
            : Self.text(statistics, dates: dates))
    }

    static func rate(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return String(format: "%.4f", value)
    }

    static func json(_ s: DeckStudyStatistics, path: String, at time: Date, dates: [String]) -> String {
        let c = s.counts, r = s.retention
        func quoted(_ text: String) -> String { JSONText.quoted(text) }
        let decks = c.decks.map { "{\"name\": \(quoted($0.name)), \"cards\": \($0.cards), \"new\": \($0.new), \"due\": \($0.due)}" }
        let types = c.noteTypes.map { "{\"name\": \(quoted($0.name)), \"notes\": \($0.notes), \"cards\": \($0.cards)}" }
        let dayStart = s.today.nextDayAt - 86_400
        let forecast = zip(dates, s.forecast).enumerated().map { index, day in
            "{\"date\": \(quoted(day.0)), \"start\": \(quoted(StudyJSON.timestamp(dayStart + Int64(index) * 86_400))), \"cards\": \(day.1)}"
        }
        var text = "{\"deck\": \(quoted(path)), \"at\": \(quoted(StudyJSON.timestamp(Int64(time.timeIntervalSince1970.rounded(.down))))), "
        text += "\"notes\": \(c.notes), \"cards\": \(c.cards), "
        text += "\"states\": {\"new\": \(c.states.new), \"learning\": \(c.states.learning), \"review\": \(c.states.review), "
        text += "\"relearning\": \(c.states.relearning), \"suspended\": \(c.states.suspended), \"buried\": \(c.states.buried)}, "
        text += "\"due\": {\"today\": \(s.dueToday), \"week\": \(s.dueThisWeek)}, "
        text += "\"decks\": [\(decks.joined(separator: ", "))], \"noteTypes\": [\(types.joined(separator: ", "))], "
        text += "\"media\": {\"files\": \(c.mediaFiles), \"bytes\": \(c.mediaBytes)}, "
        text += "\"retention\": {\"days\": \(s.retentionDays), \"answers\": \(r.answers), \"durationMs\": \(r.duration), "
        text += "\"reviews\": \(r.reviews), \"passed\": \(r.passed), \"rate\": \(rate(r.rate)), "
        text += "\"young\": {\"reviews\": \(r.youngReviews), \"passed\": \(r.youngPassed), \"rate\": \(rate(r.youngRate))}, "
        text += "\"mature\": {\"reviews\": \(r.matureReviews), \"passed\": \(r.maturePassed), \"rate\": \(rate(r.matureRate))}}, "
        text += "\"forecast\": [\(forecast.joined(separator: ", "))]}\n"
        return text
    }

    static func percent(_ value: Double?, of count: Int, _ noun: String = "") -> String? {
        value.map { String(format: "%.1f%%", $0 * 100) + " of \(count)\(noun)" }
    }

    static func text(_ s: DeckStudyStatistics, dates: [String]) -> String {
        let c = s.counts, r = s.retention
        var lines = [
            "notes: \(c.notes)",
            "cards: \(c.cards)",
            "  new:        \(c.states.new)",
            "  learning:   \(c.states.learning)",
            "  review:     \(c.states.review)",
            "  relearning: \(c.states.relearning)",
            "  suspended:  \(c.states.suspended)",
            "  buried:     \(c.states.buried)",
            "due today: \(s.dueToday)",
            "due in 7 days: \(s.dueThisWeek)",
            "retention (last \(s.retentionDays) days): " + (percent(r.rate, of: r.reviews, " reviews").map {
                "\($0) (young \(percent(r.youngRate, of: r.youngReviews) ?? "none"), mature \(percent(r.matureRate, of: r.matureReviews) ?? "none"))"
            } ?? "no reviews of review cards"),
            "answers (last \(s.retentionDays) days): \(r.answers) in \(duration(r.duration))",
            "media: \(c.mediaFiles) files, \(c.mediaBytes) bytes",
            "",
            "decks (cards, new, due today):",
        ]
        lines += table(c.decks.map { [$0.name.escapingControlCharacters(), "\($0.cards)", "\($0.new)", "\($0.due)"] })
        lines += ["", "note types (notes, cards):"]
        lines += table(c.noteTypes.map { [$0.name.escapingControlCharacters(), "\($0.notes)", "\($0.cards)"] })
        lines += ["", "forecast (cards due per day):"]
        lines += table(zip(dates, s.forecast).map { [$0, "\($1)"] })
        return lines.joined(separator: "\n") + "\n"
    }

    /// Rows indented, the first column padded to the widest, numbers right-aligned.
    static func table(_ rows: [[String]]) -> [String] {
        guard let columns = rows.map(\.count).max() else { return ["  (none)"] }
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].terminalCellWidth : 0 }.max() ?? 0 }
        return rows.map { row in
            "  " + row.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: max(0, widths[index] - cell.terminalCellWidth))
                return index == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
    }

    static func duration(_ milliseconds: Int) -> String {
        let minutes = milliseconds / 60_000
        return minutes >= 60 ? "\(minutes / 60)h \(minutes % 60)m" : minutes > 0 ? "\(minutes)m" : "\(milliseconds / 1000)s"
    }
}
