import ArgumentParsing
import DeckDocument
import Foundation

/// `deck create <deck> [--title <text>]`
struct CreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a new, empty deck.",
        discussion: "Creates the .sampledeck directory with its manifest and store, built in a hidden folder beside it and moved into place when complete. An existing path (an empty directory or a dangling symbolic link too) is never overwritten: exit 73.",
        examples: [.init("Create a deck titled French verbs.", command: "deck create French.sampledeck --title \"French verbs\"")])

    @Argument(help: ArgumentHelp("The deck to create.", valueName: "deck")) var deck: String
    @Option(help: ArgumentHelp("The title of the deck (default: the file name).", valueName: "text")) var title: String?
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func run() async throws {
        let title = self.title ?? ((deck as NSString).lastPathComponent as NSString).deletingPathExtension
        OutputPath.sweepLeftovers(beside: [deck])
        let store = try OpenDeck.create(at: deck, title: title)
        if output.json {
            Terminal.current.stdout.write(InfoCommand.json(path: deck, manifest: store.manifest, noteCount: 0, cardCount: 0) + "\n")
        } else {
            output.say("created \(deck)")
        }
    }
}
