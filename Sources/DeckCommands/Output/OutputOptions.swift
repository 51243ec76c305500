import ArgumentParsing

/// The options every command shares: machine-readable output, silence, progress.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the result as JSON.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @Flag(name: .customLong("no-progress"), help: "Never show a progress bar.")
    var noProgress = false

    init() {}

    /// Writes a one-line message to standard output unless `--quiet` was given, with its
    /// control characters escaped (a file name cannot break it into two lines).
    /// The line is not built under `--quiet`.
    func say(_ line: @autoclosure () -> String) {
        guard !quiet else { return }
        Terminal.current.stdout.write(line().escapingControlCharacters() + "\n")
    }
}

/// The output formats of commands that print cards.
enum CardFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    case table, tsv, json
}
