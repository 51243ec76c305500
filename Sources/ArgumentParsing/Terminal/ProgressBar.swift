
/// A one-line progress bar on standard error, drawn only when standard error is a terminal.
///
/// Anywhere else (a pipe, a file, a test) it writes nothing, so commands can report progress
/// unconditionally. Redraws are throttled; colour is used only when the terminal allows it
/// (`NO_COLOR`). Safe to update from several tasks.
///
/// ```swift
/// let progress = ProgressBar(total: files.count, label: "Converting", isEnabled: !options.noProgress)
/// for file in files {
///     try convert(file)
///     progress.advance()
/// }
/// progress.finish()
/// ```
public final class ProgressBar: Sendable {
    private struct State {
        var completed = 0
        var lastDraw: ContinuousClock.Instant?
        var hasDrawn = false
        var isFinished = false
    }

    private let total: Int?
    private let label: String
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
    ///   - terminal: where to draw (its standard error).
    ///   - isEnabled: `false` turns the bar off (`--no-progress`, `--quiet`).
    ///   - minimumInterval: the least time between two redraws.
    public init(
        total: Int?, label: String = "", terminal: Terminal = .current,
        isEnabled: Bool = true, minimumInterval: Duration = .milliseconds(100)
    ) {
        self.total = total.map { max(0, $0) }
        self.label = label
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
        return "\r" + render(completed: state.completed)
    }

    /// `Label [#########.........] 45% 450/1000`, padded to the line width.
    func render(completed: Int) -> String {
        let color = terminal.allowsColor(on: terminal.stderr)
        let title = label.isEmpty ? "" : String(label.prefix(lineWidth / 3)) + " "
        guard let total else {
            return pad(title + "\(completed)", visibleLength: title.count + "\(completed)".count)
        }
        let clamped = min(max(completed, 0), total)
        let percent = total == 0 ? 100 : clamped * 100 / total
        let counts = " \(percent)% \(clamped)/\(total)"
        let barWidth = max(5, min(40, lineWidth - title.count - counts.count - 2))
        let filled = total == 0 ? barWidth : clamped * barWidth / total
        let done = String(repeating: "#", count: filled)
        let rest = String(repeating: ".", count: barWidth - filled)
        let bar = color ? "\u{1B}[32m" + done + "\u{1B}[0m" + rest : done + rest
        let visibleLength = title.count + barWidth + 2 + counts.count
        return pad(title + "[" + bar + "]" + counts, visibleLength: visibleLength)
    }

    private func pad(_ text: String, visibleLength: Int) -> String {
        text + String(repeating: " ", count: max(0, lineWidth - visibleLength))
    }
}
