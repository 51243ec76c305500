import ArgumentParsing
import DeckDocument
import FileSafety
import Foundation
import Persistence
import Interchange

/// `deck import <deck> <file>... [--format csv|tsv|json|apkg|colpkg] [--create]`
struct ImportCommand: ParsableCommand {
    enum Format: String, CaseIterable, ExpressibleByArgument {
        case csv, tsv, json, apkg, colpkg

        var interchangeFormat: InterchangeFormat {
            switch self {
            case .csv: .csv
            case .tsv: .tsv
            case .json: .json
            case .apkg: .apkg
            case .colpkg: .colpkg
            }
        }
    }

    /// `--update`: when a note already in the deck takes the file's.
    enum UpdateMode: String, CaseIterable, ExpressibleByArgument {
        case newer, always, never

        var policy: ImportUpdatePolicy {
            switch self {
            case .newer: .newer
            case .always: .always
            case .never: .never
            }
        }
    }

    /// `--format` names the file format written or read, not what is printed.
    static let formatOptionNamesOutput = false

    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add the cards of CSV, TSV, JSON or Anki files to a deck.",
        discussion: """
            The format is taken from --format, else from the file's extension (.csv, .tsv or .txt, .json, .apkg, \
            .colpkg), else from the file's first bytes: a JSON object, a zip holding an Anki collection, or text (CSV/TSV \
            with the separator guessed). '-' reads standard input, told the same way. Anything else (a .sampledeck \
            archive, an SQLite file, other binary data) is refused with exit status 65, naming what it looks like.

            CSV and TSV, as Anki writes them or as a spreadsheet saves them: Anki's header lines (#separator:, #html:, \
            #tags:, #columns:, #notetype:, #deck:, #guid column:, #tags column:, #notetype column:, #deck column:) are \
            read; without them the separator is guessed from the first lines (comma, semicolon, tab or pipe, quotes \
            respected) and a first row naming the note type's fields (Front, Back, Tags, Question, Answer; any case) is \
            taken as the header row. --separator, --header, --no-header, --columns, --notetype, --deck and --tags say \
            what the file does not, and win over its header lines. A file is UTF-8 (a byte order mark is skipped) or \
            UTF-16 with a byte order mark; give --encoding for Latin-1 or Windows-1252. Columns without a name go to the \
            first field, the second, then the tags (Anki's order). A tags cell is split on spaces (Anki's way) or, when \
            it holds commas or semicolons, as a list ("animals, nouns" is two tags; spaces inside one become _). A .tsv \
            file without header lines may use the backslash escapes \\n, \\t, \\r and \\\\ ('deck list --format tsv' \
            writes them); Anki's files quote instead.

            Rows with nothing in them and rows whose first field is empty are skipped; the report counts them (and \
            --verbose names their lines). A column with no field to go to (a header row's "Notes" for Basic) is an \
            error, exit status 65, unless --ignore-extra-columns drops its values (the report counts the rows that \
            lost one). --dry-run shows how each file would be read (encoding, separator, header row, which column goes \
            to which field, the first rows and the counts) and writes nothing. All CSV and TSV files of one command are \
            added first, in one transaction: on an error none of them is added.

            JSON: a file written by 'deck export --format json' (see Schemas/sampledeck.schema.json). Into a deck without \
            notes (a new one) it is restored whole: note types, decks, presets, notes, cards, reviews, tags and media \
            with their ids and every value, so exporting again gives the same file. Into a deck with notes it is merged: \
            note types, decks and presets of the same name are reused (a note type only when its fields are the same), \
            notes whose GUID is in the deck are updated as --update says (below). Media come from the file itself, else from --media-folder, a \
            Media folder beside the file, or the file's folder. With --create the new deck takes the file's title.

            Anki packages (.apkg, .colpkg; Anki 2.0 to current) are imported whole: note types with their fields, \
            templates, CSS and options (image occlusion included); notes with their GUIDs and ids; every card with \
            its deck and full scheduling (type, queue, due, interval, ease, reps, lapses, steps, flag, FSRS memory \
            state, custom data; the original deck and due of a card in a filtered deck); the deck tree with \
            descriptions, presets and filtered decks; every review; media under every name. A value no Anki writes \
            (out of range) refuses the package (exit 65), naming the column.

            Updates (Anki's rules): a note whose GUID is already in the deck is never added again. With --update newer \
            (the default, as in Anki) it updates the deck's note when it was modified later than the deck's (CSV and TSV \
            rows carry no time: the file's modification time counts); --update always updates whenever the contents \
            differ, --update never leaves the deck's notes alone. An update replaces the note's fields, tags and media \
            links (a CSV without a tags column leaves the tags, a column the file lacks leaves that field); the note's \
            cards keep their scheduling and review history, and cards for templates or cloze numbers the note lacks are \
            added. A note with the same fields and tags is counted unchanged. A note whose note type is not the deck's \
            note's is skipped. Note types (Anki packages) are matched by Anki's id: the same fields and templates (by id \
            or name, in order) is the same type, updated in place under the --update rule (names, templates, CSS); \
            changed fields or templates keep the deck's type and add the package's beside it, named 'Name (2)', so the \
            deck's notes of it are skipped (Anki's default, without 'merge note types'). With --merge-notetypes \
            (Anki's "merge note types") such a type is merged into the deck's instead: fields and templates are matched \
            by id or name, those only one side has are added (the deck's notes get them empty), and the notes of both \
            are mapped onto the merged type and updated under the --update rule; a cloze type and a standard one can't \
            be merged (exit 65). Decks already there (by name) take the package's description (unless empty), preset \
            (unless Anki's default) and filter terms, presets already there (by Anki id) every option, under the \
            --update rule; Anki's default preset stays the deck's. The report counts added, updated, unchanged and \
            skipped notes, names each note type decision and counts the decks and presets updated, unchanged or kept; \
            --verbose names each skipped note and why. Importing the same file twice adds nothing and changes nothing. \
            Each JSON file and Anki package is imported in a transaction of its own.
            """,
        examples: [
            .init("Import a CSV file into a new deck.", command: "deck import French.sampledeck verbs.csv --create"),
            .init("See how a spreadsheet's CSV would be read, without writing.", command: "deck import French.sampledeck Vokabeln.csv --dry-run"),
            .init("Import a header-less Latin-1 file, naming its columns and tagging every note.",
                  command: "deck import French.sampledeck old.csv --encoding latin-1 --columns Front,Back,Tags --tags imported,old"),
            .init("Import an Anki package.", command: "deck import French.sampledeck 'French Vocabulary.apkg'"),
            .init("Import a new version of a shared package, taking every change it brings, naming what was skipped.",
                  command: "deck import French.sampledeck 'French Vocabulary v2.apkg' --update always --verbose"),
            .init("Import JSON from standard input.", command: "deck export Old.sampledeck -o - --format json | deck import New.sampledeck - --format json --create"),
        ])

    @Argument(help: ArgumentHelp("The deck to import into.", valueName: "deck")) var deck: String
    @Argument(help: ArgumentHelp("The files to import ('-' for standard input).", valueName: "file")) var files: [String]
    @Option(help: "The format of the files (default: from the file name, else CSV/TSV guessed).") var format: Format?
    @Flag(help: "Create the deck when it does not exist.") var create = false
    @Option(help: ArgumentHelp(
        "When a note already in the deck (same GUID) takes the file's: newer (modified later; Anki's default), always or never.",
        valueName: "when"))
    var update: UpdateMode = .newer
    @Flag(name: .customLong("merge-notetypes"), help: """
        Anki packages: merge a note type whose fields or templates changed into the deck's of the same id (Anki's \
        "merge note types") instead of adding it beside it as a copy.
        """)
    var mergeNoteTypes = false
    @Option(name: .customLong("media-folder"), help: ArgumentHelp(
        "JSON: the folder holding the media files the file lists without their bytes ('deck export --media-folder').", valueName: "dir"))
    var mediaFolder: String?
    @OptionGroup var text: TextImportOptions
    @Flag(name: .customLong("dry-run"), help: "CSV/TSV: show how each file would be read and what would be imported; write nothing.")
    var dryRun = false
    @Flag(help: "Name each skipped row and note and each row that lost a value, with its file and line or GUID (on standard error).")
    var verbose = false
    @OptionGroup var output: OutputOptions
    @OptionGroup var waiting: WaitOptions

    /// What was told from the inputs' bytes (files without a known extension, standard input).
    struct ToldInputs {
        var formats: [String: InterchangeFormat] = [:]
        /// Standard input copied to a file, when it was read to be told.
        var standardInputCopy: URL?
    }

    init() {}

    func validate() throws { try validate(ToldInputs()) }

    func validate(_ told: ToldInputs) throws {
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input ('-') can be read only once") }
        let others = files.filter { !isText($0, told) }
        if let other = others.first, dryRun {
            throw ValidationError("--dry-run reads CSV and TSV files only ('\(other)' is \(format(of: other, told)?.rawValue ?? "not one"))")
        }
        if text.isAnyGiven, !others.isEmpty, others.count == files.count {
            throw ValidationError("the CSV/TSV options (--separator, --columns, …) do not apply to '\(others[0])'")
        }
    }

    /// Whether a file is read as CSV or TSV.
    func isText(_ file: String, _ told: ToldInputs = ToldInputs()) -> Bool { [nil, .csv, .tsv].contains(format(of: file, told)) }

    /// The format of one file, or nil for CSV/TSV with the separator guessed.
    func format(of file: String, _ told: ToldInputs = ToldInputs()) -> InterchangeFormat? {
        if let format { return format.interchangeFormat }
        if let found = told.formats[file] { return found }
        guard file != "-", let inferred = InterchangeFormat(inferringFrom: file), inferred.isImportable else { return nil }
        return inferred
    }

    mutating func run() async throws {
        for file in files where file != "-" {
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) {
                throw CommandFailure(.noInput, path: file, reason: "no such file")
            }
            if isDirectory.boolValue { throw CommandFailure(.dataError, path: file, reason: "is a directory, not a file to import") }
        }
        if dryRun {
            try preview()
            return
        }
        var told = ToldInputs()
        var spool: StagingDirectory?
        defer { spool?.remove() }
        if format == nil {
            // Told from their bytes: standard input (copied first) and files without a known extension.
            for file in files {
                let url: URL
                if file == "-" {
                    let folder = try Self.spoolFolder()
                    spool = folder
                    url = try Self.copyStandardInput(into: folder)
                    told.standardInputCopy = url
                } else if InterchangeFormat(inferringFrom: file)?.isImportable == true {
                    continue
                } else {
                    url = URL(fileURLWithPath: file)
                }
                let found = try ErrorMapping.run(path: file) { try InterchangeFormat.sniffImport(at: url, label: file) }
                if let found { told.formats[file] = found }
            }
            try validate(told)
        }
        OutputPath.sweepLeftovers(beside: create ? [deck] : [])
        let created = create && !FileManager.default.fileExists(atPath: deck)
        let store: OpenDeck = created
            ? try OpenDeck.create(at: deck, title: ((deck as NSString).lastPathComponent as NSString).deletingPathExtension)
            : try OpenDeck.open(at: deck, readOnly: false, wait: waiting.policy)
        do {
            let (summary, textRows) = try importAll(into: store.document, adoptsTitle: created, told: told)
            report(summary, textRows: textRows, notes: try store.noteCount(), cards: try store.cardCount())
        } catch {
            store.document.discardChanges()
            if created {
                try? store.document.close()
                try? FileManager.default.removeItem(atPath: deck)
            }
            throw error
        }
    }

    /// Imports every file; returns the summary and what the CSV and TSV files skipped or cut.
    private func importAll(into document: DeckDocument, adoptsTitle: Bool, told: ToldInputs) throws -> (ImportSummary, TextRowCounts) {
        var total = ImportSummary()
        var textRows = TextRowCounts()
        let sizes = files.map { ((try? FileManager.default.attributesOfItem(atPath: $0))?[.size] as? NSNumber)?.intValue ?? 0 }
        let progress = ProgressBar(total: files.contains("-") ? nil : sizes.reduce(0, +), label: "Importing", unit: .bytes,
                                   isEnabled: !output.noProgress && !output.quiet)
        defer { progress.finish() }
        var completed = 0
        // CSV and TSV files first, all in one transaction.
        let textFiles = files.indices.filter { isText(files[$0], told) }
        if !textFiles.isEmpty {
            var textReport = DeckTextImporter.Report()
            var diagnostics: [(file: String, TextImportDiagnostics)] = []
            try ErrorMapping.run(path: deck) {
                try document.bulkImport { session in
                    for index in textFiles {
                        let file = files[index]
                        let settings = text.settings(format: format(of: file, told), file: file)
                        let offset = completed
                        try ErrorMapping.run(path: file) {
                            var reader = file == "-" && told.standardInputCopy == nil ? TextImportReader.standardInput(settings: settings)
                                : try TextImportReader(url: file == "-" ? told.standardInputCopy ?? URL(fileURLWithPath: file) : URL(fileURLWithPath: file),
                                                       settings: settings)
                            // Rows carry no time: `newer` compares the file's (stdin's rows are new now).
                            let modified = file == "-" ? nil : try DeckTextImporter.modificationDate(ofFileAt: URL(fileURLWithPath: file))
                            let importer = DeckTextImporter(settings: settings, update: update.policy, modified: modified) {
                                progress.update(completed: offset + $0)
                            }
                            do {
                                try importer.add(from: &reader, to: session, report: &textReport)
                            } catch let error where error is PersistenceError || error is DeckError {
                                // Notes are written while the file is read: a store failure (a full
                                // disk) is the deck's, not the file's.
                                throw ErrorMapping.map(error, path: deck)
                            } catch let error as CSVError {
                                throw Self.explained(error, file: file)
                            }
                            diagnostics.append((file, reader.diagnostics))
                        }
                        completed += sizes[index]
                        progress.update(completed: completed)
                    }
                }
            }
            total.cardsAdded += textReport.cardsAdded
            total.duplicatesSkipped += textReport.duplicatesSkipped
            total.updates.add(textReport.updates)
            textRows = Self.rowCounts(diagnostics)
            if verbose { Self.name(diagnostics) }
        }
        // Then each JSON file and Anki package in a transaction of its own.
        for (index, file) in files.enumerated() {
            guard let format = format(of: file, told), format != .csv, format != .tsv else { continue }
            let summary = try ErrorMapping.run(path: file) {
                try withFile(file, format: format, standardInputCopy: told.standardInputCopy) { url in
                    try DeckInterchange.importFile(at: url, format: format, into: document, adoptsTitle: adoptsTitle,
                                                   mediaFolder: mediaFolder.map { URL(fileURLWithPath: $0) }, update: update.policy,
                                                   mergesNoteTypes: mergeNoteTypes)
                }
            }
            total.cardsAdded += summary.cardsAdded
            total.duplicatesSkipped += summary.duplicatesSkipped
            total.updates.add(summary.updates)
            total.mappedAsOther += summary.mappedAsOther
            total.otherNoteTypes = Array(Set(total.otherNoteTypes + summary.otherNoteTypes)).sorted()
            total.mediaFiles += summary.mediaFiles
            total.missingMedia += summary.missingMedia
            total.reviews += summary.reviews
            completed += sizes[index]
            progress.update(completed: completed)
        }
        return (total, textRows)
    }

    /// Runs `body` with the file's URL; standard input is first copied to a temporary file.
    private func withFile<T>(_ file: String, format: InterchangeFormat, standardInputCopy: URL?, _ body: (URL) throws -> T) throws -> T {
        guard file == "-" else { return try body(URL(fileURLWithPath: file)) }
        if let standardInputCopy { return try body(standardInputCopy) }
        // A private folder of TMPDIR, removed when done and on SIGINT, SIGTERM and SIGHUP.
        let folder: StagingDirectory
        do {
            folder = try StagingDirectory(in: Leftovers.temporaryDirectory, for: "deck-import")
        } catch {
            throw CommandFailure(.ioError, path: error.path, reason: error.reason)
        }
        defer { folder.remove() }
        let copy = folder.url.appendingPathComponent("stdin.\(format.rawValue)")
        _ = FileManager.default.createFile(atPath: copy.path, contents: nil)  // FileHandle below says if it failed
        guard let handle = FileHandle(forWritingAtPath: copy.path) else {
            throw CommandFailure(.ioError, path: copy.path, reason: "cannot create a temporary file")
        }
        do {
            while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty { try handle.write(contentsOf: chunk) }
            try handle.close()
        } catch {
            throw CommandFailure(.ioError, path: "-", reason: "cannot read standard input (\(error.localizedDescription))")
        }
        return try body(copy)
    }

    /// A private folder of TMPDIR for standard input's copy (removed when done and on SIGINT, SIGTERM and SIGHUP).
    static func spoolFolder() throws -> StagingDirectory {
        do {
            return try StagingDirectory(in: Leftovers.temporaryDirectory, for: "deck-import")
        } catch {
            throw CommandFailure(.ioError, path: error.path, reason: error.reason)
        }
    }

    /// Copies standard input into `folder`; returns the copy.
    static func copyStandardInput(into folder: StagingDirectory) throws -> URL {
        let copy = folder.url.appendingPathComponent("stdin")
        _ = FileManager.default.createFile(atPath: copy.path, contents: nil)  // FileHandle below says if it failed
        guard let handle = FileHandle(forWritingAtPath: copy.path) else {
            throw CommandFailure(.ioError, path: copy.path, reason: "cannot create a temporary file")
        }
        do {
            while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty { try handle.write(contentsOf: chunk) }
            try handle.close()
        } catch {
            throw CommandFailure(.ioError, path: "-", reason: "cannot read standard input (\(error.localizedDescription))")
        }
        return copy
    }

    private func report(_ summary: ImportSummary, textRows: TextRowCounts, notes: Int, cards: Int) {
        let stderr = Terminal.current.stderr
        if summary.missingMedia > 0 {
            stderr.write("deck: warning: \(summary.missingMedia) media file\(summary.missingMedia == 1 ? " was" : "s were") listed but missing\n")
        }
        if output.json {
            Terminal.current.stdout.write("""
                {"deck": \(JSONText.quoted(deck)), "input": [\(files.map(JSONText.quoted).joined(separator: ", "))], "imported": \(summary.cardsAdded), "notes": \(notes), "cards": \(cards), "duplicatesSkipped": \(summary.duplicatesSkipped), \
                "skippedEmptyFirstField": \(textRows.emptyFirstField), "skippedEmptyRows": \(textRows.emptyRows), \
                "truncatedRows": \(textRows.truncated), \
                "mappedAsOther": \(summary.mappedAsOther), "otherNoteTypes": [\(summary.otherNoteTypes.map(JSONText.quoted).joined(separator: ", "))], \
                "media": \(summary.mediaFiles), "missingMedia": \(summary.missingMedia), "reviews": \(summary.reviews), \
                \(Self.updatesJSON(summary.updates, added: summary.cardsAdded, mode: update, verbose: verbose))}

                """)
            return
        }
        var line = "imported \(summary.cardsAdded) note\(summary.cardsAdded == 1 ? "" : "s") into \(deck)"
        if summary.duplicatesSkipped > 0 { line += " (\(summary.duplicatesSkipped) already there, skipped)" }
        line += Self.updatesSentence(summary.updates)
        line += textRows.sentence
        output.say(line)
        for decision in summary.updates.noteTypes {
            if let sentence = Self.sentence(decision) { output.say(sentence) }
        }
        if let sentence = Self.decksSentence(summary.updates) { output.say(sentence) }
        if verbose { Self.name(summary.updates.skippedNotes) }
        if summary.mappedAsOther > 0 {
            output.say("\(summary.mappedAsOther) note\(summary.mappedAsOther == 1 ? "" : "s") of other note types "
                       + "(\(summary.otherNoteTypes.joined(separator: ", "))) mapped as front + labelled back")
        }
    }
}
