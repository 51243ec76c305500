import ArgumentParsing
import DeckDocument

/// The options of commands that write a deck: how long to wait while another process has
/// it open for writing. Readers never wait (they take no lock).
struct WaitOptions: ParsableArguments {
    /// Seconds a writer waits by default.
    static let defaultSeconds = 10.0

    @Option(help: ArgumentHelp("While another process has the deck open for writing, wait up to this many seconds for it before failing with exit status 74 (default 10).",
                               valueName: "seconds"))
    var wait: Double = WaitOptions.defaultSeconds

    @Flag(name: .customLong("no-wait"), help: "Fail at once (exit status 74) when another process has the deck open for writing.")
    var noWait = false

    init() {}

    mutating func validate() throws {
        if !(wait >= 0 && wait <= 86_400) { throw ValidationError("--wait must be between 0 and 86400 seconds") }
    }

    /// The policy passed down to the deck's lock.
    var policy: DeckLockWait { noWait || wait == 0 ? .none : .seconds(wait) }
}
