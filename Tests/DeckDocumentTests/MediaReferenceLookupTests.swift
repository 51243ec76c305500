import Digest
import Foundation
import Persistence
import Testing
@testable import DeckDocument

/// `addMedia` stores one file per content and one row per name, whether the rows are pending,
/// saved, or gone with a rollback.
@Suite struct MediaReferenceLookupTests {
    static func rows(_ deck: DeckDocument) throws -> (files: Int, names: Int) {
        try deck.container.withDatabase(for: Note.self) { db in
            (try db.scalar("SELECT count(*) FROM MediaFile", as: Int.self) ?? -1,
             try db.scalar("SELECT count(*) FROM MediaName", as: Int.self) ?? -1)
        }
    }

    @Test func oneFilePerContentAndOneRowPerNameInEveryState() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        let bytes = Data("the same picture".utf8)

        // Pending: the second add of the same bytes shares the file under its own name.
        let first = try deck.addMedia(bytes, originalName: "cat.png")
        let other = try deck.addMedia(bytes, originalName: "other-name.png")
        #expect(other.fileName == first.fileName && other.originalName == "other-name.png")

        // Saved: the same name again adds nothing.
        try deck.save()
        #expect(try deck.addMedia(bytes, originalName: "cat.png") == first)
        #expect(try Self.rows(deck) == (1, 2))

        // Rolled back: a pending row that is gone is made again.
        let gone = try deck.addMedia(Data("another".utf8), originalName: "dog.png")
        deck.discardChanges()
        #expect(!FileManager.default.fileExists(atPath: deck.fileURL(of: gone).path))
        let again = try deck.addMedia(Data("another".utf8), originalName: "dog.png")
        #expect(FileManager.default.fileExists(atPath: deck.fileURL(of: again).path))
        try deck.save()
        #expect(try Self.rows(deck) == (2, 3))

        // A name already used for other bytes is not taken: the new bytes go by their file name.
        let clash = try deck.addMedia(Data("a different cat".utf8), originalName: "cat.png")
        #expect(clash.originalName == clash.fileName)
        try deck.save()
        #expect(try Self.rows(deck) == (3, 4))
        #expect(deck.check().filter { $0.severity == .error }.isEmpty, "\(deck.check())")
    }

    @Test func manyFilesAreAddedWithoutRescanningThePendingOnes() throws {
        let playground = try Playground()
        let deck = try DeckDocument.open(at: try playground.sampleDeck())
        defer { try? deck.close() }
        // Each new file is looked up among the document's own rows by name and among the saved
        // ones by one indexed fetch that skips pending inserts: no work per pending insert.
        for index in 0..<300 {
            _ = try deck.addMedia(Data("file \(index)".utf8), originalName: "f\(index).png")
        }
        #expect(deck.mediaByFileName.count == 300)
        #expect(deck.mediaNames.count == 300)
        try deck.save()
        #expect(try Self.rows(deck) == (300, 300))
    }
}
