import Foundation
import Testing
@testable import DeckDocument

/// A deck on a read-only file system (a read-only bind mount: the tests run as root, which
/// ignores permission bits, so only a read-only mount shows what a user without write access sees).
@Suite struct ReadOnlyFileSystemTests {
    @Test func readOnlyOpeningWorksOnAReadOnlyMountAndWritingIsRefused() throws {
        let play = try Playground()
        let source = play.file("source")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        let deckName = "French.sampledeck"
        let url = try play.sampleDeck("source/\(deckName)")
        #expect(FileManager.default.fileExists(atPath: url.path))
        let mountPoint = play.file("mounted")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        #expect(try run("/bin/mount", ["--bind", source.path, mountPoint.path]).status == 0)
        defer { _ = try? run("/bin/umount", [mountPoint.path]) }
        #expect(try run("/bin/mount", ["-o", "remount,bind,ro", mountPoint.path]).status == 0)
        let mounted = mountPoint.appendingPathComponent(deckName)
        #expect(!FileManager.default.createFile(atPath: mountPoint.appendingPathComponent("probe").path, contents: Data()),
                "the mount is read-only")

        let before = try snapshot(of: source)
        let deck = try DeckDocument.open(at: mounted, mode: .readOnly)
        #expect(try deck.noteCount() == 3)
        #expect(try deck.search("cafe", limit: nil).map(\.front) == ["Café"])
        #expect(deck.check().allSatisfy { $0.severity != .error })
        try deck.close()
        #expect(throws: DeckError.self) { try DeckDocument.open(at: mounted, mode: .readWrite) }
        #expect(try snapshot(of: source) == before, "nothing was written")
    }
}
