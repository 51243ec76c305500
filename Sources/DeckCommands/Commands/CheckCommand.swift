import ArgumentParsing
import DeckDocument

/// `deck check <deck>`
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a deck: store integrity, foreign keys, manifest, search index and media references.",
        discussion: "Prints '<deck>: ok' when the deck is sound; otherwise one line per problem. Errors exit 65; warnings alone exit 0.",
        examples: [.init("Check a deck.", command: "deck check French.sampledeck")])

    @Argument(help: ArgumentHelp("The deck to check.", valueName: "deck")) var deck: String
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: true)
        let problems = store.check()
        let errors = problems.filter { $0.severity == .error }
        if output.json {
            let list = problems.map { "{\"severity\": \(JSONText.quoted($0.severity.rawValue)), \"message\": \(JSONText.quoted($0.message))}" }
            Terminal.current.stdout.write("{\"deck\": \(JSONText.quoted(deck)), \"ok\": \(errors.isEmpty), \"problems\": [\(list.joined(separator: ", "))]}\n")
        } else if problems.isEmpty {
            output.say("\(deck): ok")
        } else {
            // One problem, one line: a name in a message cannot start another.
            for problem in problems { Terminal.current.stdout.write("\(deck): \(problem)".escapingControlCharacters() + "\n") }
        }
        if !errors.isEmpty {
            throw CommandFailure(.dataError, path: deck, reason: "\(errors.count) problem\(errors.count == 1 ? "" : "s") found")
        }
    }
}
