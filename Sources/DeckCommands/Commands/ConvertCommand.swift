import ArgumentParsing
import Foundation
import Interchange

/// `deck convert <input>... --to <format> [--out-dir <dir>] [--jobs <n>] [--json]`
struct ConvertCommand: ParsableCommand {
    enum Format: String, CaseIterable, ExpressibleByArgument {
        case sampledeck, zip, csv, tsv, json, apkg, html

        var interchangeFormat: InterchangeFormat {
            switch self {
            case .sampledeck: .sampledeck
            case .zip: .zip
            case .csv: .csv
            case .tsv: .tsv
            case .json: .json
            case .apkg: .apkg
            case .html: .html
            }
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert many decks between formats, several at a time.",
        discussion: """
            Each input is a .sampledeck package, a deck archive (.zip, as 'deck archive' writes), or a .csv, .tsv, .txt, .json, \
            .apkg or .colpkg file; a folder is \
            searched for them (hidden entries skipped). Each is written as <name>.<format> beside it, or in --out-dir. \
            Files are first imported into a temporary deck, exactly as 'deck import' does (the Anki note-type mapping \
            of deck-import(1) applies), then written as 'deck export' does (see deck-export(1) for the card kind to \
            Anki note type mapping); zip writes a deck archive as 'deck archive' does.

            Outputs are written under a temporary name and renamed when complete; an existing output is never \
            replaced; inputs are never modified. A failed input does not stop the others: one result line is printed \
            per input, in input order, and the exit status is 1 if any failed. A progress bar is drawn on standard \
            error when it is a terminal.
            """,
        examples: [
            .init("Convert a folder of Anki packages to decks, two at a time.", command: "deck convert ~/Anki/ --to sampledeck --out-dir decks --jobs 2"),
            .init("Export every deck in a folder to HTML, with a JSON report.", command: "deck convert decks/ --to html --json"),
        ])

    @Argument(help: ArgumentHelp("The decks, files and folders to convert.", valueName: "input")) var inputs: [String]
    @Option(help: ArgumentHelp("The format to write.", valueName: "format")) var to: Format
    @Option(name: .customLong("out-dir"), help: ArgumentHelp("Where to write the outputs (default: beside each input).", valueName: "dir"))
    var outDir: String?
    @Option(help: ArgumentHelp("How many inputs to convert at once (default: the number of cores).", valueName: "n")) var jobs: Int?
    @Flag(name: .customLong("embed-media"), help: "JSON: include the media files' bytes (base64).") var embedMedia = false
    @OptionGroup var output: OutputOptions

    init() {}

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    }

    mutating func run() async throws {
        var outputDirectory: URL?
        if let outDir {
            do {
                try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
            } catch {
                throw CommandFailure(.cantCreate, path: outDir, reason: "cannot create the output folder")
            }
            outputDirectory = URL(fileURLWithPath: outDir)
        }
        let urls = DeckConverter.expand(inputs)
        if urls.isEmpty { throw CommandFailure(.noInput, path: inputs.first, reason: "nothing to convert found") }
        let converter = DeckConverter(target: to.interchangeFormat, outputDirectory: outputDirectory,
                                      jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, embedsMedia: embedMedia)
        let progress = ProgressBar(total: urls.count, label: "Converting", isEnabled: !output.noProgress && !output.quiet)
        let results = converter.run(urls) { _, _ in progress.advance() }
        progress.finish()
        let failed = results.filter { !$0.succeeded }.count
        let stdout = Terminal.current.stdout
        if output.json {
            let lines = results.map { result in
                var fields = ["\"input\": \(JSONText.quoted(result.input))", "\"ok\": \(result.succeeded)"]
                if let path = result.output { fields.append("\"output\": \(JSONText.quoted(path))") }
                if let error = result.error { fields.append("\"error\": \(JSONText.quoted(error))") }
                fields.append("\"cards\": \(result.cards)")
                fields.append("\"seconds\": \(String(format: "%.3f", result.seconds))")
                return "    {" + fields.joined(separator: ", ") + "}"
            }
            stdout.write("{\n  \"converted\": \(results.count - failed),\n  \"failed\": \(failed),\n  \"results\": [\n"
                         + lines.joined(separator: ",\n") + "\n  ]\n}\n")
        } else {
            for result in results {
                if result.succeeded {
                    output.say("converted \(result.input) -> \(result.output ?? "") (\(result.cards) card\(result.cards == 1 ? "" : "s"))")
                } else {
                    stdout.write("failed \(result.input): \(result.error ?? "unknown error")\n")
                }
            }
        }
        if failed > 0 {
            throw CommandFailure(.failure, reason: "\(failed) of \(results.count) input\(results.count == 1 ? "" : "s") failed")
        }
    }
}
