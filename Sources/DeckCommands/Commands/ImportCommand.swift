import ArgumentParsing
import Foundation
import Interchange

/// `deck import <deck> <file>... [--format csv|tsv] [--create]`
struct ImportCommand: ParsableCommand {
    enum Format: String, CaseIterable, ExpressibleByArgument {
        case csv, tsv
    }

    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add the cards of CSV or TSV files to a deck.",
        discussion: """
            A header row such as front,back,tags names the columns; Anki's text headers (#separator:, #columns:, …) \
            are understood. Tags are separated by spaces. '-' reads standard input. All files are imported in one \
            transaction: on an error nothing is added.
            """,
        examples: [.init("Import a CSV file into a new deck.", command: "deck import French.sampledeck verbs.csv --create")])

    @Argument(help: ArgumentHelp("The deck to import into.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The files to import ('-' for standard input).", valueName: "file")) var files: [String]
    @Option(help: "The format of the files (default: from the file name, else guessed).") var format: Format?
    @Flag(help: "Create the deck when it does not exist.") var create = false
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func run() async throws {
        var rows: [(kind: String, front: String, back: String, tags: [String])] = []
        let sizes = files.map { file in
            ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.intValue ?? 0
        }
        let progress = ProgressBar(total: files.contains("-") ? nil : sizes.reduce(0, +), label: "Reading",
                                   isEnabled: !output.noProgress && !output.quiet)
        var bytesBefore = 0
        for (index, file) in files.enumerated() {
            var settings = TextImportSettings()
            let format = self.format ?? (file.lowercased().hasSuffix(".tsv") ? .tsv : file.lowercased().hasSuffix(".csv") ? .csv : nil)
            switch format {
            case .csv: settings.separator = .comma
            case .tsv: settings.separator = .tab
            case nil: break
            }
            if file != "-", !FileManager.default.fileExists(atPath: file) {
                throw CommandFailure(.noInput, path: file, reason: "no such file")
            }
            try ErrorMapping.run(path: file) {
                var reader = file == "-"
                    ? TextImportReader.standardInput(settings: settings)
                    : try TextImportReader(url: URL(fileURLWithPath: file), settings: settings)
                while let row = try reader.next() {
                    if rows.count % 1024 == 0 { progress.update(completed: bytesBefore + reader.bytesConsumed) }
                    if row.front.isEmpty { continue }
                    rows.append((kind: "basic", front: row.front, back: row.back, tags: row.tags))
                }
            }
            bytesBefore += sizes[index]
        }
        progress.finish()
        let store: OpenDeck
        if create, !FileManager.default.fileExists(atPath: deck) {
            store = try OpenDeck.create(at: deck, title: ((deck as NSString).lastPathComponent as NSString).deletingPathExtension)
        } else {
            store = try OpenDeck.open(at: deck, readOnly: false)
        }
        try store.add(rows)
        if output.json {
            Terminal.current.stdout.write("{\"imported\": \(rows.count), \"cards\": \(try store.cardCount())}\n")
        } else {
            output.say("imported \(rows.count) card\(rows.count == 1 ? "" : "s") into \(deck)")
        }
    }
}
