import ArgumentParsing
import DeckDocument
import FileSafety
import Foundation
import Interchange

/// `deck export <deck> -o <file|-> [--format csv|tsv|json|apkg|colpkg|html] [--anki-format legacy|current] [--media-folder <dir>]`
struct ExportCommand: ParsableCommand {
    /// `--anki-format`: the layout of an Anki package.
    enum AnkiFormat: String, CaseIterable, ExpressibleByArgument {
        case legacy, current

        var layout: AnkiLayout { self == .current ? .current : .legacy }
    }

    enum Format: String, CaseIterable, ExpressibleByArgument {
        case csv, tsv, json, apkg, colpkg, html

        var interchangeFormat: InterchangeFormat {
            switch self {
            case .csv: .csv
            case .tsv: .tsv
            case .json: .json
            case .apkg: .apkg
            case .colpkg: .colpkg
            case .html: .html
            }
        }
    }

    /// `--format` names the file format written or read, not what is printed.
    static let formatOptionNamesOutput = false

    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a deck's cards as CSV, TSV, JSON, an Anki package or collection, or an HTML page.",
        discussion: """
            The format is taken from --format, else from the output's extension. The file is written under a \
            temporary name and published when complete with a call that never replaces anything: an existing file, \
            even a symbolic link to a missing one, is never overwritten (exit 73), and of two runs writing one -o exactly \
            one succeeds. A name ending in / is refused. '-o -' writes to \
            standard output (--format is then required).

            csv, tsv: Anki's text format with header lines (#separator:, #html:true, #columns:), one row per card: \
            GUID, note type, deck, front, back, tags. Anki and 'deck import' read it back.

            json: everything in the deck, losslessly, every value as stored: note types (fields with their options, \
            templates, CSS, Anki's verbatim options), decks with descriptions and presets, notes (id, GUID, fields by name, \
            tags, media names), every card with its full scheduling and review log, tags, and media (name, SHA-256, size \
            and the bytes, base64, inside the file; with --media-folder the bytes go into that folder instead, as \
            <sha256>.<ext>). Described by Schemas/sampledeck.schema.json (format version 2). Exporting, importing into a \
            new deck and exporting again gives the same bytes.

            apkg: an Anki package holding everything the deck has: every note type with \
            its fields, templates, CSS and options; every note with its GUID and Anki id; every card with its deck and \
            full scheduling (type, queue, due, interval, ease, reps, lapses, learning steps, filtered deck and original \
            deck, flag, FSRS memory state, desired retention, custom data); decks with descriptions and presets, filtered \
            decks with their searches; every review; tags; media under every name. Ids and GUIDs are the ones stored \
            (a note made here gets them once), so importing a re-exported deck into Anki updates its notes instead of \
            adding them again.

            colpkg: the same as a whole Anki collection (importing it in Anki replaces the collection), with the deck's \
            collection settings.

            --anki-format picks the layout of an apkg or colpkg. legacy (the default): collection.anki21 (schema 11) \
            with a meta entry and a JSON media list, Anki's "support older versions" export, which every Anki since 2.1 \
            imports. current: what current Anki exports, a zstd-compressed collection.anki21b (schema 18, options as \
            protobuf), zstd-compressed media with a protobuf media list (name, size, SHA-1) and a placeholder \
            collection.anki2 asking older versions to update; Anki 2.1.50 and later import it. Both carry the same \
            contents.

            html: one page a browser opens, every card as Anki shows it: question and answer rendered through the note \
            type's templates and CSS (fields, filters, cloze, special fields), media inline as data: URLs, or with \
            --media-folder in that folder under the names cards use (the page refers to it relative to itself). The \
            page runs no script and loads nothing from elsewhere.
            """,
        examples: [
            .init("Export a deck for Anki.", command: "deck export French.sampledeck -o French.apkg"),
            .init("Export a deck in the layout current Anki writes.",
                  command: "deck export French.sampledeck -o French.apkg --anki-format current"),
            .init("Print a deck as JSON.", command: "deck export French.sampledeck -o - --format json"),
            .init("A page of the cards with their media in a folder beside it.",
                  command: "deck export French.sampledeck -o French.html --media-folder French-media"),
        ])

    @Argument(help: ArgumentHelp("The deck to export.", valueName: "deck")) var deck: String
    @Option(name: .customShort("o"), help: ArgumentHelp("The file to write: '-' or /dev/stdout for standard output; a device or named pipe (/dev/null) is written in place.", valueName: "file"))
    var outputFile: String
    @Option(help: "The output format (default: from the output's extension).") var format: Format?
    @Option(name: .customLong("anki-format"), help: ArgumentHelp(
        "apkg, colpkg: the package layout, legacy (collection.anki21, every Anki since 2.1; the default) or current (collection.anki21b, Anki 2.1.50 and later).",
        valueName: "layout"))
    var ankiFormat: AnkiFormat?
    @Option(name: .customLong("media-folder"), help: ArgumentHelp(
        "JSON, HTML: write media files into this folder instead of inside the file.", valueName: "dir"))
    var mediaFolder: String?
    @Flag(name: .customLong("embed-media"), help: "JSON: media inside the file (the default; accepted for older scripts).") var embedMedia = false
    @Flag(help: "Replace the output file if it exists (atomically: the old one stays whole until the new one is).") var force = false
    @OptionGroup var output: OutputOptions

    init() {}

    func validate() throws {
        let format = try resolvedFormat()
        if mediaFolder != nil, format != .json, format != .html {
            throw ValidationError("--media-folder applies to json and html exports only")
        }
        if mediaFolder != nil, embedMedia { throw ValidationError("--media-folder and --embed-media exclude each other") }
        if ankiFormat != nil, format != .apkg, format != .colpkg {
            throw ValidationError("--anki-format applies to apkg and colpkg exports only")
        }
        if OutputTarget.resolve(outputFile) != .file(outputFile), format.isBinary, OutputTarget.resolve(outputFile).isTerminal {
            throw ValidationError("refusing to write a binary \(format.rawValue) package to a terminal; redirect standard output or give -o <file>")
        }
    }

    func resolvedFormat() throws -> InterchangeFormat {
        if let format { return format.interchangeFormat }
        if outputFile == "-" { throw ValidationError("--format is required when writing to standard output") }
        if OutputTarget.resolve(outputFile) != .file(outputFile) {
            throw ValidationError("--format is required when writing to \(outputFile)")
        }
        guard let inferred = InterchangeFormat(inferringFrom: outputFile), inferred.isExportable else {
            throw ValidationError("cannot tell the format of '\(outputFile)': use --format csv|tsv|json|apkg|colpkg|html")
        }
        return inferred
    }

    mutating func run() async throws {
        let format = try resolvedFormat()
        let target = OutputTarget.resolve(outputFile)
        let (deck, outputFile) = (deck, outputFile)
        let layout = ankiFormat?.layout ?? .legacy
        OutputPath.sweepLeftovers(beside: target == .file(outputFile) ? [outputFile] : [])
        if target == .file(outputFile) { try OutputPath.checkFile(outputFile, overwrite: force ? .replace : .never) }
        let store = try OpenDeck.open(at: deck, readOnly: true)
        let (notes, cards) = (try store.noteCount(), try store.cardCount())
        // Notes written, on standard error when it is a terminal (not on a pipe, nor with
        // --quiet or --no-progress); the rate and time left show once a second has passed.
        let bar = ProgressBar(total: notes, label: "Exporting", unit: .count("note", "notes"), isEnabled: !output.quiet && !output.noProgress)
        let update: @Sendable (Int) -> Void = { bar.update(completed: $0) }
        let progress = bar.isActive ? update : nil
        defer { bar.finish() }
        if target == .standardOutput {
            // The export is spooled in a private folder of TMPDIR (an Anki package or a JSON
            // file is written whole before a byte can go out): removed when done, when
            // standard output's reader goes away (EPIPE) and on SIGINT, SIGTERM and SIGHUP.
            let spool: StagingDirectory
            do {
                spool = try StagingDirectory(in: Leftovers.temporaryDirectory, for: "deck-export")
            } catch {
                throw CommandFailure(.ioError, path: error.path, reason: error.reason)
            }
            defer { spool.remove() }
            let file = spool.url.appendingPathComponent("deck.\(format.rawValue)")
            try ErrorMapping.run(path: deck) {
                try DeckInterchange.export(store.document, format: format, to: file, mediaFolder: mediaFolder.map { URL(fileURLWithPath: $0) },
                                           pageFolder: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), ankiLayout: layout,
                                           progress: progress)
            }
            bar.finish()
            guard let handle = FileHandle(forReadingAtPath: file.path) else {
                throw CommandFailure(.ioError, path: file.path, reason: "cannot read back the export")
            }
            defer { try? handle.close() }
            do {
                while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                    try Terminal.current.stdout.write(contentsOf: chunk)
                }
                try Terminal.current.stdout.flush()
            } catch {
                throw CommandFailure(.ioError, path: "-", reason: "cannot write to standard output")
            }
            return
        }
        if case .stream(let path) = target {
            try OutputTarget.spool(to: path, name: "deck.\(format.rawValue)") { file in
                try ErrorMapping.run(path: deck) {
                    try DeckInterchange.export(store.document, format: format, to: file, mediaFolder: mediaFolder.map { URL(fileURLWithPath: $0) },
                                           pageFolder: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), ankiLayout: layout,
                                           progress: progress)
                }
            }
        } else {
            try OutputTarget.writeFile(outputFile, force: force) { url in
                try ErrorMapping.run(path: outputFile, deck: deck) {
                    try DeckInterchange.export(store.document, format: format, to: url, mediaFolder: mediaFolder.map { URL(fileURLWithPath: $0) },
                                           pageFolder: URL(fileURLWithPath: outputFile).deletingLastPathComponent(), ankiLayout: layout,
                                           progress: progress)
                }
            }
        }
        bar.finish()
        if output.json {
            Terminal.current.stdout.write("{\"deck\": \(JSONText.quoted(deck)), \"output\": \(JSONText.quoted(outputFile)), \"format\": \(JSONText.quoted(format.rawValue)), \"notes\": \(notes), \"cards\": \(cards)}\n")
        } else {
            output.say("exported \(notes) note\(notes == 1 ? "" : "s") from \(deck) to \(outputFile)")
        }
    }
}
