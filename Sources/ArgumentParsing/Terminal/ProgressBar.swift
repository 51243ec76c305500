
/// A one-line progress bar on standard error, drawn only when standard error is a terminal.
///
/// Anywhere else (a pipe, a file, a test) it writes nothing, so commands can report progress
/// unconditionally. The line says what is counted (files, cards, bytes shown as KiB/MiB/GiB),
/// and once a second has passed, the rate and the time left:
/// `Importing [########............] 40% 10.5/26.2 MiB 3.4 MiB/s 5s left`.
/// Redraws are throttled; colour is used only when the terminal allows it (`NO_COLOR`).
/// Safe to update from several tasks.
///
/// ```swift
/// let progress = ProgressBar(total: files.count, label: "Converting", unit: .count("file", "files"),
///                            isEnabled: !options.noProgress)
/// for file in files {
///     try convert(file)
///     progress.advance()
/// }
/// progress.finish()
/// ```
public final class ProgressBar: Sendable {
    /// What the bar counts.
    public enum Unit: Sendable, Equatable {
        /// Items, named in the singular and the plural (`file`, `files`); empty names show bare numbers.
        case count(String, String)
        /// Bytes, shown in binary multiples (B, KiB, MiB, GiB, TiB).
        case bytes
    }

    private struct State {
        var completed = 0
        var lastDraw: ContinuousClock.Instant?
        var hasDrawn = false
        var isFinished = false
    }

    private let total: Int?
    private let label: String
    private let unit: Unit
    private let start = ContinuousClock.now
    private let terminal: Terminal
    private let minimumInterval: Duration
    private let state = Locked(State())

    /// Whether the bar draws at all: enabled, and standard error is a terminal.
    public let isActive: Bool

    /// Creates a progress bar; nothing is drawn until the first update.
    ///
    /// - Parameters:
    ///   - total: the number of units of work, or `nil` when unknown (a counter is shown).
    ///   - label: a word or two before the bar.
    ///   - unit: what `total` and the updates count (bare numbers by default).
    ///   - terminal: where to draw (its standard error).
    ///   - isEnabled: `false` turns the bar off (`--no-progress`, `--quiet`).
    ///   - minimumInterval: the least time between two redraws.
    public init(
        total: Int?, label: String = "", unit: Unit = .count("", ""), terminal: Terminal = .current,
        isEnabled: Bool = true, minimumInterval: Duration = .milliseconds(100)
    ) {
        self.total = total.map { max(0, $0) }
        self.label = label
        self.unit = unit
        self.terminal = terminal
        self.minimumInterval = minimumInterval
        isActive = isEnabled && terminal.stderr.isTerminal
    }

    /// Sets the number of completed units and redraws if enough time has passed.
    public func update(completed: Int) {
        guard isActive else { return }
        let line: String? = state.withLock { state in
            guard !state.isFinished else { return nil }
            state.completed = completed
            return drawIfDue(&state)
        }
        if let line { terminal.stderr.write(line) }
    }

    /// Adds to the number of completed units and redraws if enough time has passed.
    public func advance(by count: Int = 1) {
        guard isActive else { return }
        let line: String? = state.withLock { state in
            guard !state.isFinished else { return nil }
            state.completed += count
            return drawIfDue(&state)
        }
        if let line { terminal.stderr.write(line) }
    }

    /// Erases the bar, leaving the line free for the command's next message.
    public func finish() {
        guard isActive else { return }
        let hasDrawn = state.withLock { state in
            defer { state.isFinished = true }
            return state.hasDrawn && !state.isFinished
        }
        if hasDrawn {
            terminal.stderr.write("\r" + String(repeating: " ", count: lineWidth) + "\r")
        }
    }

    private var lineWidth: Int { max(20, terminal.width - 1) }

    private func drawIfDue(_ state: inout State) -> String? {
        let now = ContinuousClock.now
        let isComplete = total.map { state.completed >= $0 } ?? false
        if let lastDraw = state.lastDraw, now - lastDraw < minimumInterval, !isComplete {
            return nil
        }
        state.lastDraw = now
        state.hasDrawn = true
        return "\r" + render(completed: state.completed, elapsed: now - start)
    }

    /// `Label [#########.........] 45% 450/1000 cards 90 cards/s 6s left`, padded to the
    /// line width; the rate and the time left appear once a second has passed.
    func render(completed: Int, elapsed: Duration = .zero) -> String {
        let color = terminal.allowsColor(on: terminal.stderr)
        let title = label.isEmpty ? "" : String(label.prefix(lineWidth / 3)) + " "
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let rate = seconds >= 1 && completed > 0 ? Double(completed) / seconds : nil
        guard let total else {
            let text = title + quantity(completed) + (rate.map { " " + self.rate($0) } ?? "")
            return pad(text, visibleLength: text.count)
        }
        let clamped = min(max(completed, 0), total)
        let percent = total == 0 ? 100 : Int(Double(clamped) * 100 / Double(total))
        var counts = " \(percent)% " + quantity(clamped, of: total)
        if let rate, clamped < total {
            counts += " " + self.rate(rate) + " " + Self.duration(Double(total - clamped) / rate) + " left"
        }
        // A narrow terminal keeps the bar and drops the rate and time left first.
        if title.count + counts.count + 7 > lineWidth { counts = " \(percent)% " + quantity(clamped, of: total) }
        let barWidth = max(5, min(40, lineWidth - title.count - counts.count - 2))
        let filled = total == 0 ? barWidth : Int(Double(clamped) * Double(barWidth) / Double(total))
        let done = String(repeating: "#", count: filled)
        let rest = String(repeating: ".", count: barWidth - filled)
        let bar = color ? "\u{1B}[32m" + done + "\u{1B}[0m" + rest : done + rest
        let visibleLength = title.count + barWidth + 2 + counts.count
        return pad(title + "[" + bar + "]" + counts, visibleLength: visibleLength)
    }

    /// `450/1000 files`, `10.5/26.2 MiB`; without a total `1234 files`, `10.5 MiB`.
    private func quantity(_ completed: Int, of total: Int? = nil) -> String {
        switch unit {
        case .count(let singular, let plural):
            let numbers = total.map { "\(completed)/\($0)" } ?? "\(completed)"
            let name = (total ?? completed) == 1 ? singular : plural
            return name.isEmpty ? numbers : numbers + " " + name
        case .bytes:
            let scale = Self.binaryScale(of: total ?? completed)
            let done = Self.scaled(completed, scale)
            return total.map { done + "/" + Self.scaled($0, scale) + " " + scale.name } ?? done + " " + scale.name
        }
    }

    /// `12 files/s`, `3.4 MiB/s`.
    private func rate(_ perSecond: Double) -> String {
        switch unit {
        case .count(_, let plural):
            let number = perSecond >= 10 ? String(Int(perSecond.rounded())) : Self.oneDecimal(perSecond)
            return plural.isEmpty ? number + "/s" : number + " " + plural + "/s"
        case .bytes:
            let value = perSecond.isFinite ? Int(min(perSecond, Double(Int.max / 2))) : 0
            let scale = Self.binaryScale(of: value)
            return Self.scaled(value, scale) + " " + scale.name + "/s"
        }
    }

    private static let binaryScales: [(name: String, divisor: Double)] =
        [("B", 1), ("KiB", 0x1p10), ("MiB", 0x1p20), ("GiB", 0x1p30), ("TiB", 0x1p40)]

    private static func binaryScale(of bytes: Int) -> (name: String, divisor: Double) {
        binaryScales.last { Double(bytes) >= $0.divisor } ?? binaryScales[0]
    }

    private static func scaled(_ bytes: Int, _ scale: (name: String, divisor: Double)) -> String {
        scale.divisor == 1 ? String(bytes) : oneDecimal(Double(bytes) / scale.divisor)
    }

    private static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `<1s`, `42s`, `3m 05s`, `2h 07m`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 1 else { return seconds.isFinite ? "<1s" : "?" }
        let whole = Int(min(seconds.rounded(), 359_999))
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return "\(whole / 60)m " + twoDigits(whole % 60) + "s" }
        return "\(whole / 3600)h " + twoDigits(whole / 60 % 60) + "m"
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private func pad(_ text: String, visibleLength: Int) -> String {
        text + String(repeating: " ", count: max(0, lineWidth - visibleLength))
    }
}
