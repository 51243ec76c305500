import ArgumentParsing
import Foundation

/// `deck unarchive <archive> [-C <dir>]`
struct UnarchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unarchive",
        abstract: "Extract a deck from an archive made by 'deck archive'.",
        discussion: """
            The deck is extracted into a temporary directory beside the destination, checked, then renamed \
            into place; an existing deck is never overwritten. Entries with .. or absolute paths, links and \
            device files are refused, and sizes are bounded.
            """,
        examples: [.init("Extract into the decks directory.", command: "deck unarchive French.sampledeck.zip -C decks")])

    @Argument(help: ArgumentHelp("The archive to extract.", valueName: "archive")) var archive: String
    @Option(name: .customShort("C"), help: ArgumentHelp("The directory to extract into (default: the current one).", valueName: "dir"))
    var directory: String = "."
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func run() async throws {
        guard FileManager.default.fileExists(atPath: archive) else {
            throw CommandFailure(.noInput, path: archive, reason: "no such file")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure(.cantCreate, path: directory, reason: "no such directory")
        }
        let deck = try ErrorMapping.run(path: archive) { try ArchivedDeck.extract(archive: archive, into: directory) }
        if output.json {
            Terminal.current.stdout.write("{\"deck\": \(JSONText.quoted(deck))}\n")
        } else {
            output.say("extracted \(deck)")
        }
    }
}
