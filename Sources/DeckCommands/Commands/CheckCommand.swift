import ArgumentParsing

/// `deck check <deck>`
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a deck's integrity: the store, foreign keys and the manifest.",
        discussion: "Prints 'ok' when the deck is sound; otherwise lists each problem and exits 65.",
        examples: [.init("Check a deck.", command: "deck check French.sampledeck")])

    @Argument(help: ArgumentHelp("The deck to check.", valueName: "deck")) var deck: String
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: true)
        let problems = try store.check()
        if output.json {
            let list = problems.map(JSONText.quoted).joined(separator: ", ")
            Terminal.current.stdout.write("{\"path\": \(JSONText.quoted(deck)), \"ok\": \(problems.isEmpty), \"problems\": [\(list)]}\n")
        } else if problems.isEmpty {
            output.say("\(deck): ok")
        } else {
            for problem in problems { Terminal.current.stdout.write("\(deck): \(problem)\n") }
        }
        if !problems.isEmpty {
            throw CommandFailure(.dataError, path: deck, reason: "\(problems.count) problem\(problems.count == 1 ? "" : "s") found")
        }
    }
}
