import Foundation
import Testing

/// Every input of `Fixtures/malformed/cases.tsv` against the built `deck`: the expected exit
/// status and message, never a crash (a signal or a status ≥ 128), and nothing written
/// outside the target: a failed command leaves every file as it was; a command that
/// succeeds changes only its target, which then passes `deck check` and `sqlite3`.
@Suite(.tags(.reliability))
struct MalformedInputTests {
    @Test("cases.tsv lists at least 60 cases and every file of the corpus")
    func corpusIsListed() throws {
        #expect(MalformedCase.all.count >= 60)
        let listed = Set(MalformedCase.all.map(\.input))
        let root = MalformedCase.corpus
        let files = (FileManager.default.subpaths(atPath: root.path) ?? []).filter { path in
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory)
            return !isDirectory.boolValue && path != "cases.tsv" && path != "make_malformed.py" && !path.hasSuffix(".md")
        }
        #expect(!files.isEmpty)
        for file in files.sorted() {
            #expect(listed.contains(file), "\(file) is in the corpus but not in cases.tsv")
        }
        #expect(MalformedCase.all.filter { $0.status < 0 }.isEmpty, "unparsable lines in cases.tsv")
    }

    @Test("a malformed input gives its exit status and message, never a crash, and writes nothing outside its target",
          arguments: MalformedCase.all)
    func malformedInput(_ testCase: MalformedCase) throws {
        var workspace = try CaseWorkspace()
        let (arguments, asNobody) = try workspace.prepare(testCase)
        let before = workspace.snapshot()
        let writesDeck = testCase.command.contains("$DECK")
        let cardsBefore = writesDeck ? try DeckState.cards(of: "T.sampledeck", in: workspace.work) : [:]
        let run = try DeckBinary.run(arguments, in: workspace.work,
                                     launcher: asNobody ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [])
        if ProcessInfo.processInfo.environment["MALFORMED_PRINT"] != nil {
            print("CASE\t\(testCase.name)\t\(run.signaled ? "signal " : "")\(run.status)\t\(run.stderr.trimmingCharacters(in: .whitespacesAndNewlines).prefix(300))")
        }
        #expect(!run.signaled && run.status < 128, "\(testCase.name) crashed: \(run)")
        if !workspace.relaxed {
            #expect(run.status == testCase.status, "\(testCase.name): expected exit \(testCase.status), got \(run)")
            #expect(testCase.message.isEmpty || run.stderr.localizedCaseInsensitiveContains(testCase.message),
                    "\(testCase.name): message lacks \"\(testCase.message)\": \(run.stderr)")
        }
        if run.status != 0 {
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("deck: error: ") || $0.hasPrefix("Error: ") }, "\(testCase.name): no error line: \(run.stderr)")
        }
        // Nothing changes on a failure; a success changes only the deck written to, which stays sound.
        let after = workspace.snapshot()
        // SQLite's own sidecars are exempt: a reader may create `-shm`, and roll back or discard a `-journal`/`-wal`.
        let changed = Set(before.keys).union(after.keys).filter { path in
            before[path] != after[path] && !path.hasSuffix("-shm")
                && !((path.hasSuffix("-journal") || path.hasSuffix("-wal")) && after[path] == nil)
        }.sorted()
        let target = writesDeck && run.status == 0 ? "a/b/work/T.sampledeck" : nil
        // A failed write may leave the store's bytes different (its header counts opens for
        // writing) but not its cards: compared below.
        let store = writesDeck && run.status != 0 ? "a/b/work/T.sampledeck/Deck.sqlite" : nil
        let outside = changed.filter { path in path != store && (target.map { !path.hasPrefix($0) } ?? true) }
        #expect(outside.isEmpty, "\(testCase.name) (exit \(run.status)) changed files outside its target: \(outside.prefix(8))")
        if store != nil {
            #expect(try DeckState.cards(of: "T.sampledeck", in: workspace.work) == cardsBefore, "\(testCase.name): a failed write changed the deck's cards")
            #expect(try DeckState.problems(of: "T.sampledeck", in: workspace.work).isEmpty)
        }
        if let target, !changed.isEmpty {
            let problems = try DeckState.problems(of: "T.sampledeck", in: workspace.work)
            #expect(problems.isEmpty, "\(testCase.name): \(target) after a successful write: \(problems)")
        }
    }
}
