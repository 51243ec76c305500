import DeckDocument
import Foundation

/// The outcome of converting one input.
public struct ConversionResult: Sendable, Hashable, Codable {
    /// The input as given (or as found in a folder).
    public var input: String
    /// The file or package written, when the conversion succeeded.
    public var output: String?
    /// Whether it succeeded.
    public var succeeded: Bool
    /// What went wrong (`path: reason`), when it failed.
    public var error: String?
    /// Cards converted.
    public var cards: Int
    /// Wall-clock seconds spent.
    public var seconds: Double

    /// Creates a result.
    public init(input: String, output: String? = nil, succeeded: Bool, error: String? = nil, cards: Int = 0, seconds: Double = 0) {
        self.input = input
        self.output = output
        self.succeeded = succeeded
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
/// under a temporary name and renamed when complete; an existing output is never replaced;
/// inputs are only read. A failed input does not stop the others.
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
    /// For JSON outputs: embed media bytes.
    public var embedsMedia: Bool

    /// Creates a converter.
    public init(target: InterchangeFormat, outputDirectory: URL? = nil, jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                embedsMedia: Bool = false) {
        self.target = target
        self.outputDirectory = outputDirectory
        self.jobs = max(1, jobs)
        self.embedsMedia = embedsMedia
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

    /// Converts every input on ``jobs`` threads; `onResult` is called (from any thread, one
    /// call at a time) as each finishes, with its index. Returns the results in input order.
    public func run(_ inputs: [URL], onResult: @escaping @Sendable (Int, ConversionResult) -> Void = { _, _ in }) -> [ConversionResult] {
        let state = RunState(count: inputs.count)
        let group = DispatchGroup()
        let workers = min(jobs, max(inputs.count, 1))
        for _ in 0..<workers {
            group.enter()
            let thread = Thread { [self] in
                while let index = state.nextIndex() {
                    let result = convert(inputs[index])
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

    /// Converts one input.
    public func convert(_ input: URL) -> ConversionResult {
        let start = Date()
        var result = ConversionResult(input: input.path, succeeded: false)
        do {
            let (output, cards) = try convertThrowing(input)
            result.output = output.path
            result.cards = cards
            result.succeeded = true
        } catch {
            result.error = String(describing: error)
        }
        result.seconds = Date().timeIntervalSince(start)
        return result
    }

    private func convertThrowing(_ input: URL) throws -> (URL, Int) {
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
        let folder = outputDirectory ?? input.deletingLastPathComponent()
        let output = folder.appendingPathComponent(base + "." + target.fileExtension)
        if fileManager.fileExists(atPath: output.path) {
            throw InterchangeError(.cannotCreate, path: output.path, reason: "already exists")
        }
        let staging = folder.appendingPathComponent(".\(base).converting-\(UUID().uuidString)", isDirectory: true)
        do {
            try fileManager.createDirectory(at: staging, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw InterchangeError(.cannotCreate, path: folder.path, reason: "cannot write in this folder")
        }
        defer { try? fileManager.removeItem(at: staging) }

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
        let cards = try document.cardCount()
        switch target {
        case .sampledeck:
            let package: URL
            if let stagedPackage {
                package = stagedPackage
            } else {
                package = staging.appendingPathComponent(base + "." + DeckDocument.packageExtension)
                try document.copyPackage(to: package)
            }
            try document.close()
            guard rename(package.path, output.path) == 0 else {
                throw InterchangeError(errno == EEXIST || errno == ENOTEMPTY ? .cannotCreate : .io, path: output.path,
                                       reason: "cannot move the deck into place: \(String(cString: strerror(errno)))")
            }
        case .zip:
            try document.archive(to: output, format: .zip)
        default:
            try DeckInterchange.export(document, format: target, to: output, embedsMedia: embedsMedia)
        }
        return (output, cards)
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
