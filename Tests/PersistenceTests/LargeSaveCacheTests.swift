import Foundation
import SQLite
import Testing
@testable import Persistence

/// A save of many rows gets a larger page cache for its transaction, and the connection gets
/// its own setting back afterwards.
@Suite struct LargeSaveCacheTests {
    static func cacheSize(_ container: ModelContainer) throws -> Int? {
        try container.withDatabase(for: Card.self) { db in try db.scalar("PRAGMA cache_size", as: Int.self) }
    }

    @Test func onlyALargeSaveWidensTheCacheAndTheSettingComesBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = try ModelContainer(for: Card.self, configurations: ModelConfiguration(url: directory.appendingPathComponent("c.store")))
        let context = ModelContext(container)
        let before = try Self.cacheSize(container)
        try container.withDatabase(for: Card.self) { db in
            #expect(try context.widenCache(db, rows: ModelContext.largeSaveRows) == nil, "at the threshold nothing changes")
            let previous = try context.widenCache(db, rows: ModelContext.largeSaveRows + 1)
            #expect(previous == before)
            #expect(try db.scalar("PRAGMA cache_size", as: Int.self) == -ModelContext.largeSaveCacheKiB)
            #expect(try context.widenCache(db, rows: ModelContext.largeSaveRows + 1) == nil, "already wide enough")
            try db.execute("PRAGMA cache_size = \(previous ?? -2000)")
        }
        // A save restores the setting whatever it widened.
        for index in 0..<10 { context.insert(Card(front: "f\(index)", back: "b")) }
        try context.save()
        #expect(try Self.cacheSize(container) == before)
        #expect(try context.fetchCount(FetchDescriptor<Card>()) == 10)
    }
}
