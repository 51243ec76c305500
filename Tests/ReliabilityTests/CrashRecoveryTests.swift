import Foundation
import Testing

/// Decks exactly as a killed writer left them open and read normally.
@Suite(.tags(.reliability))
struct CrashRecoveryTests {
    /// A deck whose writer was SIGKILLed mid-transaction: `Deck.sqlite-journal` is hot.
    static let hotJournal = DeckBinary.packageRoot.appendingPathComponent("Fixtures/reliability/hot-journal.sampledeck")

    @Test("a read-only command on a deck with a hot journal rolls it back and reads the deck",
          arguments: [["list", "D.sampledeck"], ["check", "D.sampledeck"], ["info", "D.sampledeck"], ["info", "D.sampledeck", "--json"]])
    func hotJournalIsRecovered(arguments: [String]) throws {
        let scratch = try Scratch()
        try FileManager.default.copyItem(at: Self.hotJournal, to: scratch.path("D.sampledeck"))
        #expect(FileManager.default.fileExists(atPath: scratch.path("D.sampledeck/Deck.sqlite-journal").path))
        let result = try DeckBinary.run(arguments, in: scratch.url)
        #expect(result.status == 0 && !result.signaled, "\(arguments): \(result)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("D.sampledeck/Deck.sqlite-journal").path))
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
