import Foundation
import Testing
@testable import Archive

/// The corpus in Fixtures/archives/hostile (made by make_hostile.py): every archive is
/// refused with an error naming the entry, and nothing is written in or outside the target.
@Suite struct HostileArchiveTests {
    enum Refusal: Sendable { case unsafe, limit, malformed }

    struct Case: Sendable, CustomTestStringConvertible {
        let file: String
        let refusal: Refusal
        /// The entry the error must name (`nil`: the archive as a whole is bad).
        let entry: String?
        var testDescription: String { file }
    }

    static let deck = "Deck.sampledeck"
    static let cases: [Case] = [
        Case(file: "dotdot.zip", refusal: .unsafe, entry: "\(deck)/../../sampledeck-hostile-escape.txt"),
        Case(file: "dotdot.tar.gz", refusal: .unsafe, entry: "\(deck)/../../sampledeck-hostile-escape.txt"),
        // libarchive turns a zip name's backslashes into slashes, so this one is a '..' escape.
        Case(file: "backslash.zip", refusal: .unsafe, entry: "\(deck)/../../evil.txt"),
        Case(file: "absolute.zip", refusal: .unsafe, entry: "/tmp/sampledeck-hostile-absolute.txt"),
        Case(file: "absolute.tar.gz", refusal: .unsafe, entry: "/tmp/sampledeck-hostile-absolute.txt"),
        Case(file: "symlink.zip", refusal: .unsafe, entry: "\(deck)/Media"),
        Case(file: "symlink.tar.gz", refusal: .unsafe, entry: "\(deck)/Media"),
        Case(file: "hardlink.tar.gz", refusal: .unsafe, entry: "\(deck)/passwd"),
        Case(file: "chardev.zip", refusal: .unsafe, entry: "\(deck)/null"),
        Case(file: "chardev.tar.gz", refusal: .unsafe, entry: "\(deck)/null"),
        Case(file: "fifo.tar.gz", refusal: .unsafe, entry: "\(deck)/pipe"),
        Case(file: "duplicate.zip", refusal: .unsafe, entry: "\(deck)/manifest.json"),
        Case(file: "duplicate.tar.gz", refusal: .unsafe, entry: "\(deck)/manifest.json"),
        Case(file: "file-as-directory.zip", refusal: .unsafe, entry: "\(deck)/manifest.json/inner.txt"),
        Case(file: "file-as-directory.tar.gz", refusal: .unsafe, entry: "\(deck)/manifest.json/inner.txt"),
        Case(file: "two-top-level.zip", refusal: .unsafe, entry: "B.sampledeck/manifest.json"),
        Case(file: "two-top-level.tar.gz", refusal: .unsafe, entry: "B.sampledeck/manifest.json"),
        Case(file: "outside-top-level.zip", refusal: .unsafe, entry: "README.txt"),
        Case(file: "outside-top-level.tar.gz", refusal: .unsafe, entry: "README.txt"),
        Case(file: "not-a-deck-top-level.zip", refusal: .unsafe, entry: "Documents/manifest.json"),
        Case(file: "top-level-file.tar.gz", refusal: .unsafe, entry: deck),
        // The name as the reader repairs it (U+FFFD for each bad byte): refused, never written.
        Case(file: "non-utf8-name.tar.gz", refusal: .unsafe, entry: "\(deck)/\u{FFFD}\u{FFFD}.txt"),
        Case(file: "too-many-entries.zip", refusal: .limit, entry: "\(deck)/Media/0099.txt"),
        Case(file: "too-many-entries.tar.gz", refusal: .limit, entry: "\(deck)/Media/0099.txt"),
        Case(file: "bomb.zip", refusal: .limit, entry: "\(deck)/store.sqlite"),
        Case(file: "bomb.tar.xz", refusal: .limit, entry: "\(deck)/store.sqlite"),
        Case(file: "size-lies.zip", refusal: .malformed, entry: "\(deck)/store.sqlite"),
        Case(file: "truncated.zip", refusal: .malformed, entry: nil),
        Case(file: "truncated.tar.gz", refusal: .malformed, entry: nil),
        Case(file: "not-an-archive.zip", refusal: .malformed, entry: nil),
        Case(file: "not-an-archive.tar.gz", refusal: .malformed, entry: nil),
    ]

    /// Small limits, so the tests stay fast: what `deck unarchive` does with larger numbers.
    static let limits = ArchiveLimits(
        maxEntries: 100, maxEntrySize: 8 << 20, maxTotalSize: 16 << 20,
        maxExpansionRatio: 50, expansionRatioThreshold: 1 << 20)

    static var corpus: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/archives/hostile")
    }

    /// Every file below `root`, with its size (directories marked), sorted.
    private func snapshot(_ root: URL) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var result: [String] = []
        while let name = walker.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(name).path)
            result.append("\(name) \(attributes[.type] ?? "") \(attributes[.size] ?? "")")
        }
        return result.sorted()
    }

    @Test(arguments: cases, [ArchiveExtractor.Backend.automatic, .descriptor])
    func isRefusedWithoutWritingAnything(_ hostile: Case, backend: ArchiveExtractor.Backend) throws {
        let parent = try TemporaryDirectory()
        let target = try parent.makeDirectory("target")
        try parent.write("sibling.txt", Data("keep".utf8))
        let before = try snapshot(parent.url)
        let absoluteVictim = "/tmp/sampledeck-hostile-absolute.txt"
        #expect(!FileManager.default.fileExists(atPath: absoluteVictim))

        let archive = Self.corpus.appendingPathComponent(hostile.file)
        do {
            let created = try ArchiveExtractor.extract(
                archive, into: target, limits: Self.limits, topLevel: .single { $0.hasSuffix(".sampledeck") },
                allow: nil, backend: backend)
            Issue.record("\(hostile.file) was extracted: \(created)")
        } catch let error as ArchiveError {
            switch (hostile.refusal, error.kind) {
            case (.unsafe, .unsafeEntry(let name)): #expect(name == hostile.entry, "\(error)")
            case (.limit, .limitExceeded), (.malformed, .malformed): break
            default: Issue.record("\(hostile.file): expected \(hostile.refusal), got \(error)")
            }
            if let entry = hostile.entry { #expect(error.entry == entry, "\(error)") }
            #expect(error.path == archive.path)
            #expect(!error.reason.isEmpty)
        }
        #expect(try snapshot(parent.url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == [])
        #expect(!FileManager.default.fileExists(atPath: absoluteVictim))
    }

    @Test func everyCorpusFileHasAnExpectation() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).sorted()
        #expect(files == Self.cases.map(\.file).sorted())
    }

    /// The reader alone (as `deck info` uses it) reports the same damage without crashing.
    @Test(arguments: cases)
    func readerNeverCrashes(_ hostile: Case) throws {
        do {
            let reader = try ArchiveReader(url: Self.corpus.appendingPathComponent(hostile.file), limits: Self.limits)
            while let entry = try reader.nextEntry() {
                if entry.type == .file { _ = try reader.readData() }
            }
        } catch is ArchiveError {
            // Expected for most; link and name problems are the extractor's to refuse.
        }
    }
}
