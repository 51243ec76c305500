import Digest
import Foundation
import Persistence
import Testing
@testable import DeckDocument

/// `addMedia` hands out one reference per file content, whether that reference is pending,
/// saved, inserted by other code, or gone with a rollback.
@Suite struct MediaReferenceLookupTests {
    static func mediaRows(_ deck: DeckDocument) throws -> Int {
        try deck.container.withDatabase(for: MediaReference.self) { db in
            try db.scalar("SELECT count(*) FROM MediaReference", as: Int.self) ?? -1
        }
    }

    @Test func oneReferencePerContentInEveryState() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        let bytes = Data("the same picture".utf8)

        // Pending: the second add returns the first reference.
        let first = try deck.addMedia(bytes, originalName: "cat.png")
        #expect(try deck.addMedia(bytes, originalName: "other-name.png") === first)

        // Saved: still the same one, found without a pending insert to match.
        try deck.save()
        #expect(try deck.addMedia(bytes, originalName: "cat.png") === first)
        #expect(try Self.mediaRows(deck) == 1)

        // Rolled back: a pending reference that is gone is not handed out again.
        let gone = try deck.addMedia(Data("another".utf8), originalName: "dog.png")
        deck.mainContext.rollback()
        let again = try deck.addMedia(Data("another".utf8), originalName: "dog.png")
        #expect(again !== gone)
        #expect(again.modelContext === deck.mainContext)

        // Inserted by other code: found among the pending inserts, not duplicated.
        let foreign = MediaReference(fileName: "\(SHA256.hex(Data("by hand".utf8))).png", originalName: "hand.png",
                                     sha256: SHA256.hex(Data("by hand".utf8)), mime: "image/png", size: 7)
        deck.mainContext.insert(foreign)
        #expect(try deck.addMedia(Data("by hand".utf8), originalName: "hand.png") === foreign)
        try deck.save()
        #expect(try Self.mediaRows(deck) == 3)
    }

    @Test func manyFilesAreAddedInLinearTime() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        // Each add of a new file used to fetch through the context, which evaluated the
        // predicate against every pending reference: n² evaluations. Count the work instead of
        // timing it: a new file costs one fetch and no predicate evaluation per pending insert.
        for index in 0..<300 {
            _ = try deck.addMedia(Data("file \(index)".utf8), originalName: "f\(index).png")
        }
        #expect(deck.mediaByFileName.count == 300)
        #expect(deck.pendingMediaScan.count == deck.mainContext.insertedModelsArray.count,
                "the scan of pending inserts kept up with the document's own inserts")
        try deck.save()
        #expect(try Self.mediaRows(deck) == 300)
    }
}
