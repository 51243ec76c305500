import Foundation
import Testing
@testable import Archive

/// A pinned file is read in place, released right after its entry, and copied aside (the rest
/// of it, from where the archiver has got to) when its holder must let go: the archive holds
/// the bytes it had when archiving started, the same bytes as without a pin.
@Suite struct PinnedFileTests {
    /// The pinned file: two and a half chunks, so it is asked before chunks 1, 2, 3 and at the end.
    private static let pinnedSize = LibArchive.chunkSize * 5 / 2

    /// A tree with a file before the pinned one (in archive order) and one after it.
    private func makeTree(_ dir: borrowing TemporaryDirectory) throws -> URL {
        try dir.write("Deck.sampledeck/A-first.bin", pseudoRandomBytes(5000, seed: 1))
        try dir.write("Deck.sampledeck/Store.sqlite", pseudoRandomBytes(Self.pinnedSize, seed: 2))
        try dir.write("Deck.sampledeck/z-last.bin", pseudoRandomBytes(7000, seed: 3))
        return dir.path("Deck.sampledeck")
    }

    /// Writes over the whole file in place (same inode), as a database writer would.
    private func overwriteInPlace(_ url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(repeating: 0x5A, count: Self.pinnedSize))
    }

    /// What the holder saw: how often it was asked, when it was released (bytes archived by then).
    private final class Holder {
        var asked = 0
        var releases = 0
        var doneAtRelease: Int64 = -1
        var done: Int64 = 0
    }

    @Test(arguments: ArchiveFormat.allCases)
    func aPinNeverAskedBackIsReadInPlaceAndReleasedRightAfterItsEntry(format: ArchiveFormat) throws {
        let dir = try TemporaryDirectory()
        let tree = try makeTree(dir)
        let plain = dir.path("plain.\(format.fileExtension)"), pinnedArchive = dir.path("pinned.\(format.fileExtension)")
        try DirectoryArchiver.archive(directory: tree, as: "Deck.sampledeck", to: plain, format: format)
        let holder = Holder()
        let pin = PinnedFile(url: tree.appendingPathComponent("Store.sqlite"), mustRelease: { descriptor in
            #expect(descriptor >= 0)
            holder.asked += 1
            return false
        }, release: {
            holder.releases += 1
            holder.doneAtRelease = holder.done
        })
        try DirectoryArchiver.archive(directory: tree, as: "Deck.sampledeck", to: pinnedArchive, format: format,
                                      pinned: pin) { done, _ in holder.done = done }
        #expect(try Data(contentsOf: pinnedArchive) == Data(contentsOf: plain), "a pin changes no byte of the archive")
        #expect(holder.asked == 4, "asked before each of the three chunks and at the end")
        #expect(holder.releases == 1)
        #expect(holder.doneAtRelease == Int64(5000 + Self.pinnedSize), "released after its entry, before the next file")
        #expect(pin.isReleased)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tree.path).sorted() == ["A-first.bin", "Store.sqlite", "z-last.bin"])
    }

    /// The holder lets go before chunk `call` (1: before anything is read) and the file is
    /// then overwritten in place: the archive still holds the original bytes.
    @Test(arguments: [(ArchiveFormat.zip, 1), (.zip, 2), (.zip, 3), (.zip, 4), (.tarGzip, 2), (.tarXz, 3), (.tarZstd, 2)])
    func aPinAskedBackCopiesTheRestAsideBeforeLettingGo(format: ArchiveFormat, call: Int) throws {
        let dir = try TemporaryDirectory()
        let tree = try makeTree(dir)
        let store = tree.appendingPathComponent("Store.sqlite")
        let plain = dir.path("plain.\(format.fileExtension)"), pinnedArchive = dir.path("pinned.\(format.fileExtension)")
        try DirectoryArchiver.archive(directory: tree, as: "Deck.sampledeck", to: plain, format: format)
        let holder = Holder()
        let pin = PinnedFile(url: store, mustRelease: { _ in
            holder.asked += 1
            return holder.asked == call
        }, release: {
            holder.releases += 1
            holder.doneAtRelease = holder.done
            do { try overwriteInPlace(store) } catch { Issue.record("can't overwrite the pinned file: \(error)") }
        })
        try DirectoryArchiver.archive(directory: tree, as: "Deck.sampledeck", to: pinnedArchive, format: format,
                                      pinned: pin) { done, _ in holder.done = done }
        #expect(holder.asked == call, "not asked again once released")
        #expect(holder.releases == 1)
        #expect(holder.doneAtRelease == Int64(5000 + min(call - 1, 3) * LibArchive.chunkSize) - (call == 4 ? Int64(LibArchive.chunkSize / 2) : 0),
                "released as soon as the rest is copied aside")
        #expect(try Data(contentsOf: store) == Data(repeating: 0x5A, count: Self.pinnedSize), "the file was overwritten")
        #expect(try Data(contentsOf: pinnedArchive) == Data(contentsOf: plain), "the archive holds the bytes from before")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tree.path).sorted() == ["A-first.bin", "Store.sqlite", "z-last.bin"],
                "the copy aside leaves nothing behind")
    }

    @Test func aPinOutsideTheTreeIsReleasedBeforeAnythingIsWritten() throws {
        let dir = try TemporaryDirectory()
        let tree = try makeTree(dir)
        let elsewhere = try dir.write("elsewhere.sqlite", Data("x".utf8))
        var asked = 0, releasedBeforeProgress = false, progressCalls = 0
        let pin = PinnedFile(url: elsewhere, mustRelease: { _ in asked += 1; return false },
                             release: { releasedBeforeProgress = progressCalls == 0 })
        try DirectoryArchiver.archive(directory: tree, as: "Deck.sampledeck", to: dir.path("d.zip"), format: .zip,
                                      pinned: pin) { _, _ in progressCalls += 1 }
        #expect(pin.isReleased)
        #expect(releasedBeforeProgress)
        #expect(asked == 0)
    }

    @Test func aFailedArchiveStillReleasesThePin() throws {
        let dir = try TemporaryDirectory()
        let tree = try makeTree(dir)
        try FileManager.default.createSymbolicLink(atPath: tree.appendingPathComponent("link").path, withDestinationPath: "z-last.bin")
        var releases = 0
        let pin = PinnedFile(url: tree.appendingPathComponent("Store.sqlite"), mustRelease: { _ in false }, release: { releases += 1 })
        #expect(throws: ArchiveError.self) {
            try DirectoryArchiver.archive(directory: tree, as: "Deck.sampledeck", to: dir.path("d.tar.zst"), format: .tarZstd, pinned: pin)
        }
        #expect(releases == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.path("d.tar.zst").path))
    }

    @Test func aPinnedFileThatShrinksWhileCopiedAsideIsAnError() throws {
        let dir = try TemporaryDirectory()
        let tree = try makeTree(dir)
        let store = tree.appendingPathComponent("Store.sqlite")
        var asked = 0
        // The holder "lets go" too late: the file is already cut short when the rest is copied.
        let pin = PinnedFile(url: store, mustRelease: { _ in
            asked += 1
            if asked == 2 { _ = truncate(store.path, 0) }
            return asked == 2
        }, release: {})
        #expect(throws: ArchiveError.self) {
            try DirectoryArchiver.archive(directory: tree, as: "Deck.sampledeck", to: dir.path("d.zip"), format: .zip, pinned: pin)
        }
        #expect(pin.isReleased)
        #expect(!FileManager.default.fileExists(atPath: dir.path("d.zip").path))
    }
}
