import Foundation
import Testing

/// SIGKILL at random moments while `deck` writes. `make test` runs the short form
/// (20 kills); `make reliability` sets `RELIABILITY_KILLS=200` (and `RELIABILITY_SEED`
/// replays a run).
@Suite(.tags(.reliability), .serialized)
struct CrashInjectionTests {
    static var kills: Int { Int(ProcessInfo.processInfo.environment["RELIABILITY_KILLS"] ?? "") ?? 20 }
    static var seed: UInt64 {
        UInt64(ProcessInfo.processInfo.environment["RELIABILITY_SEED"] ?? "") ?? UInt64(Date().timeIntervalSince1970)
    }

    @Test("SIGKILL during add, edit, rm, CSV and JSON import, archive, convert and migrate leaves every deck sound and every returned write present")
    func killedWritersLeaveSoundDecks() throws {
        let scratch = try Scratch("crash")
        let seed = Self.seed
        var harness = CrashInjection(directory: scratch.url, seed: seed)
        let report = try harness.run(kills: Self.kills)
        print("crash injection (seed \(seed)): \(report)")
        try? Data("\(report)\n".utf8).write(to: URL(fileURLWithPath: NSTemporaryDirectory() + "/deck-crash-report.txt"))
        #expect(report.failures.isEmpty, "seed \(seed): \(report.failures.joined(separator: "\n"))")
        #expect(report.kills >= Self.kills, "only \(report.kills) kills landed before the commands finished")
    }
}
