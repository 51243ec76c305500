import Foundation
import Testing
@testable import DeckDocument

@Suite struct LockTests {
    /// Starts a Python process holding the deck's lock with flock(2); returns once it holds it.
    func holdLock(of url: URL) throws -> Process {
        let ready = url.deletingLastPathComponent().appendingPathComponent("ready-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import fcntl, sys, time
            f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); open(sys.argv[2], "w").close(); time.sleep(30)
            """, url.appendingPathComponent(".lock").path, ready.path]
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: ready.path) && Date() < deadline { usleep(10_000) }
        return process
    }

    @Test func writerInAnotherProcessIsRespectedAndItsDeathFreesTheDeck() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let other = try holdLock(of: url)
        do {
            _ = try DeckDocument.open(at: url)
            Issue.record("opened while another process holds the lock")
        } catch let error as DeckError {
            #expect(error.kind == .inUse)
        }
        // Readers are not blocked.
        let reader = try DeckDocument.open(at: url, mode: .readOnly)
        #expect(try reader.cardCount() == 3)
        try reader.close()
        // The holder dies without unlocking (SIGKILL): the deck opens at once.
        kill(other.processIdentifier, SIGKILL)
        other.waitUntilExit()
        let deck = try DeckDocument.open(at: url)
        #expect(try deck.cardCount() == 3)
        try deck.close()
    }
}
