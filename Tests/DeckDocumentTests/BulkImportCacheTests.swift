import Foundation
@testable import SQLite
import Testing
@testable import DeckDocument

/// A bulk import widens the store's page cache while it runs (``DeckDocument/importCacheKiB``)
/// and gives the connection its own setting back afterwards, whether the import succeeds or
/// fails; a connection whose cache is already larger keeps it.
@Suite struct BulkImportCacheTests {
    static func cacheSize(_ deck: DeckDocument) throws -> Int64? {
        try deck.container.withDatabase(for: Note.self) { db in try db.scalar("PRAGMA cache_size", as: Int64.self) }
    }

    static func setCacheSize(_ deck: DeckDocument, _ value: Int64) throws {
        try deck.container.withDatabase(for: Note.self) { db in try db.execute("PRAGMA cache_size = \(value)") }
    }

    struct Stop: Error {}

    @Test(arguments: [false, true])
    func theCacheIsWidenedDuringTheImportAndRestoredAfter(failing: Bool) throws {
        let playground = try Playground()
        let deck = try DeckDocument.create(at: playground.file("cache.sampledeck"), title: "Cache")
        defer { try? deck.close() }
        try Self.setCacheSize(deck, -1_000)
        var during: Int64?
        do {
            try deck.bulkImport { session in
                during = try Self.cacheSize(deck)
                try session.add(ImportedNote(kind: .basic, front: "front", back: "back"))
                if failing { throw Stop() }
            }
            #expect(!failing)
        } catch is Stop {
            #expect(failing)
        }
        #expect(during == -DeckDocument.importCacheKiB)
        #expect(try Self.cacheSize(deck) == -1_000)
        #expect(try deck.noteCount() == (failing ? 0 : 1))
    }

    @Test func aLargerCacheIsKept() throws {
        let playground = try Playground()
        let deck = try DeckDocument.create(at: playground.file("large.sampledeck"), title: "Cache")
        defer { try? deck.close() }
        let larger = -(DeckDocument.importCacheKiB * 2)
        try Self.setCacheSize(deck, larger)
        var during: Int64?
        try deck.bulkImport { _ in during = try Self.cacheSize(deck) }
        #expect(during == larger)
        #expect(try Self.cacheSize(deck) == larger)
    }
}
