import ArgumentParsing
import Archive
import Foundation

/// `deck archive <deck> [-o <file>] [--format zip|tar.gz|tar.xz|tar.zst]`
struct ArchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Write a deck into one zip or compressed tar file.",
        discussion: """
            The archive holds a consistent snapshot of the store (taken with VACUUM INTO, so a deck in use \
            can be archived) and the manifest, under one <name>.sampledeck directory. The archive is written \
            under a temporary name and renamed when complete; an existing file is never overwritten.
            """,
        examples: [.init("Archive a deck as a zip.", command: "deck archive French.sampledeck -o French.sampledeck.zip")])

    enum Format: String, CaseIterable, ExpressibleByArgument {
        case zip
        case tarGzip = "tar.gz"
        case tarXz = "tar.xz"
        case tarZstd = "tar.zst"

        var archiveFormat: ArchiveFormat {
            switch self {
            case .zip: .zip
            case .tarGzip: .tarGzip
            case .tarXz: .tarXz
            case .tarZstd: .tarZstd
            }
        }
    }

    @Argument(help: ArgumentHelp("The deck to archive.", valueName: "deck")) var deck: String
    @Option(name: .customShort("o"), help: ArgumentHelp("The archive to write (default: <deck>.<format>).", valueName: "file"))
    var outputFile: String?
    @Option(help: "The archive format (default: from the output name, else zip).") var format: Format?
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func run() async throws {
        let archiveFormat = format?.archiveFormat
            ?? outputFile.flatMap { ArchiveFormat.inferred(fromPath: $0) } ?? .zip
        var trimmed = deck
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        let destination = outputFile ?? trimmed + "." + archiveFormat.fileExtension
        let store = try OpenDeck.open(at: deck, readOnly: true)
        try ErrorMapping.run(path: destination) { try ArchivedDeck.write(store, to: destination, format: archiveFormat) }
        if output.json {
            Terminal.current.stdout.write("{\"archive\": \(JSONText.quoted(destination)), \"format\": \(JSONText.quoted(archiveFormat.rawValue))}\n")
        } else {
            output.say("archived \(deck) to \(destination)")
        }
    }
}
