import ArgumentParsing
import DeckDocument
import FileSafety
import Foundation

/// `deck migrate <deck>`
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Upgrade a deck written in an older format, in place, keeping a backup.",
        discussion: "The original package is first copied to <deck>.backup-v<old format version> beside it; when anything is at that name (a file, a folder, a symbolic link, even a dangling one) -2, -3… is added instead, and nothing there is touched. A deck already in the current format is left untouched, except that a store of its earlier revision 2.0 is brought to 2.1 (two redundant indexes dropped, in one transaction; no row changes, so no backup). A deck from a newer version is refused (exit 65).",
        examples: [.init("Upgrade an old deck.", command: "deck migrate Old.sampledeck")])

    @Argument(help: ArgumentHelp("The deck to upgrade.", valueName: "deck")) var deck: String
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func run() async throws {
        // The backup is built beside the deck (`.<deck>.backup-v<n>.staging-…`): a killed run's is swept.
        let package = URL(fileURLWithPath: deck).standardizedFileURL
        Leftovers.sweep(package.deletingLastPathComponent().path) { $0.hasPrefix(package.lastPathComponent + ".backup-v") }
        OutputPath.sweepLeftovers()
        let result = try OpenDeck.mapping(deck) { try DeckDocument.migrate(at: URL(fileURLWithPath: deck)) }
        if output.json {
            let backup = result.backup.map { JSONText.quoted($0.path) } ?? "null"
            Terminal.current.stdout.write("{\"deck\": \(JSONText.quoted(deck)), \"from\": \(result.from), \"to\": \(result.to), \"backup\": \(backup)}\n")
        } else if result.from == result.to {
            output.say("\(deck): already at format version \(result.to)")
        } else {
            output.say("migrated \(deck) from format version \(result.from) to \(result.to)"
                       + (result.backup.map { "; backup at \($0.path)" } ?? ""))
        }
    }
}
