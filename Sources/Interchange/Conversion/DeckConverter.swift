import DeckDocument
import FileSafety
import Foundation

/// The outcome of converting one input.
public struct ConversionResult: Sendable, Hashable, Codable {
    /// The input as given (or as found in a folder).
    public var input: String
    /// The file or package written, when the conversion succeeded.
    public var output: String?
    /// Whether it succeeded (a skipped input counts as succeeded).
    public var succeeded: Bool
    /// Whether it was skipped because its output already existed (``DeckConverter/existing`` `.skip`).
    public var skipped: Bool
    /// What went wrong (`path: reason`), when it failed.
    public var error: String?
    /// The kind of failure, when it failed: ``InterchangeError/Kind/cannotCreate`` when the
    /// output could not be created (it already existed, or another conversion to it won).
    public var failure: InterchangeError.Kind?
    /// Cards converted.
    public var cards: Int
    /// Wall-clock seconds spent.
    public var seconds: Double

    /// Creates a result.
    public init(input: String, output: String? = nil, succeeded: Bool, skipped: Bool = false, error: String? = nil, cards: Int = 0,
                seconds: Double = 0) {
        self.input = input
        self.output = output
        self.succeeded = succeeded
        self.skipped = skipped
        self.error = error
        self.cards = cards
        self.seconds = seconds
    }
}

/// Converts many decks between formats, several at a time.
///
/// Each input (a `.sampledeck` package or its zip archive, or a csv/tsv/json/apkg/colpkg file)
/// is read — files are first imported into a temporary deck — and written as ``target`` next to it or in
/// ``outputDirectory``, named after it (`French.apkg` → `French.json`). Outputs are written
/// under a temporary name and moved into place when complete; an existing output is replaced only
/// when ``existing`` is `.replace`; inputs are only read. A failed input does not stop the others.
///
/// Names that would collide are planned before anything is written (``plan(_:)``): in
/// ``outputDirectory``, inputs whose outputs would share a name keep their folders relative to
/// the deepest folder they share (`week1/vocab.csv`, `week2/vocab.csv` → `out/week1/vocab.json`,
/// `out/week2/vocab.json`); outputs that would still collide (the same input twice, `vocab.csv` and
/// `vocab.tsv` side by side) make the run refuse with ``ConversionPlanError``, naming both inputs.
///
/// ```swift
/// let converter = DeckConverter(target: .json, outputDirectory: out, jobs: 2)
/// let results = converter.run(DeckConverter.expand(["decks/"])) { _, result in print(result.input) }
/// ```
///
/// Cost: inputs run on ``jobs`` threads, each with its own documents (documents share nothing).
public struct DeckConverter: Sendable {
    /// The format to write.
    public var target: InterchangeFormat
    /// Where outputs go; beside each input when nil.
    public var outputDirectory: URL?
    /// How many inputs are converted at once (at least 1).
    public var jobs: Int
    /// What to do when an output already exists.
    public var existing: ExistingOutput
    /// The layout of Anki packages written (``InterchangeFormat/apkg``); legacy by default.
    public var ankiLayout: AnkiLayout

    /// What to do when an input's output already exists.
    public enum ExistingOutput: Sendable, Hashable {
        /// The input fails ("already exists"); the output is left alone.
        case fail
        /// The input is skipped (reported as skipped, not failed) without being read.
        case skip
        /// The output is replaced by the new one.
        case replace
    }

    /// Creates a converter.
    public init(target: InterchangeFormat, outputDirectory: URL? = nil, jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                existing: ExistingOutput = .fail, ankiLayout: AnkiLayout = .legacy) {
        self.target = target
        self.outputDirectory = outputDirectory
        self.jobs = max(1, jobs)
        self.existing = existing
        self.ankiLayout = ankiLayout
    }

    /// The output each input is written to, in input order, before anything is written: beside
    /// the input, or in ``outputDirectory`` named after it; inputs whose outputs would share a name
    /// keep their folders relative to the deepest folder those inputs share.
    ///
    /// - Throws: ``ConversionPlanError`` when two inputs would still be written to the same path.
    public func plan(_ inputs: [URL]) throws -> [URL] {
        let fileName: (URL) -> String = { Self.baseName(of: $0) + "." + target.fileExtension }
        var outputs = inputs.map { input in
            (outputDirectory ?? input.deletingLastPathComponent()).appendingPathComponent(fileName(input))
        }
        if let outputDirectory {
            let groups = Dictionary(grouping: inputs.indices, by: { outputs[$0].standardizedFileURL.path })
            for (_, indices) in groups where indices.count > 1 {
                let folders = indices.map { inputs[$0].standardizedFileURL.deletingLastPathComponent().pathComponents }
                var shared = folders[0].count
                for folder in folders.dropFirst() {
                    shared = min(shared, zip(folders[0], folder).prefix { $0 == $1 }.count)
                }
                for (index, folder) in zip(indices, folders) {
                    var output = outputDirectory
                    for component in folder.dropFirst(shared) { output.appendPathComponent(component, isDirectory: true) }
                    outputs[index] = output.appendingPathComponent(fileName(inputs[index]))
                }
            }
        }
        var seen: [String: Int] = [:]
        for (index, output) in outputs.enumerated() {
            let key = output.standardizedFileURL.path
            if let first = seen[key] {
                throw ConversionPlanError(first: inputs[first].path, second: inputs[index].path, output: output.path)
            }
            seen[key] = index
        }
        return outputs
    }

    /// The inputs named by `paths`: files and packages as given; folders searched (sorted, hidden
    /// entries skipped) for packages and files in a format that can be converted. A path that does
    /// not exist is kept, so that it fails with its own result.
    public static func expand(_ paths: [String]) -> [URL] {
        var result: [URL] = []
        let fileManager = FileManager.default
        func visit(_ url: URL, explicit: Bool) {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                if explicit { result.append(url) }
                return
            }
            if !isDirectory.boolValue || isPackage(url) {
                if explicit || inputFormat(of: url) != nil { result.append(url) }
                return
            }
            let names = ((try? fileManager.contentsOfDirectory(atPath: url.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
            for name in names { visit(url.appendingPathComponent(name), explicit: false) }
        }
        for path in paths { visit(URL(fileURLWithPath: path), explicit: true) }
        return result
    }

    /// Whether `url` is a deck package (a directory with a manifest).
    static func isPackage(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.appendingPathComponent(DeckDocument.manifestName).path)
    }

    /// The format of an input, or nil when it can't be converted.
    static func inputFormat(of url: URL) -> InterchangeFormat? {
        if isPackage(url) { return .sampledeck }
        guard let format = InterchangeFormat(inferringFrom: url.path), format.isImportable || format == .zip else { return nil }
        return format
    }

    /// The name an output is given: the input's name without its extension(s).
    static func baseName(of url: URL) -> String {
        var name = url.lastPathComponent
        for suffix in [".sampledeck.zip", ".sampledeck", ".csv", ".tsv", ".txt", ".json", ".apkg", ".colpkg"]
        where name.lowercased().hasSuffix(suffix) && name.count > suffix.count {
            name.removeLast(suffix.count)
            break
        }
        return name
    }

    /// Converts every input on ``jobs`` threads, each to its output in ``plan(_:)``; `onResult` is
    /// called (from any thread, one call at a time) as each finishes, with its index. Returns the
    /// results in input order.
    ///
    /// - Throws: ``ConversionPlanError`` before anything is written when two outputs would collide.
    public func run(_ inputs: [URL], onResult: @escaping @Sendable (Int, ConversionResult) -> Void = { _, _ in })
        throws -> [ConversionResult] {
        let outputs = try plan(inputs)
        let state = RunState(count: inputs.count)
        let group = DispatchGroup()
        let workers = min(jobs, max(inputs.count, 1))
        for _ in 0..<workers {
            group.enter()
            let thread = Thread { [self] in
                while let index = state.nextIndex() {
                    let result = convert(inputs[index], to: outputs[index])
                    state.record(result, at: index, onResult: onResult)
                }
                group.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        group.wait()
        return state.finished()
    }

    /// Converts one input to `output` (by default its output when converted alone).
    public func convert(_ input: URL, to output: URL? = nil) -> ConversionResult {
        let start = Date()
        var result = ConversionResult(input: input.path, succeeded: false)
        let output = output ?? (outputDirectory ?? input.deletingLastPathComponent())
            .appendingPathComponent(Self.baseName(of: input) + "." + target.fileExtension)
        do {
            if existing == .skip, FileManager.default.fileExists(atPath: output.path) {
                result.output = output.path
                result.succeeded = true
                result.skipped = true
            } else {
                result.cards = try convertThrowing(input, to: output)
                result.output = output.path
                result.succeeded = true
            }
        } catch {
            result.error = String(describing: error)
            result.failure = (error as? InterchangeError)?.kind ?? .io
        }
        result.seconds = Date().timeIntervalSince(start)
        return result
    }

    private func convertThrowing(_ input: URL, to output: URL) throws -> Int {
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: input.path) else {
            throw InterchangeError(.missing, path: input.path, reason: "no such file")
        }
        guard let format = Self.inputFormat(of: input) else {
            throw InterchangeError(.unsupported, path: input.path, reason:
                "not a convertible input (a .sampledeck package or its .zip archive, or a .csv, .tsv, .json, .apkg or .colpkg file)")
        }
        guard format != target else {
            throw InterchangeError(.unsupported, path: input.path, reason: "is already \(target.rawValue)")
        }
        guard target.isExportable || target == .sampledeck || target == .zip else {
            throw InterchangeError(.unsupported, path: input.path, reason: "cannot convert to \(target.rawValue)")
        }
        let base = Self.baseName(of: input)
        let folder = output.deletingLastPathComponent()
        do {
            // A dangling symbolic link counts: publishing never replaces it.
            if existing != .replace, try UntrustedFile.type(atPath: output.path) != nil {
                throw InterchangeError(.cannotCreate, path: output.path, reason: "already exists")
            }
        } catch let error as FileSafetyError {
            throw InterchangeError(publishing: error)
        }
        do {
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw InterchangeError(.cannotCreate, path: folder.path, reason: "cannot create the output folder")
        }
        // What killed conversions to this output left (`.<output>.staging-<pid>-…` of a
        // process that is gone), then a staging folder of our own: removed when done and on
        // SIGINT, SIGTERM and SIGHUP (``CleanupRegistry``).
        Leftovers.sweep(besideOutput: output.path)
        let stagingDirectory: StagingDirectory
        do {
            stagingDirectory = try StagingDirectory(in: folder.path, for: output.lastPathComponent)
        } catch {
            throw InterchangeError(.cannotCreate, path: folder.path, reason: "cannot write in this folder")
        }
        defer { stagingDirectory.remove() }
        let staging = stagingDirectory.url

        // The deck to write from: the input package or archive itself (read-only), or a staged import.
        let document: DeckDocument
        var stagedPackage: URL?
        switch format {
        case .sampledeck:
            document = try DeckDocument.open(at: input, mode: .readOnly)
        case .zip:
            document = try DeckDocument.open(archive: input)
        default:
            let package = staging.appendingPathComponent(base + "." + DeckDocument.packageExtension)
            document = try DeckDocument.create(at: package, title: base)
            do {
                try DeckInterchange.importFile(at: input, format: format, into: document, adoptsTitle: true)
            } catch {
                try? document.close()
                throw error
            }
            stagedPackage = package
        }
        defer { try? document.close() }
        let cards = try document.noteCount()
        let staged = staging.appendingPathComponent(output.lastPathComponent)
        switch target {
        case .sampledeck:
            if let stagedPackage {
                try document.close()
                guard rename(stagedPackage.path, staged.path) == 0 else {
                    throw InterchangeError(.io, path: staged.path, reason: "cannot stage the deck: \(String(cString: strerror(errno)))")
                }
            } else {
                try document.copyPackage(to: staged)
                try document.close()
            }
        case .zip:
            try document.archive(to: staged, format: .zip)
        default:
            try DeckInterchange.export(document, format: target, to: staged, ankiLayout: ankiLayout)
        }
        try publish(staged, at: output, staging: staging)
        return cards
    }

    /// Moves the complete output `staged` to `output` (``Publisher``): without replacing
    /// anything there (`link(2)` for a file, `renameat2(RENAME_NOREPLACE)` for a package), so of
    /// two conversions to one output exactly one wins; or, for ``existing`` `.replace`, over the
    /// old output (a file atomically through ``OverwritePolicy/replace``; a package by moving
    /// the old one aside into `staging`, removed with it).
    private func publish(_ staged: URL, at output: URL, staging: URL) throws {
        do {
            let isDirectory = try UntrustedFile.type(atPath: staged.path) == .directory
            if existing == .replace {
                if isDirectory, try UntrustedFile.type(atPath: output.path) != nil {
                    let old = staging.appendingPathComponent("replaced", isDirectory: true)
                    guard rename(output.path, old.path) == 0 else {
                        throw InterchangeError(.io, path: output.path, reason: "cannot move the old output aside: \(String(cString: strerror(errno)))")
                    }
                    do {
                        try Publisher.publishDirectory(staged.path, at: output.path)
                    } catch {
                        _ = rename(old.path, output.path)
                        throw error
                    }
                } else if isDirectory {
                    try Publisher.publishDirectory(staged.path, at: output.path)
                } else {
                    try Publisher.publishFile(staged.path, at: output.path, policy: .replace)
                }
                return
            }
            if isDirectory {
                try Publisher.publishDirectory(staged.path, at: output.path)
            } else {
                try Publisher.publishFile(staged.path, at: output.path)
            }
        } catch let error as FileSafetyError {
            throw InterchangeError(publishing: error)
        }
    }
}

/// Two inputs of one run would be written to the same output; nothing was written.
public struct ConversionPlanError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The first input, as given.
    public var first: String
    /// The other input.
    public var second: String
    /// The output both would be written to.
    public var output: String

    public var description: String {
        "\(first) and \(second) would both be written to \(output); convert them separately or in separate --out-dir folders"
    }
}

/// The shared state of a run: the next input to take, and the results so far.
private final class RunState: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private let count: Int
    private var results: [ConversionResult?]

    init(count: Int) {
        self.count = count
        results = Array(repeating: nil, count: count)
    }

    func nextIndex() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < count else { return nil }
        next += 1
        return next - 1
    }

    func record(_ result: ConversionResult, at index: Int, onResult: (Int, ConversionResult) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        results[index] = result
        onResult(index, result)
    }

    func finished() -> [ConversionResult] {
        lock.lock()
        defer { lock.unlock() }
        return results.enumerated().map { $1 ?? ConversionResult(input: "#\($0)", succeeded: false, error: "not converted") }
    }
}
