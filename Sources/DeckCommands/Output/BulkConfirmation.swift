import ArgumentParsing

/// `--dry-run` and `--yes` of commands that change many notes at once (`edit --where`, `rm --where`).
struct BulkConfirmation: ParsableArguments {
    @Flag(name: .customLong("dry-run"), help: "Show what would change and change nothing.")
    var dryRun = false

    @Flag(name: .customLong("yes"), help: "Change more than one note without asking (required when standard input is not a terminal).")
    var yes = false

    init() {}

    /// Whether to go ahead with changing `count` notes: yes for one or none, or with --yes;
    /// on a terminal, the answer to a question on standard error; otherwise a usage error
    /// (exit 64) saying to give --yes or --dry-run.
    func confirm(_ count: Int, noun: String, verb: String) throws {
        guard count > 1, !yes else { return }
        let terminal = Terminal.current
        guard terminal.stdin.isTerminal else {
            throw ValidationError("\(count) \(noun)s would be \(verb); give --yes to go ahead (--dry-run shows them)")
        }
        terminal.stderr.write("\(verb.prefix(1).uppercased() + verb.dropFirst()) \(count) \(noun)s? [y/N] ")
        let answer: String?
        do {
            answer = try terminal.stdin.readLine()
        } catch {
            throw CommandFailure(.ioError, path: nil, reason: "can't read the answer from standard input: \(error.message)")
        }
        guard let answer, ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw CommandFailure(.failure, path: nil, reason: "nothing \(verb) (not confirmed)")
        }
    }
}
