import ArgumentParsing
import Foundation
import Interchange

/// `deck convert [<input>...] [--files-from <file|->] --to <format> [--out-dir <dir>] [--skip-existing|--force] [--jobs <n>] [--json]`
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

    /// `--format` names the file format written or read, not what is printed.
    static let formatOptionNamesOutput = false

    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert many decks between formats, several at a time.",
        discussion: """
            Each input is a .sampledeck package, a deck archive (.zip, as 'deck archive' writes), or a .csv, .tsv, .txt, .json, \
            .apkg or .colpkg file; a folder is \
            searched for them (hidden entries skipped). Inputs are named as arguments, or one path per line in the file \
            given to --files-from ('-' reads standard input; empty lines are ignored), or both. Each is written as \
            <name>.<format> beside it, or in --out-dir. Files are first imported into a temporary deck, exactly as \
            'deck import' does (the Anki note-type mapping of deck-import(1) applies), then written as 'deck export' \
            does (see deck-export(1) for the card kind to Anki note type mapping); zip writes a deck archive as \
            'deck archive' does.

            Names that collide: every output path is decided before anything is written. In --out-dir, inputs whose \
            outputs would have the same name keep their folders relative to the deepest folder they share \
            (week1/vocab.csv and week2/vocab.csv become out/week1/vocab.json and out/week2/vocab.json). If two \
            outputs would still be the same path (the same input given twice, or vocab.csv and vocab.tsv in one \
            folder), nothing is converted: the run stops with exit status 73, naming both inputs.

            Outputs are written under a temporary name and moved into place when complete; inputs are never \
            modified. An existing output is never replaced: that input fails with 'already exists', unless \
            --skip-existing (it is skipped without being read, and reported as skipped) or --force (the output is \
            replaced, a file atomically). A failed input does not stop the others. One result line is printed per \
            input as soon as it finishes (so in completion order when --jobs is above 1); with --json each is a JSON \
            object on its own line with input, ok, skipped, output or error, notes and durationMs (milliseconds), and a last line holds \
            the totals (summary, converted, skipped, failed). The exit status is 0 when every input was converted or \
            skipped, 73 when the inputs that failed all failed because their output could not be created (it \
            already exists: of two conversions to one output exactly one wins, the other gets 73), and 1 if any \
            failed otherwise. A progress bar is drawn on standard error when it is a terminal.

            Every input is converted on its own and atomically, so a large conversion can be split over processes \
            or machines freely (see docs/CONVERT.md for GNU parallel, xargs and job arrays); with --skip-existing a \
            rerun does only what is left.
            """,
        examples: [
            .init("Convert a folder of Anki packages to decks, two at a time.", command: "deck convert ~/Anki/ --to sampledeck --out-dir decks --jobs 2"),
            .init("Export every deck in a folder to HTML, with a JSON report.", command: "deck convert decks/ --to html --json"),
            .init("Convert the files listed in a file, skipping those already done.",
                  command: "find in -name '*.apkg' | deck convert --files-from - --to json --out-dir out --skip-existing"),
        ])

    @Argument(help: ArgumentHelp("The decks, files and folders to convert.", valueName: "input")) var inputs: [String] = []
    @Option(help: ArgumentHelp("The format to write.", valueName: "format")) var to: Format
    @Option(name: .customLong("out-dir"), help: ArgumentHelp("Where to write the outputs (default: beside each input).", valueName: "dir"))
    var outDir: String?
    @Option(name: .customLong("files-from"), help: ArgumentHelp("Also convert the paths listed in this file, one per line ('-': standard input).",
                                                               valueName: "file"))
    var filesFrom: String?
    @Flag(name: .customLong("skip-existing"), help: "Skip an input whose output already exists (not a failure).") var skipExisting = false
    @Flag(help: "Replace outputs that already exist.") var force = false
    @Option(help: ArgumentHelp("How many inputs to convert at once (default: the number of cores).", valueName: "n")) var jobs: Int?
    @Option(name: .customLong("anki-format"), help: ArgumentHelp(
        "With --to apkg: the package layout, legacy (schema 11, the default) or current (Anki 2.1.50 and later), as deck export writes it.",
        valueName: "layout"))
    var ankiFormat: ExportCommand.AnkiFormat?
    @Flag(name: .customLong("embed-media"), help: "JSON: media inside the file (the default; accepted for older scripts).") var embedMedia = false
    @OptionGroup var output: OutputOptions

    init() {}

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if skipExisting && force { throw ValidationError("--skip-existing and --force cannot be used together") }
        if inputs.isEmpty && filesFrom == nil { throw ValidationError("name an input, or give --files-from") }
        if ankiFormat != nil, to != .apkg { throw ValidationError("--anki-format applies to --to apkg only") }
    }

    /// The paths listed by --files-from, one per line (a final line without a newline counts; CR of CRLF dropped).
    private func listedPaths() throws -> [String] {
        guard let filesFrom else { return [] }
        let data: Data
        if filesFrom == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: filesFrom))
            } catch {
                throw CommandFailure(.noInput, path: filesFrom, reason: "cannot read the list of files")
            }
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure(.dataError, path: filesFrom == "-" ? nil : filesFrom, reason: "the list of files is not UTF-8 text")
        }
        return text.split(separator: "\n", omittingEmptySubsequences: true).map { line in
            line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        }.filter { !$0.isEmpty }
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
        OutputPath.sweepLeftovers()
        let paths = inputs + (try listedPaths())
        let urls = DeckConverter.expand(paths)
        if urls.isEmpty { throw CommandFailure(.noInput, path: paths.first ?? filesFrom, reason: "nothing to convert found") }
        let converter = DeckConverter(target: to.interchangeFormat, outputDirectory: outputDirectory,
                                      jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount,
                                      existing: force ? .replace : skipExisting ? .skip : .fail, ankiLayout: ankiFormat?.layout ?? .legacy)
        let progress = ProgressBar(total: urls.count, label: "Converting", unit: .count("file", "files"), isEnabled: !output.noProgress && !output.quiet)
        let (json, quiet) = (output.json, output.quiet)
        // The converter's worker threads don't see this task's Terminal.current: take it here.
        let stdout = Terminal.current.stdout
        let results: [ConversionResult]
        do {
            results = try converter.run(urls) { _, result in
                Self.report(result, json: json, quiet: quiet, to: stdout)
                progress.advance()
            }
        } catch let error as ConversionPlanError {
            throw CommandFailure(.cantCreate, reason: error.description)
        }
        progress.finish()
        let failed = results.filter { !$0.succeeded }.count
        let skipped = results.filter(\.skipped).count
        if output.json {
            Terminal.current.stdout.write("{\"summary\": true, \"converted\": \(results.count - failed - skipped), "
                                          + "\"skipped\": \(skipped), \"failed\": \(failed)}\n")
        }
        if failed > 0 {
            // Like export and archive: an output that exists (another writer to it won) is 73,
            // when that is why every failed input failed.
            let cannotCreate = results.allSatisfy { $0.succeeded || $0.failure == .cannotCreate }
            throw CommandFailure(cannotCreate ? .cantCreate : .failure,
                                 reason: "\(failed) of \(results.count) input\(results.count == 1 ? "" : "s") failed")
        }
    }

    /// Prints one input's result (called as each finishes, one at a time).
    private static func report(_ result: ConversionResult, json: Bool, quiet: Bool, to stdout: OutputWriter) {
        func say(_ line: String) {
            if !quiet { stdout.write(line.escapingControlCharacters() + "\n") }
        }
        if json {
            var fields = ["\"input\": \(JSONText.quoted(result.input))", "\"ok\": \(result.succeeded)", "\"skipped\": \(result.skipped)"]
            if let path = result.output { fields.append("\"output\": \(JSONText.quoted(path))") }
            if let error = result.error { fields.append("\"error\": \(JSONText.quoted(error))") }
            fields.append("\"notes\": \(result.cards)")
            fields.append("\"durationMs\": \(Int((result.seconds * 1000).rounded()))")
            stdout.write("{" + fields.joined(separator: ", ") + "}\n")
        } else if result.skipped {
            say("skipped \(result.input): \(result.output ?? "") already exists")
        } else if result.succeeded {
            say("converted \(result.input) -> \(result.output ?? "") (\(result.cards) note\(result.cards == 1 ? "" : "s"))")
        } else {
            stdout.write(("failed \(result.input): \(result.error ?? "unknown error")").escapingControlCharacters() + "\n")
        }
        try? stdout.flush()
    }
}
