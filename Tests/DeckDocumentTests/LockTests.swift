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
        #expect(try reader.noteCount() == 3)
        try reader.close()
        // The holder dies without unlocking (SIGKILL): the deck opens at once.
        kill(other.processIdentifier, SIGKILL)
        other.waitUntilExit()
        let deck = try DeckDocument.open(at: url)
        #expect(try deck.noteCount() == 3)
        try deck.close()
    }

    /// A writer told to wait gets the deck once the other writer lets go; told not to wait,
    /// or after its wait runs out, it is refused as in use, saying how long it waited.
    @Test func aWriterWaitsForTheLockWhenAskedTo() throws {
        let playground = try Playground()
        let url = try playground.sampleDeck()
        let other = try holdLock(of: url)
        #expect(throws: DeckError.self) { _ = try DeckDocument.open(at: url, lockWait: .none) }
        do {
            _ = try DeckDocument.open(at: url, lockWait: .seconds(0.2))
            Issue.record("opened while another process holds the lock")
        } catch let error as DeckError {
            #expect(error.kind == .inUse && error.reason.contains("waited 0.2 s"), "\(error)")
        }
        // The holder lets go while a writer waits (up to a minute): the writer gets the deck.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { kill(other.processIdentifier, SIGKILL) }
        let deck = try DeckDocument.open(at: url, lockWait: .seconds(60))
        other.waitUntilExit()
        #expect(try deck.noteCount() == 3)
        try deck.close()
    }
}
