import ArgumentParsing
import Archive
import DeckDocument
import FileSafety
import Foundation

/// `deck unarchive <archive> [-C <dir>]`
struct UnarchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unarchive",
        abstract: "Extract a deck from an archive made by 'deck archive' (or zip -r, bsdtar).",
        discussion: """
            The archive must hold one <name>.sampledeck directory. Every entry is checked before anything \
            is written; the deck is then extracted into a private directory inside the destination, opened \
            and checked as by 'deck check', and renamed into place. On any failure nothing is left in the \
            destination, and an existing deck is never replaced. With - the archive is read from standard \
            input (spooled to a private temporary file first). See SECURITY for what is refused.
            """,
        examples: [
            .init("Extract into the decks directory.", command: "deck unarchive French.sampledeck.zip -C decks"),
            .init("Extract a deck received on standard input.", command: "ssh host 'cat French.tgz' | deck unarchive -"),
        ],
        environment: ArchiveSecurity.environment,
        extraSections: [ArchiveSecurity.unarchiveSection])

    @Argument(help: ArgumentHelp("The archive to extract, - for standard input.", valueName: "archive")) var archive: String
    @Option(name: .customShort("C"), help: ArgumentHelp("The directory to extract into (default: the current one).", valueName: "dir"))
    var directory: String = "."
    @OptionGroup var output: OutputOptions

    init() {}

    mutating func run() async throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure(.noInput, path: directory, reason: "no such directory")
        }
        // Staging folders of killed extractions here (`.deck-unarchive.staging-…`), spools in TMPDIR.
        OutputPath.sweepLeftovers(beside: [(directory as NSString).appendingPathComponent("deck-unarchive")])
        var spooled: StandardInputSpool?
        if archive == "-" {
            spooled = try StandardInputSpool()
        } else if !FileManager.default.fileExists(atPath: archive, isDirectory: &isDirectory) {
            throw CommandFailure(.noInput, path: archive, reason: "no such file")
        }
        defer { spooled?.remove() }
        let source = spooled?.url ?? URL(fileURLWithPath: archive)
        let deck: URL
        let progress = ArchiveProgress(label: "Extracting", enabled: !output.quiet && !output.noProgress)
        defer { progress.finish() }
        do {
            deck = try DeckDocument.unarchive(source, into: URL(fileURLWithPath: directory), limits: ArchiveSecurity.limits(),
                                              progress: progress.report)
        } catch let error as DeckError where error.kind == .alreadyExists {
            let name = URL(fileURLWithPath: error.path).lastPathComponent
            throw CommandFailure(.cantCreate, path: (directory as NSString).appendingPathComponent(name), reason: "already exists")
        } catch {
            throw Self.failure(error, archive: archive)
        }
        let shown = directory == "." ? deck.lastPathComponent : (directory as NSString).appendingPathComponent(deck.lastPathComponent)
        if output.json {
            Terminal.current.stdout.write("{\"input\": \(JSONText.quoted(archive)), \"deck\": \(JSONText.quoted(shown))}\n")
        } else {
            output.say("extracted \(shown)")
        }
    }

    /// Errors name the archive as typed (and the entry when one is at fault).
    private static func failure(_ error: any Error, archive: String) -> any Error {
        do {
            return try OpenDeck.mapping(archive) { throw error }
        } catch {
            return error
        }
    }
}

/// Standard input copied to a private temporary file (extraction reads the archive twice),
/// in a private folder of TMPDIR (``StagingDirectory``: removed when done and on SIGINT,
/// SIGTERM and SIGHUP; a killed run's is swept by the next).
struct StandardInputSpool {
    let url: URL
    private let directory: StagingDirectory

    init() throws {
        do {
            directory = try StagingDirectory(in: Leftovers.temporaryDirectory, for: "deck-stdin")
        } catch {
            throw CommandFailure(.ioError, path: error.path, reason: error.reason)
        }
        url = directory.url.appendingPathComponent("archive")
        do {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CommandFailure(.ioError, path: url.path, reason: "cannot create a temporary file")
            }
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty {
                try handle.write(contentsOf: chunk)
            }
        } catch let failure as CommandFailure {
            directory.remove()
            throw failure
        } catch {
            directory.remove()
            throw CommandFailure(.ioError, path: "-", reason: "cannot read standard input (\(error.localizedDescription))")
        }
    }

    func remove() {
        directory.remove()
    }
}
