import ArgumentParsing
import DeckDocument
import Foundation

/// `deck info <deck|archive> [--json]`
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a deck's title, identifier, format version, dates and note and card counts.",
        discussion: "Works on a deck directory or on an archive made by 'deck archive' (read without extracting it to the destination). With --quiet nothing is printed: the exit status says whether the deck can be read.",
        examples: [.init("Show an archived deck.", command: "deck info French.sampledeck.zip --json")])

    @Argument(help: ArgumentHelp("The deck or archive to describe.", valueName: "deck|archive")) var deck: String
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func run() async throws {
        let store = try OpenDeck.open(at: deck, readOnly: true)
        let (manifest, count, notes) = (store.manifest, try store.cardCount(), try store.noteCount())
        if output.quiet {
            return  // The deck opened and its cards were counted: the exit status says it is a readable deck.
        } else if output.json {
            Terminal.current.stdout.write(Self.json(path: deck, manifest: manifest, noteCount: notes, cardCount: count) + "\n")
        } else {
            Terminal.current.stdout.write("""
                path:            \(deck.escapingControlCharacters())
                title:           \(manifest.title.escapingControlCharacters())
                document id:     \(manifest.documentID)
                format version:  \(manifest.formatVersion)
                created:         \(JSONText.date(manifest.created))
                modified:        \(JSONText.date(manifest.modified))
                notes:           \(notes)
                cards:           \(count)

                """)
        }
    }

    static func json(path: String, manifest: DeckManifest, noteCount: Int, cardCount: Int) -> String {
        "{\"deck\": \(JSONText.quoted(path)), \"title\": \(JSONText.quoted(manifest.title)), "
            + "\"documentID\": \(JSONText.quoted(manifest.documentID.uuidString)), \"formatVersion\": \(manifest.formatVersion), "
            + "\"created\": \(JSONText.quoted(JSONText.date(manifest.created))), "
            + "\"modified\": \(JSONText.quoted(JSONText.date(manifest.modified))), \"notes\": \(noteCount), \"cards\": \(cardCount)}"
    }
}
