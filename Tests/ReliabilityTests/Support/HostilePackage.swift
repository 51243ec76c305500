import DeckDocument
import Foundation
import SQLite
#if canImport(Glibc)
import Glibc
#endif

/// The classes of hostile package the generator builds: each turns one entry of a valid deck
/// (a store, a manifest, `.lock`, `Media/`, a media file, a media file name in the store)
/// into something a reader must refuse (docs/FORMAT.md, "What a reader must refuse").
enum HostileClass: String, CaseIterable, CustomStringConvertible, Sendable {
    case storeLinkOutside, storeLinkDangling, storeFIFO
    case manifestLinkOutside, manifestFIFO
    case lockLinkDangling, lockLinkOutside, lockFIFO
    case mediaFolderLinkOutside
    case mediaFileLinkOutside, mediaFileLinkDangling, mediaFileFIFO, mediaFileDirectory
    case traversalName

    var description: String { rawValue }

    /// What is wrong is the store or the manifest: nothing can read the deck.
    var breaksDeck: Bool { [.storeLinkOutside, .storeLinkDangling, .storeFIFO, .manifestLinkOutside, .manifestFIFO].contains(self) }
    /// What is wrong is the lock or the media folder: a writer must refuse the deck.
    var breaksWriters: Bool { breaksDeck || [.lockLinkDangling, .lockLinkOutside, .lockFIFO, .mediaFolderLinkOutside].contains(self) }
    /// What is wrong is the media: anything that reads media must refuse.
    var breaksMedia: Bool { breaksDeck || [.mediaFolderLinkOutside, .mediaFileLinkOutside, .mediaFileLinkDangling, .mediaFileFIFO,
                                           .mediaFileDirectory, .traversalName].contains(self) }
    /// Classes that can also be put into an archive by `bsdtar` (links and special files).
    var isArchivable: Bool { self != .traversalName && self != .mediaFileDirectory }
}

/// A commands's promise for one class: the exit status it must give.
struct HostileCommand: CustomStringConvertible, Sendable {
    enum Role: Sendable { case reader, check, mediaReader, writer }
    let name: String
    let arguments: [String]
    let role: Role
    /// The output it writes (relative to the working folder), if any.
    let output: String?
    /// The status of a refusal: 65 (bad input data), 1 for `convert` (which reports each
    /// input's failure on its own line and exits 1 when any failed).
    var failureStatus: Int32 = 65

    var description: String { name }

    func expectedStatus(for hostile: HostileClass) -> Int32 {
        let fails = switch role {
        case .reader: hostile.breaksDeck
        case .check: true
        case .mediaReader: hostile.breaksMedia
        case .writer: hostile.breaksWriters
        }
        return fails ? failureStatus : 0
    }

    static let deck = HostileWorkspace.deckName
    static let all: [HostileCommand] = [
        .init(name: "info", arguments: ["info", deck], role: .reader, output: nil),
        .init(name: "list", arguments: ["list", deck], role: .reader, output: nil),
        .init(name: "check", arguments: ["check", deck], role: .check, output: nil),
        .init(name: "export-csv", arguments: ["export", deck, "-o", "out/x.csv"], role: .reader, output: "out/x.csv"),
        .init(name: "export-json-embed", arguments: ["export", deck, "-o", "out/x.json", "--embed-media"], role: .mediaReader, output: "out/x.json"),
        .init(name: "export-html", arguments: ["export", deck, "-o", "out/x.html"], role: .mediaReader, output: "out/x.html"),
        .init(name: "export-apkg", arguments: ["export", deck, "-o", "out/x.apkg"], role: .mediaReader, output: "out/x.apkg"),
        .init(name: "archive", arguments: ["archive", deck, "-o", "out/x.zip"], role: .mediaReader, output: "out/x.zip"),
        .init(name: "convert-zip", arguments: ["convert", deck, "--to", "zip", "--out-dir", "out"], role: .mediaReader, output: "out/Hostile.sampledeck.zip",
              failureStatus: 1),
        .init(name: "add", arguments: ["add", deck, "--front", "added", "--back", "b"], role: .writer, output: nil),
        .init(name: "import", arguments: ["import", deck, "cards.csv"], role: .writer, output: nil),
    ]
}

/// A scratch tree holding a valid deck with media, turned hostile, between canary folders
/// whose contents are checked after every command:
///
/// ```
/// <root>/canary/     secret.txt, Other.sampledeck (a valid deck), folder/ (copies of the media)
/// <root>/work/       Hostile.sampledeck, cards.csv, out/ (outputs): the commands' working folder
/// <root>/tmp/        TMPDIR of the commands: empty after every run
/// ```
final class HostileWorkspace {
    static let deckName = "Hostile.sampledeck"
    /// Text that must never appear in an output: it lives only in the canary folder.
    static let secret = "CANARY-SECRET-0d1e5a"

    let scratch: Scratch
    var root: URL { scratch.url }
    var work: URL { root.appendingPathComponent("work") }
    var canary: URL { root.appendingPathComponent("canary") }
    var temporary: URL { root.appendingPathComponent("tmp") }
    var output: URL { work.appendingPathComponent("out") }
    var package: URL { work.appendingPathComponent(Self.deckName) }
    /// The deck's media files, by file name.
    private(set) var mediaNames: [String] = []

    /// Builds the tree and the valid deck (two cards, each with a media file).
    init() throws {
        scratch = try Scratch("hostile")
        for folder in [work, canary, temporary, output, canary.appendingPathComponent("folder")] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try Data("\(Self.secret)\n".utf8).write(to: canary.appendingPathComponent("secret.txt"))
        try Data("front,back\nimported,row\n".utf8).write(to: work.appendingPathComponent("cards.csv"))
        mediaNames = try Self.makeDeck(at: package, title: "Hostile")
        _ = try Self.makeDeck(at: canary.appendingPathComponent("Other.sampledeck"), title: "Other")
        for name in mediaNames {
            try FileManager.default.copyItem(at: package.appendingPathComponent("Media/\(name)"),
                                             to: canary.appendingPathComponent("folder/\(name)"))
        }
    }

    /// A deck of two cards, each showing one media file; returns the media file names.
    static func makeDeck(at url: URL, title: String) throws -> [String] {
        let deck = try DeckDocument.create(at: url, title: title)
        var names: [String] = []
        for (index, bytes) in ["first picture", "second sound"].enumerated() {
            let media = try deck.addMedia(Data(bytes.utf8), originalName: index == 0 ? "a.png" : "b.mp3")
            let card = try deck.addCard(kind: .basic, front: "<img src=\"\(media.originalName)\"> card \(index)",
                                        back: "back \(index)", tags: ["t\(index)"])
            try deck.attachMedia(named: [media.originalName], to: card)
            names.append(media.fileName)
        }
        try deck.save()
        try deck.close()
        return names.sorted()
    }

    /// Turns the deck into an instance of `hostile`.
    func apply(_ hostile: HostileClass) throws {
        let fm = FileManager.default
        func replaceWithLink(_ entry: String, to target: String) throws {
            try fm.removeItem(at: package.appendingPathComponent(entry))
            try fm.createSymbolicLink(atPath: package.appendingPathComponent(entry).path, withDestinationPath: target)
        }
        func replaceWithFIFO(_ entry: String) throws {
            let path = package.appendingPathComponent(entry).path
            if fm.fileExists(atPath: path) { try fm.removeItem(atPath: path) }
            guard mkfifo(path, 0o644) == 0 else { throw StateError("mkfifo \(path): \(String(cString: strerror(errno)))") }
        }
        let media = "Media/\(mediaNames[0])"
        switch hostile {
        case .storeLinkOutside: try replaceWithLink("Deck.sqlite", to: canary.appendingPathComponent("Other.sampledeck/Deck.sqlite").path)
        case .storeLinkDangling: try replaceWithLink("Deck.sqlite", to: canary.appendingPathComponent("missing.sqlite").path)
        case .storeFIFO: try replaceWithFIFO("Deck.sqlite")
        case .manifestLinkOutside: try replaceWithLink("manifest.json", to: canary.appendingPathComponent("Other.sampledeck/manifest.json").path)
        case .manifestFIFO: try replaceWithFIFO("manifest.json")
        case .lockLinkDangling:
            if fm.fileExists(atPath: package.appendingPathComponent(".lock").path) { try fm.removeItem(at: package.appendingPathComponent(".lock")) }
            try fm.createSymbolicLink(atPath: package.appendingPathComponent(".lock").path,
                                      withDestinationPath: canary.appendingPathComponent("created-by-lock").path)
        case .lockLinkOutside:
            if fm.fileExists(atPath: package.appendingPathComponent(".lock").path) { try fm.removeItem(at: package.appendingPathComponent(".lock")) }
            try fm.createSymbolicLink(atPath: package.appendingPathComponent(".lock").path,
                                      withDestinationPath: canary.appendingPathComponent("secret.txt").path)
        case .lockFIFO: try replaceWithFIFO(".lock")
        case .mediaFolderLinkOutside: try replaceWithLink("Media", to: canary.appendingPathComponent("folder").path)
        case .mediaFileLinkOutside: try replaceWithLink(media, to: canary.appendingPathComponent("secret.txt").path)
        case .mediaFileLinkDangling: try replaceWithLink(media, to: canary.appendingPathComponent("missing.png").path)
        case .mediaFileFIFO: try replaceWithFIFO(media)
        case .mediaFileDirectory:
            try fm.removeItem(at: package.appendingPathComponent(media))
            try fm.createDirectory(at: package.appendingPathComponent(media), withIntermediateDirectories: false)
        case .traversalName:
            // A name that, joined to Media/, reaches the canary: ../../../canary/secret.txt.
            let db = try Database(path: package.appendingPathComponent("Deck.sqlite").path, mode: .readWrite)
            defer { db.close() }
            try db.execute("UPDATE \"MediaFile\" SET \"fileName\" = '../../../canary/secret.txt' WHERE \"fileName\" = '\(mediaNames[0])'")
        }
    }

    /// Runs `deck` in `work` with the private TMPDIR and `input` as its standard input, killed
    /// if it runs past `timeout`.
    func run(_ arguments: [String], input: String? = nil, timeout: Double = 60) throws -> DeckRun {
        try DeckBinary.start(arguments, in: work, stdin: input.map { Data($0.utf8) },
                             environment: ["TMPDIR": temporary.path]).wait(timeout: timeout)
    }

    /// Every entry below `folder` (not following links): a regular file's bytes, a link's
    /// target, a FIFO or directory by its type. Never opens anything but regular files.
    static func snapshot(_ folder: URL, skipping skip: (String) -> Bool = { _ in false }) -> [String: String] {
        var result: [String: String] = [:]
        func walk(_ url: URL, _ relative: String) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { return }
            for name in names {
                let path = relative.isEmpty ? name : relative + "/" + name
                if skip(path) { continue }
                let child = url.appendingPathComponent(name)
                var status = stat()
                guard lstat(child.path, &status) == 0 else { continue }
                switch status.st_mode & S_IFMT {
                case S_IFDIR:
                    result[path] = "dir"
                    walk(child, path)
                case S_IFREG:
                    let data = (try? Data(contentsOf: child)) ?? Data()
                    result[path] = "file \(data.count) \(data.hashValue)"
                case S_IFLNK:
                    result[path] = "link " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: child.path)) ?? "?")
                default:
                    result[path] = "special \(status.st_mode & S_IFMT)"
                }
            }
        }
        walk(folder, "")
        return result
    }

    /// The canary folder and the rest of the tree outside `work/` and `tmp/`.
    func outsideSnapshot() -> [String: String] {
        Self.snapshot(root) { $0 == "work" || $0.hasPrefix("work/") || $0 == "tmp" || $0.hasPrefix("tmp/") }
    }

    /// The package, without what SQLite or a writer may touch harmlessly (`-shm`; `.lock` when it is a regular file).
    func packageSnapshot() -> [String: String] {
        Self.snapshot(package).filter { !$0.key.hasSuffix("-shm") && !($0.key == ".lock" && $0.value.hasPrefix("file")) }
    }

    /// What is in `tmp/` and `out/` now (both should be empty, apart from a command's output).
    func leftovers(besides output: String?) -> [String] {
        let out = (try? FileManager.default.contentsOfDirectory(atPath: self.output.path)) ?? []
        let kept = output.map { ($0 as NSString).lastPathComponent }
        return out.filter { $0 != kept }.map { "out/" + $0 }
            + ((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []).map { "tmp/" + $0 }
    }

    /// Empties `out/` and `tmp/` between commands.
    func clearOutputs() throws {
        for folder in [output, temporary] {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
        }
    }
}

extension DeckRun {
    /// The promise about messages: a failure prints exactly one `deck: error:` line (and no
    /// other line of stderr mentions an error).
    var hasOneClearErrorLine: Bool {
        let lines = stderr.split(separator: "\n", omittingEmptySubsequences: true)
        let errors = lines.filter { $0.hasPrefix("deck: error: ") }
        return errors.count == 1 && !lines.contains { !$0.hasPrefix("deck: error: ") && $0.localizedCaseInsensitiveContains("error") }
    }
}
