import ArgumentParsing
import Archive
import DeckDocument
import Foundation

/// `deck archive <deck> [-o <file>] [--format zip|tar.gz|tar.xz|tar.zst]`
struct ArchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Write a deck into one zip or compressed tar file.",
        discussion: """
            The archive holds one <name>.sampledeck directory: the manifest, a consistent snapshot of the \
            store (read in one read transaction: the store file itself, in place, while a writer's write-ahead log \
            is empty or no writer has the deck open, else a copy made with SQLite's backup API; so a deck being \
            written by another process can be archived, and no journal file is ever archived) and the media files. \
            A writer that comes along while a closed deck's store is archived waits only until the rest of the store \
            is copied aside. Entries are sorted and their times, owners and \
            permissions normalised, so archiving the same deck twice gives the same bytes. The format comes \
            from --format, else from the extension of -o, else zip. The archive is written under a temporary \
            name and published when complete with a call that never replaces anything: an existing file, even a \
            symbolic link to a missing one, is never overwritten (exit 73), and of two runs writing one -o exactly one \
            succeeds. A name ending in / is refused. With -o - the archive goes \
            to standard output (not to a terminal). A deck archive can also be given to info, list, search, \
            check and export, which read it without extracting it anywhere visible.
            """,
        examples: [
            .init("Archive a deck as a zip.", command: "deck archive French.sampledeck -o French.sampledeck.zip"),
            .init("Archive as zstd-compressed tar, format from the name.", command: "deck archive French.sampledeck -o French.tar.zst"),
            .init("Send a deck over ssh.", command: "deck archive French.sampledeck -o - --format tar.gz | ssh host 'cat > French.tgz'"),
        ],
        extraSections: [ArchiveSecurity.archiveSection])

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

    @Argument(help: ArgumentHelp("The deck (or deck archive) to archive.", valueName: "deck")) var deck: String
    @Option(name: .customShort("o"), help: ArgumentHelp("The archive to write, - or /dev/stdout for standard output, a device or named pipe (/dev/null) written in place (default: <deck>.<format>).", valueName: "file"))
    var outputFile: String?
    @Option(help: "The archive format (default: from the output name, else zip).") var format: Format?
    @Flag(help: "Replace the archive if it exists (atomically: the old one stays whole until the new one is).") var force = false
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func validate() throws {
        if let outputFile, OutputTarget.resolve(outputFile) != .file(outputFile), OutputTarget.resolve(outputFile).isTerminal {
            throw ValidationError("refusing to write an archive to a terminal; redirect standard output or give -o <file>")
        }
    }

    mutating func run() async throws {
        let target = outputFile.map(OutputTarget.resolve)
        let toStandardOutput = target == .standardOutput
        var stream: String?
        if case .stream(let path)? = target { stream = path }
        let archiveFormat = format?.archiveFormat
            ?? (toStandardOutput || stream != nil ? nil : outputFile.flatMap { ArchiveFormat.inferred(fromPath: $0) }) ?? .zip
        var trimmed = deck
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        let destination = outputFile ?? trimmed + "." + archiveFormat.fileExtension
        OutputPath.sweepLeftovers(beside: toStandardOutput || stream != nil ? [] : [destination])
        if !toStandardOutput, stream == nil { try OutputPath.checkFile(destination, overwrite: force ? .replace : .never) }
        let store = try OpenDeck.open(at: deck, readOnly: true)
        let progress = ArchiveProgress(label: "Archiving", enabled: !output.quiet && !output.noProgress)
        if toStandardOutput {
            try Terminal.current.stdout.flush()
            try OpenDeck.mapping(deck) {
                try store.document.archive(toFileDescriptor: STDOUT_FILENO, format: archiveFormat, progress: progress.report)
            }
            progress.finish()
            return
        }
        if let stream {
            let descriptor = try OutputTarget.openStream(stream)
            defer { close(descriptor) }
            try OpenDeck.mapping(stream) {
                try store.document.archive(toFileDescriptor: descriptor, format: archiveFormat, progress: progress.report)
            }
        } else {
            let deck = deck
            try OutputTarget.writeFile(destination, force: force) { url in
                try OpenDeck.mapping(destination) {
                    do {
                        try store.document.archive(to: url, format: archiveFormat, progress: progress.report)
                    } catch let error as DeckError where error.kind == .corrupt {
                        // Something in the deck (a media file that is not a regular file): named as the deck.
                        throw DeckFailure(.corrupt, path: deck, reason: error.reason)
                    }
                }
            }
        }
        progress.finish()
        if output.json {
            Terminal.current.stdout.write("{\"deck\": \(JSONText.quoted(deck)), \"output\": \(JSONText.quoted(destination)), \"format\": \(JSONText.quoted(archiveFormat.rawValue))}\n")
        } else {
            output.say("archived \(deck) to \(destination)")
        }
    }
}

/// A progress bar for archiving and extracting, shown only for large decks (8 MiB and more)
/// and only when standard error is a terminal.
final class ArchiveProgress {
    static let threshold: Int64 = 8 << 20
    private let label: String
    private let enabled: Bool
    private var bar: ProgressBar?

    init(label: String, enabled: Bool) {
        self.label = label
        self.enabled = enabled
    }

    func report(_ done: Int64, _ total: Int64) {
        guard enabled else { return }
        if bar == nil, total >= Self.threshold {
            bar = ProgressBar(total: Int(total), label: label, unit: .bytes)
        }
        bar?.update(completed: Int(done))
    }

    func finish() { bar?.finish() }
}
