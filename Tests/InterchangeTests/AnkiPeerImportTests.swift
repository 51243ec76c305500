import DeckDocument
import Foundation
import Interchange
import Testing

/// Packages current Anki builds itself (Peers/build_anki_collection.py), imported into format-v2
/// decks and checked property by property against what the builder reports of its collection.
@Suite(.tags(.interop)) struct AnkiPeerImportTests {
    /// The builder's collection has what issue 15 asks the tests to use.
    @Test func builderMakesWhatTheIssueAsks() throws {
        let (folder, truth) = try AnkiPeerCollection.built()
        for name in AnkiPeerCollection.packageNames {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), "\(name)")
        }
        #expect(truth.packages["current.apkg"]?.contains("collection.anki21b") == true)
        #expect(truth.packages["legacy2.apkg"]?.contains("collection.anki21") == true)
        #expect(truth.packages["legacy1.apkg"]?.contains("collection.anki21") == false)
        #expect(truth.noteTypes.contains { $0.originalStockKind == 6 && $0.type == 1 }, "image occlusion")
        #expect(truth.noteTypes.contains { $0.flds.count == 5 && $0.tmpls.count == 3 })
        #expect(truth.decks.contains { $0.name.components(separatedBy: "::").count == 3 && !$0.desc.isEmpty })
        #expect(truth.presets.count == 2)
        #expect(truth.fsrs)
        #expect(truth.cards.filter { $0.stability != nil }.count > 10)
        for queue in [-3, -2, -1] { #expect(truth.cards.contains { $0.queue == queue }, "queue \(queue)") }
        #expect(truth.cards.contains { $0.flags != 0 })
        #expect(truth.cards.contains { $0.odid != 0 && $0.did == truth.filteredDeckID })
        #expect(Set(truth.media.values).count < truth.media.count, "two names with equal bytes")
        #expect(truth.revlog.count > 300)
    }
}
