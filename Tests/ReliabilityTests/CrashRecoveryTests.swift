import Foundation
import Testing

/// Decks exactly as a killed writer left them open and read normally.
@Suite(.tags(.reliability))
struct CrashRecoveryTests {
    /// A deck whose writer was SIGKILLed mid-transaction: `Deck.sqlite-journal` is hot.
    static let hotJournal = DeckBinary.packageRoot.appendingPathComponent("Fixtures/reliability/hot-journal.sampledeck")

    @Test("a read-only command on a deck with a hot journal reads a private recovered copy and never writes the deck",
          arguments: [["list", "D.sampledeck"], ["check", "D.sampledeck"], ["info", "D.sampledeck"], ["info", "D.sampledeck", "--json"],
                      ["export", "D.sampledeck", "-o", "out.json", "--format", "json"], ["search", "D.sampledeck", "x"]])
    func hotJournalIsRecoveredPrivately(arguments: [String]) throws {
        let scratch = try Scratch()
        try FileManager.default.copyItem(at: Self.hotJournal, to: scratch.path("D.sampledeck"))
        let journal = scratch.path("D.sampledeck/Deck.sqlite-journal")
        #expect(FileManager.default.fileExists(atPath: journal.path))
        let store = try Data(contentsOf: scratch.path("D.sampledeck/Deck.sqlite"))
        let journalBytes = try Data(contentsOf: journal)
        let result = try DeckBinary.run(arguments, in: scratch.url)
        #expect((result.status == 0 || (arguments[0] == "search" && result.status == 1)) && !result.signaled, "\(arguments): \(result)")
        #expect(try Data(contentsOf: scratch.path("D.sampledeck/Deck.sqlite")) == store, "a reader wrote the store")
        #expect(try Data(contentsOf: journal) == journalBytes, "a reader touched the journal")
        // The next writer rolls it back in place.
        #expect(try DeckBinary.run(["add", "D.sampledeck", "--front", "f", "--back", "b"], in: scratch.url).status == 0)
        #expect(!FileManager.default.fileExists(atPath: journal.path))
        #expect(try DeckBinary.sqliteIntegrity(of: scratch.path("D.sampledeck/Deck.sqlite")) == "ok")
    }

    @Test("a writer removes the manifest temporaries a killed writer left in the package")
    func staleManifestTemporariesAreRemoved() throws {
        let scratch = try Scratch()
        #expect(try scratch.run("create", "D.sampledeck").status == 0)
        let stale = scratch.path("D.sampledeck/.manifest.json.tmp-5A1E0000-0000-0000-0000-000000000000")
        try Data("{\"partial".utf8).write(to: stale)
        #expect(try scratch.run("list", "D.sampledeck").status == 0)
        #expect(FileManager.default.fileExists(atPath: stale.path), "a reader must not touch the package")
        let added = try scratch.run("add", "D.sampledeck", "--front", "f", "--back", "b")
        #expect(added.status == 0, "\(added)")
        #expect(!FileManager.default.fileExists(atPath: stale.path))
    }
}
