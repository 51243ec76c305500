import Anki
import DeckDocument
import Foundation
import Testing
@testable import Interchange

/// Issue 15's "done when" for Anki: for packages current Anki builds itself (Peers/
/// build_anki_collection.py), `deck import` → `deck export` → Anki's import keeps every property
/// at least as well as Anki's own import of the original package.
///
/// For a legacy `.apkg` (collection.anki21), a current one (collection.anki21b) and a `.colpkg`:
/// (A) the package imported into a fresh collection by Anki; (B) the package imported into a new
/// deck here, exported in the same layout and that imported by Anki. Both collections are dumped
/// property by property (Peers/anki_roundtrip.py, one python3 process for every collection) and
/// B must equal A everywhere, but for the exceptions listed in ``exceptions`` with their reasons.
/// Re-exporting the unchanged deck gives the same GUIDs and ids: Anki importing both exports
/// adds nothing the second time and ends as after the first.
@Suite(.tags(.interop)) struct AnkiRoundTripTests {
    struct Job: Encodable { let name: String, kind: String, packages: [String] }
    struct Jobs: Encodable { let jobs: [Job] }

    /// A package of the builder, and the layout it is exported in again.
    struct Case: Sendable {
        let name: String, package: String, kind: String
        let format: AnkiPackageWriter.Options.Format
    }
    static let cases = [
        Case(name: "legacy", package: "legacy2.apkg", kind: "apkg", format: .anki21),
        Case(name: "current", package: "current.apkg", kind: "apkg", format: .anki21b),
        Case(name: "colpkg", package: "full.colpkg", kind: "colpkg", format: .currentCollectionPackage),
    ]

    /// A difference Anki itself makes between two imports, so B can't match A there.
    struct Exception: Sendable {
        /// `/`-separated path; `*` matches one part.
        let pattern: String
        let reason: String
        /// Whether the two values are acceptable (they are what the reason says); `bDump` is all of B.
        let accepts: @Sendable (_ a: Any?, _ b: Any?, _ bDump: [String: Any]) -> Bool
    }

    /// Every place B may differ from A, and why. Times Anki stamps on what it adds must both be
    /// of this run (not kept from a package); nothing else may differ.
    static func exceptions(since start: Int64) -> [Exception] {
        let stampedNow: @Sendable (Any?, Any?, [String: Any]) -> Bool = { a, b, _ in
            guard let a = (a as? NSNumber)?.int64Value, let b = (b as? NSNumber)?.int64Value else { return false }
            return a >= start && b >= start
        }
        return [
            Exception(pattern: "decks/*/mod",
                      reason: "Anki gives a deck it adds or updates on import the time of the import (A and B are imported at different moments)",
                      accepts: stampedNow),
            Exception(pattern: "noteTypes/*/mod",
                      reason: "Anki gives a note type it adds on import the time of the import (it records the source id in it)",
                      accepts: stampedNow),
            Exception(pattern: "noteTypes/*",
                      reason: """
                          a .colpkg is the whole deck: a deck made here starts with the stock note types Basic, Basic (and reversed \
                          card) and Cloze, as a new Anki collection does; unused by the notes imported, they are in B only \
                          (renamed with '_', as Anki renames a second type of a name)
                          """,
                      accepts: { a, b, dump in
                          guard a == nil, let type = b as? [String: Any], let id = type["id"] as? NSNumber,
                                let stock = type["originalStockKind"] as? NSNumber, (1...5).contains(stock.intValue) else { return false }
                          let notes = dump["notes"] as? [String: [String: Any]] ?? [:]
                          return !notes.values.contains { ($0["mid"] as? NSNumber) == id }
                      }),
        ]
    }

    @Test func importExportImportKeepsWhatAnkiKeeps() throws {
        let start = Int64(Date().timeIntervalSince1970) - 1
        let (folder, _) = try AnkiPeerCollection.built()
        let scratch = try Scratch()
        var jobs: [Job] = []
        var exports: [String: (first: URL, second: URL)] = [:]
        for item in Self.cases {
            let package = folder.appendingPathComponent(item.package)
            let deck = try scratch.deck("\(item.name).sampledeck")
            try AnkiImporter().importPackage(at: package, into: deck)
            let ext = item.kind == "colpkg" ? "colpkg" : "apkg"
            let first = scratch.file("\(item.name)-1.\(ext)"), second = scratch.file("\(item.name)-2.\(ext)")
            try AnkiExporter(options: .init(format: item.format)).export(deck, to: first)
            try AnkiExporter(options: .init(format: item.format)).export(deck, to: second)
            exports[item.name] = (first, second)
            jobs.append(Job(name: "A-\(item.name)", kind: item.kind, packages: [package.path]))
            jobs.append(Job(name: "B-\(item.name)", kind: item.kind, packages: [first.path]))
            if item.kind == "apkg" {
                jobs.append(Job(name: "BB-\(item.name)", kind: item.kind, packages: [first.path, second.path]))
            }
        }
        let results = try Self.runAnki(jobs, in: scratch)
        let exceptions = Self.exceptions(since: start)
        for item in Self.cases {
            let a = try #require(results["A-\(item.name)"] as? [String: Any], "A-\(item.name)")
            let b = try #require(results["B-\(item.name)"] as? [String: Any], "B-\(item.name)")
            let differences = Self.differences(dump(a), dump(b), exceptions: exceptions)
            for difference in differences.prefix(60) { Issue.record("\(item.name): \(difference)") }
            if let folder = ProcessInfo.processInfo.environment["ROUNDTRIP_DIFFS"] {
                try differences.joined(separator: "\n").write(toFile: "\(folder)/\(item.name).txt", atomically: true, encoding: .utf8)
            }
            #expect(differences.isEmpty, "\(item.name): \(differences.count) differences between Anki's import and the round trip")
            // The dump is not empty: the comparison compared something.
            let notes = (dump(a)["notes"] as? [String: Any])?.count ?? 0
            let revlog = (dump(a)["revlog"] as? [String: Any])?.count ?? 0
            #expect(notes > 20 && revlog > 300, "\(item.name): A holds \(notes) notes, \(revlog) reviews")
            if item.kind == "apkg" {
                let twice = try #require(results["BB-\(item.name)"] as? [String: Any])
                let logs = twice["logs"] as? [[String: Int]] ?? []
                #expect(logs.count == 2 && logs.last?["new"] == 0 && logs.last?["updated"] == 0,
                        "\(item.name): importing the unchanged re-export again: \(logs)")
                #expect(logs.last?["duplicate"] == notes, "\(item.name): every note recognised as already there: \(logs)")
                let again = Self.differences(dump(b), dump(twice), exceptions: exceptions)
                #expect(again.isEmpty, "\(item.name): the second import changed \(again.prefix(10))")
            }
            // The two exports of the unchanged deck carry the same GUIDs and ids.
            let (first, second) = try #require(exports[item.name])
            #expect(try Self.identities(first) == Self.identities(second), "\(item.name): the re-export has other GUIDs or ids")
        }
    }

    func dump(_ result: [String: Any]) -> [String: Any] { result["dump"] as? [String: Any] ?? [:] }

    /// Note GUID → id, card ids, note type and deck ids of a package.
    static func identities(_ url: URL) throws -> [String] {
        let reader = try AnkiPackageReader(url: url)
        defer { reader.close() }
        var lines: [String] = []
        try reader.forEachNote { lines.append("note \($0.guid) \($0.id)") }
        try reader.forEachCard { lines.append("card \($0.id) \($0.noteID) \($0.ordinal)") }
        lines += reader.noteTypes.map { "type \($0.id)" } + reader.decks.map { "deck \($0.id) \($0.name)" }
        return lines.sorted()
    }

    static func runAnki(_ jobs: [Job], in scratch: Scratch) throws -> [String: Any] {
        let input = scratch.file("jobs.json"), output = scratch.file("out.json")
        try JSONEncoder().encode(Jobs(jobs: jobs)).write(to: input)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/anki_roundtrip.py")
        let result = try runProgram("/usr/bin/env", ["python3", script.path, input.path, output.path])
        try #require(result.status == 0, "anki_roundtrip.py failed: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any])
    }

    /// Every path where `b` differs from `a`, but where an exception accepts the values.
    static func differences(_ a: [String: Any], _ b: [String: Any], exceptions: [Exception]) -> [String] {
        var found: [String] = []
        compare(a, b, path: [], exceptions: exceptions, whole: b, into: &found)
        return found
    }

    private static func compare(_ a: Any?, _ b: Any?, path: [String], exceptions: [Exception], whole: [String: Any],
                                into found: inout [String]) {
        if let a = a as? [String: Any], let b = b as? [String: Any] {
            for key in Set(a.keys).union(b.keys).sorted() {
                compare(a[key], b[key], path: path + [key], exceptions: exceptions, whole: whole, into: &found)
            }
            return
        }
        if let a = a as? [Any], let b = b as? [Any], a.count == b.count {
            for index in a.indices {
                compare(a[index], b[index], path: path + [String(index)], exceptions: exceptions, whole: whole, into: &found)
            }
            return
        }
        guard !same(a, b) else { return }
        if exceptions.contains(where: { matches($0.pattern, path) && $0.accepts(a, b, whole) }) { return }
        found.append("\(path.joined(separator: "/")): Anki's import has \(describe(a)), the round trip \(describe(b))")
    }

    private static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case let (a as String, b as String): return a == b
        case let (a as NSNumber, b as NSNumber): return a == b
        case (is NSNull, is NSNull): return true
        case let (a as [Any], b as [Any]): return a.isEmpty && b.isEmpty
        default: return false
        }
    }

    private static func matches(_ pattern: String, _ path: [String]) -> Bool {
        let parts = pattern.split(separator: "/").map(String.init)
        return parts.count == path.count && zip(parts, path).allSatisfy { $0 == "*" || $0 == $1 }
    }

    private static func describe(_ value: Any?) -> String {
        guard let value else { return "nothing" }
        if let text = value as? String { return "\"\(text.prefix(120))\"" }
        if JSONSerialization.isValidJSONObject(value),
           let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) {
            return String(decoding: data.prefix(200), as: UTF8.self)
        }
        return "\(value)"
    }
}
