import Archive
import Foundation
import SQLite
import Testing
@testable import DeckDocument

/// Sharing decks: archive from a snapshot, unarchive safely, read archives in place.
@Suite struct ArchiveSharingTests {
    /// A deck with three cards and two media files, closed.
    private func mediaDeck(_ play: Playground) throws -> URL {
        let url = try play.sampleDeck()
        let deck = try DeckDocument.open(at: url)
        let note = try #require(try deck.note(forCard: 1))
        try deck.attachMedia(named: [try deck.addMedia(Data("picture bytes".utf8), originalName: "cat.png").originalName,
                                     try deck.addMedia(Data(repeating: 7, count: 70_000), originalName: "meow.mp3").originalName], to: note)
        try deck.save()
        try deck.close()
        return url
    }

    /// The cards of a deck as comparable text, and its media files with their bytes.
    private func contents(of url: URL) throws -> (cards: [String], media: [String: Data]) {
        let deck = try DeckDocument.open(at: url, mode: .readOnly)
        defer { try? deck.close() }
        let cards = try deck.cardSnapshots().map { card in
            "\(card.id)|\(card.kind)|\(card.fields)|\(card.ordinals)|\(card.tags)|\(card.created.timeIntervalSince1970)|\(card.media)"
        }
        return (cards, try snapshot(of: deck.mediaURL))
    }

    @Test(arguments: ArchiveFormat.allCases)
    func roundTripKeepsEveryCardAndMediaFile(_ format: ArchiveFormat) throws {
        let play = try Playground()
        let url = try mediaDeck(play)
        let archive = play.file("French.\(format.fileExtension)")
        let deck = try DeckDocument.open(at: url, mode: .readOnly)
        try deck.archive(to: archive, format: format)
        try deck.close()
        let out = play.file("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        let extracted = try DeckDocument.unarchive(archive, into: out)
        #expect(extracted.lastPathComponent == "French.sampledeck")
        let before = try contents(of: url), after = try contents(of: extracted)
        #expect(after.cards == before.cards)
        #expect(after.cards.count == 3)
        #expect(after.media == before.media)
        #expect(after.media.count == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["French.sampledeck"])
    }

    @Test func archivingTwiceGivesTheSameBytesAndNoLockOrJournal() throws {
        let play = try Playground()
        let url = try mediaDeck(play)
        let deck = try DeckDocument.open(at: url)  // read-write: a lock file exists
        try deck.archive(to: play.file("a.zip"))
        try deck.archive(to: play.file("b.zip"))
        try deck.close()
        #expect(try Data(contentsOf: play.file("a.zip")) == Data(contentsOf: play.file("b.zip")))
        let names = try ArchiveReader(url: play.file("a.zip")).entryNames()
        #expect(names.count == 6)
        #expect(names.first == "French.sampledeck/")
        #expect(names.contains("French.sampledeck/Deck.sqlite") && names.contains("French.sampledeck/manifest.json"))
        #expect(names.filter { $0.hasPrefix("French.sampledeck/Media/") && !$0.hasSuffix("/") }.count == 2)
        #expect(names == names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, "entries are in a fixed order")
        #expect(!names.contains { $0.hasSuffix(".lock") || $0.hasSuffix("-wal") || $0.hasSuffix("-shm") })
        #expect(throws: DeckError.self) { try DeckDocument.open(at: url, mode: .readOnly).archive(to: play.file("a.zip")) }
    }

    @Test func theArchiveIsASnapshotWhileTheDeckIsWritten() throws {
        let play = try Playground()
        let url = try play.sampleDeck()
        let writer = try DeckDocument.open(at: url)
        let reader = try DeckDocument.open(at: url, mode: .readOnly)
        var wroteDuringArchive = false
        // The progress callback runs after the snapshot: write and save more cards then.
        try reader.archive(to: play.file("snap.tar.gz")) { _, _ in
            guard !wroteDuringArchive else { return }
            wroteDuringArchive = true
            for index in 0..<50 { _ = try? writer.addCard(kind: .basic, front: "new \(index)", back: "", tags: []) }
            try? writer.save()
            // A checkpoint must not write into the store file the archive is reading.
            _ = try? writer.container.withDatabase(for: Note.self) { db in try db.rows("PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        #expect(wroteDuringArchive)
        #expect(try writer.noteCount() == 53)
        try writer.close()
        let archived = try DeckDocument.open(archive: play.file("snap.tar.gz"))
        #expect(try archived.noteCount() == 3, "the archive holds the state when it started")
        #expect(archived.check().filter { $0.severity == .error }.isEmpty)
        try archived.close()
    }

    /// The deck's `DeckInfo.description`, read straight from a store.
    private func storedDescription(_ package: URL) throws -> String? {
        let db = try Database(path: package.appendingPathComponent("Deck.sqlite").path, mode: .readOnly)
        defer { db.close() }
        return try db.scalar("SELECT deckDescription FROM DeckInfo", as: String.self)
    }

    @Test(arguments: ArchiveFormat.allCases)
    func aClosedDeckIsArchivedInPlaceUnderItsReadLock(_ format: ArchiveFormat) throws {
        let play = try Playground()
        let url = try mediaDeck(play)
        let store = url.appendingPathComponent("Deck.sqlite")
        let deck = try DeckDocument.open(at: url, mode: .readOnly)
        var linksWhileArchiving: [Int] = []
        try deck.archive(to: play.file("d.\(format.fileExtension)")) { _, _ in
            var status = stat()
            if stat(store.path, &status) == 0 { linksWhileArchiving.append(Int(status.st_nlink)) }
        }
        try deck.close()
        // Linked into the staging tree, not copied; the staging tree is gone afterwards.
        #expect(linksWhileArchiving.first == 2, "the store is read in place: \(linksWhileArchiving)")
        var status = stat()
        #expect(stat(store.path, &status) == 0 && status.st_nlink == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: play.url.path).sorted() == ["French.sampledeck", "d.\(format.fileExtension)"])
        // The read lock is gone: a writer gets in at once.
        let writer = try DeckDocument.open(at: url)
        _ = try writer.addCard(kind: .basic, front: "after", back: "", tags: [])
        try writer.save()
        try writer.close()
        let out = play.file("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        let extracted = try DeckDocument.unarchive(play.file("d.\(format.fileExtension)"), into: out)
        #expect(try contents(of: extracted).cards.count == 3)
        #expect(try contents(of: extracted).media == contents(of: url).media)
    }

    /// Another process starts writing a closed deck while it is archived: the archiver sees
    /// the writer's lock, copies the store aside and lets go, so the writer commits while the
    /// archive is still being written, and the archive holds the state from before.
    @Test func aWriterInAnotherProcessIsLetInAndTheArchiveKeepsTheStateFromBefore() throws {
        let play = try Playground()
        let url = try mediaDeck(play)
        let store = url.appendingPathComponent("Deck.sqlite")
        #expect(try storedDescription(url) == "")
        let deck = try DeckDocument.open(at: url, mode: .readOnly)
        // Kept open until the archive is written: closing a descriptor of the store would drop
        // this process's locks on it, the archiver's read lock among them.
        let probe = open(store.path, O_RDONLY | O_CLOEXEC)
        #expect(probe >= 0)
        let output = Pipe()
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
            db.execute("BEGIN IMMEDIATE")
            db.execute("UPDATE DeckInfo SET deckDescription = 'written meanwhile'")
            db.execute("COMMIT")
            print("committed")
            """, store.path]
        python.standardOutput = output
        var sawWriterWaiting = false, writerDoneWithinTheStoreEntry = false
        var calls = 0
        try deck.archive(to: play.file("snap.tar.zst")) { _, _ in
            calls += 1
            if calls == 1 {
                // After the snapshot, before the store is read: start the writer, wait until it waits.
                do { try python.run() } catch { Issue.record("python3 is needed for this test: \(error)"); return }
                let deadline = Date().addingTimeInterval(20)
                while Date() < deadline, !sawWriterWaiting {
                    sawWriterWaiting = DeckDocument.writerIsWaiting(probe)
                    if !sawWriterWaiting { usleep(2000) }
                }
            } else if calls == 2, python.isRunning || python.processIdentifier != 0 {
                // After the store's only chunk, its entry not finished: the writer is already in.
                let deadline = Date().addingTimeInterval(20)
                while Date() < deadline, python.isRunning { usleep(2000) }
                writerDoneWithinTheStoreEntry = !python.isRunning
            }
        }
        python.waitUntilExit()
        close(probe)
        try deck.close()
        #expect(sawWriterWaiting, "the writer waited for the archiver's read lock")
        #expect(writerDoneWithinTheStoreEntry, "the archiver let go before it finished the store's entry")
        #expect(python.terminationStatus == 0)
        #expect(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "committed\n")
        #expect(try storedDescription(url) == "written meanwhile")
        let out = play.file("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        let extracted = try DeckDocument.unarchive(play.file("snap.tar.zst"), into: out)
        #expect(try storedDescription(extracted) == "", "the archive holds the store as it was when archiving began")
        #expect(try contents(of: extracted).cards.count == 3)
    }

    @Test func writingToADescriptorCopiesAClosedDecksStoreFirst() throws {
        let play = try Playground()
        let url = try mediaDeck(play)
        let store = url.appendingPathComponent("Deck.sqlite")
        let deck = try DeckDocument.open(at: url, mode: .readOnly)
        let file = play.file("d.tar.gz")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try FileHandle(forWritingTo: file)
        var links: [Int] = []
        try deck.archive(toFileDescriptor: handle.fileDescriptor, format: .tarGzip) { _, _ in
            var status = stat()
            if stat(store.path, &status) == 0 { links.append(Int(status.st_nlink)) }
        }
        try handle.close()
        try deck.close()
        #expect(!links.isEmpty && links.allSatisfy { $0 == 1 }, "a stream's reader may stall: the store is copied, not pinned")
        let archived = try DeckDocument.open(archive: file)
        #expect(try archived.noteCount() == 3)
        try archived.close()
    }

    @Test func committedChangesStillInTheWALAreArchived() throws {
        let play = try Playground()
        let url = try play.sampleDeck()
        let writer = try DeckDocument.open(at: url)
        for index in 0..<20 { _ = try writer.addCard(kind: .basic, front: "wal \(index)", back: "", tags: ["wal"]) }
        try writer.save()  // committed to the WAL; the writer stays open, so no final checkpoint
        let wal = try FileManager.default.attributesOfItem(atPath: writer.storeURL.path + "-wal")[.size] as? Int ?? 0
        #expect(wal > 0)
        let reader = try DeckDocument.open(at: url, mode: .readOnly)
        try reader.archive(to: play.file("wal.zip"))
        try reader.close()
        try writer.close()
        let archived = try DeckDocument.open(archive: play.file("wal.zip"))
        #expect(try archived.noteCount() == 23)
        #expect(archived.check().filter { $0.severity == .error }.isEmpty)
        try archived.close()
    }

    @Test func openingAnArchiveIsReadOnlyAndLeavesNothing() throws {
        let play = try Playground()
        let url = try play.sampleDeck()
        let deck = try DeckDocument.open(at: url, mode: .readOnly)
        try deck.archive(to: play.file("French.zip"))
        try deck.close()
        let archived = try DeckDocument.open(archive: play.file("French.zip"))
        #expect(archived.mode == .readOnly)
        #expect(archived.manifest.title == "French")
        #expect(try archived.search("cafe", limit: nil).map(\.front) == ["Café"])
        #expect(throws: DeckError.self) { _ = try archived.addCard(kind: .basic, front: "x", back: "y", tags: []) }
        let privateCopy = archived.url.deletingLastPathComponent()
        #expect(FileManager.default.fileExists(atPath: privateCopy.path))
        try archived.close()
        #expect(!FileManager.default.fileExists(atPath: privateCopy.path), "closing removes the private copy")
        #expect(try FileManager.default.contentsOfDirectory(atPath: play.url.path).sorted() == ["French.sampledeck", "French.zip"])
    }

    @Test func unarchiveRefusesADeckThatFailsItsCheckAndLeavesNothing() throws {
        let play = try Playground()
        let url = try play.sampleDeck()
        // Damage the store's search index so check reports an error, then archive it.
        let db = try Database(path: url.appendingPathComponent("Deck.sqlite").path)
        try db.execute("DELETE FROM \"NoteSearch\"")
        db.close()
        try DirectoryArchiver.archive(directory: url, as: "French.sampledeck", to: play.file("bad.zip"), format: .zip)
        let out = play.file("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        #expect {
            try DeckDocument.unarchive(play.file("bad.zip"), into: out)
        } throws: { error in
            (error as? DeckError)?.kind == .corrupt && "\(error)".contains("fails its check")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
    }

    @Test func unarchiveRefusesEntriesOutsideThePackageLayout() throws {
        let play = try Playground()
        let tree = play.file("tree/Odd.sampledeck/Media/sub")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: tree.appendingPathComponent("deep.txt"))
        try DirectoryArchiver.archive(directory: play.file("tree/Odd.sampledeck"), as: "Odd.sampledeck",
                                      to: play.file("odd.zip"), format: .zip)
        let out = play.file("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        #expect {
            try DeckDocument.unarchive(play.file("odd.zip"), into: out)
        } throws: { error in
            if case .unsafeEntry(let name)? = (error as? ArchiveError)?.kind { return name.hasPrefix("Odd.sampledeck/Media/sub") }
            return false
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
    }

    @Test func unarchiveNeverReplacesADeck() throws {
        let play = try Playground()
        let url = try play.sampleDeck()
        let deck = try DeckDocument.open(at: url, mode: .readOnly)
        try deck.archive(to: play.file("French.zip"))
        try deck.close()
        #expect {
            try DeckDocument.unarchive(play.file("French.zip"), into: play.url)
        } throws: { error in
            (error as? DeckError)?.kind == .alreadyExists
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: play.url.path).sorted() == ["French.sampledeck", "French.zip"])
    }
}

extension ArchiveReader {
    /// Every entry name, in archive order.
    func entryNames() throws -> [String] {
        var names: [String] = []
        while let entry = try nextEntry() { names.append(entry.path) }
        return names
    }
}
