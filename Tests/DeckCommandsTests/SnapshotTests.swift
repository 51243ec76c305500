import Foundation
import Testing

/// The main commands' outputs compared with files in `Fixtures/snapshots/deck/`.
///
/// Re-record after an intended change with `DECK_RECORD_SNAPSHOTS=1 swift test --filter SnapshotTests`
/// and review the diff. Identifiers that change from run to run (document ids, dates, paths)
/// are replaced by placeholders before comparing.
@Suite struct SnapshotTests {
    static let directory = DeckProcess.packageRoot.appendingPathComponent("Fixtures/snapshots/deck")
    static let recording = ProcessInfo.processInfo.environment["DECK_RECORD_SNAPSHOTS"] != nil

    /// Each case: a snapshot name and the command run on a fresh French deck.
    static let cases: [(String, [String])] = [
        ("list-table", ["list", "French.sampledeck", "--limit", "8"]),
        ("list-table-narrow", ["list", "French.sampledeck", "--where", "tag = phrases or tag = reflexive", "COLUMNS=40"]),
        ("list-tsv-sorted", ["list", "French.sampledeck", "--sort", "back:desc", "--limit", "5", "--format", "tsv"]),
        ("list-json", ["list", "French.sampledeck", "--where", "front starts with \"re\"", "--format", "json"]),
        ("search-table", ["search", "French.sampledeck", "to know"]),
        ("search-tsv-accents", ["search", "French.sampledeck", "ECRIRE", "--format", "tsv"]),
        ("info-text", ["info", "French.sampledeck"]),
        ("info-json", ["info", "French.sampledeck", "--json"]),
        ("info-archive", ["info", "French.sampledeck.zip"]),
        ("check", ["check", "French.sampledeck"]),
        ("check-json", ["check", "French.sampledeck", "--json"]),
        ("add-json", ["add", "French.sampledeck", "--front", "chat", "--back", "cat", "--tag", "animals", "--json"]),
        ("edit", ["edit", "French.sampledeck", "3", "--back", "to go (away)", "--tag", "+motion"]),
        ("rm-where", ["rm", "French.sampledeck", "--where", "tag = ir", "--yes"]),
        ("rm-where-dry-run", ["rm", "French.sampledeck", "--where", "tag = ir", "--dry-run"]),
        ("edit-where-dry-run", ["edit", "French.sampledeck", "--where", "tag = modal", "--back", "?", "--tag", "+aux", "--deck", "French::Modal", "--dry-run"]),
        ("decks-tree", ["decks", "French.sampledeck"]),
        ("tags-list", ["tags", "French.sampledeck"]),
        ("notetypes-show", ["notetypes", "show", "French.sampledeck", "Basic (and reversed card)"]),
        ("usage-error", ["lsit", "French.sampledeck"]),
        ("usage-option-typo", ["list", "French.sampledeck", "--formt", "json"]),
        ("missing-deck", ["list", "Nope.sampledeck"]),
        ("help", ["--help"]),
        ("import-help", ["import", "--help"]),
        ("open-script", ["open", "French.sampledeck", "STDIN=add chien dog +animals\nedit 44 +pets\nlist tag = animals\nundo\nlist id > 43\n"]),
    ]

    @Test(arguments: cases.map(\.0))
    func output(_ name: String) throws {
        let arguments = try #require(Self.cases.first { $0.0 == name }?.1)
        let play = try Playground()
        try play.frenchDeck()
        #expect(try play.run("archive", "French.sampledeck", "--quiet").status == 0)
        var columns = 80
        var stdin: String?
        var commandLine: [String] = []
        for argument in arguments {
            if argument.hasPrefix("COLUMNS=") { columns = Int(argument.dropFirst(8)) ?? 80 }
            else if argument.hasPrefix("STDIN=") { stdin = String(argument.dropFirst(6)) }
            else { commandLine.append(argument) }
        }
        let result = try DeckProcess.run(commandLine, in: play.url, stdin: stdin, columns: columns)
        let actual = Self.normalise("$ deck \(commandLine.joined(separator: " "))\n"
            + "status: \(result.status)\n--- stdout\n\(result.stdout)--- stderr\n\(result.stderr)")
        let file = Self.directory.appendingPathComponent(name + ".txt")
        if Self.recording {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: file)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(actual == expected, "\(name): re-record with DECK_RECORD_SNAPSHOTS=1 if the change is intended")
    }

    @Test func everySnapshotFileHasACase() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { $0.hasSuffix(".txt") }
        #expect(Set(files) == Set(Self.cases.map { $0.0 + ".txt" }))
    }

    /// Replaces what differs between runs: UUIDs, ISO 8601 dates, temporary paths.
    static func normalise(_ text: String) -> String {
        var result = text
        let patterns = [
            ("[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}", "<uuid>"),
            ("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z", "<date>"),
        ]
        for (pattern, replacement) in patterns {
            result = result.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return result
    }
}
