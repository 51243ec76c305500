import Foundation
import Digest
import Testing
import SQLite
@testable import Persistence
import PersistenceTestSupport

final class Attachment: PersistentModel {
    var name: String = ""
    var payload: Data = Data()
    var thumbnail: Data? = nil
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("name", \Attachment.name),
        .attribute("payload", \Attachment.payload, options: [.externalStorage]),
        .attribute("thumbnail", \Attachment.thumbnail, options: [.externalStorage]),
    ]
    let persistentBackingData = BackingData()
    init() {}
    init(name: String, payload: Data, thumbnail: Data? = nil) { (self.name, self.payload, self.thumbnail) = (name, payload, thumbnail) }
}

@Suite struct ExternalStorageTests {
    static let big = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    static let other = Data("a different value".utf8)

    static func digests(_ container: ModelContainer) -> Set<String> {
        container.stores[0].externalStorage?.storedDigests() ?? []
    }

    @Test func sha256MatchesKnownDigests() {
        #expect(SHA256.hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Data(repeating: 0x61, count: 1_000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test(arguments: StoreKind.allCases)
    func valuesLiveOutsideTheDatabaseOncePerContent(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Attachment.self], in: playground)
        let context = ModelContext(container)
        context.insert(Attachment(name: "a", payload: Self.big))
        context.insert(Attachment(name: "b", payload: Self.big, thumbnail: Self.other))
        try context.save()
        #expect(Self.digests(container) == [SHA256.hex(Self.big), SHA256.hex(Self.other)])
        // The column holds a reference, not the bytes.
        let stored = try container.withDatabase(for: Attachment.self) { db in try db.rows("SELECT payload, thumbnail FROM Attachment ORDER BY pk") }
        #expect(stored[0][0] == .text("sha256:" + SHA256.hex(Self.big)) && stored[0][1] == .null)
        if kind == .file {
            let folder = playground.file("store.sqlite.external")
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(SHA256.hex(Self.big)).path))
        } else {
            #expect(!FileManager.default.fileExists(atPath: playground.file("store.sqlite.external").path))
        }
        // Reading back, in a fresh context.
        let reader = ModelContext(container)
        let fetched = try reader.fetch(FetchDescriptor<Attachment>(sortBy: [SortDescriptor(\.name)]))
        #expect(fetched.map(\.payload) == [Self.big, Self.big] && fetched[1].thumbnail == Self.other)
        #expect(!reader.hasChanges)
        // A replaced value stays while another row references it; a deleted one goes.
        let b = fetched[1]
        b.payload = Data("small".utf8)
        b.thumbnail = nil
        try reader.save()
        #expect(Self.digests(container) == [SHA256.hex(Self.big), SHA256.hex(Data("small".utf8))])
        reader.delete(fetched[0])
        try reader.save()
        #expect(Self.digests(container) == [SHA256.hex(Data("small".utf8))])
        // Rollback restores an external value.
        b.payload = Self.other
        reader.rollback()
        #expect(b.payload == Data("small".utf8))
    }

    @MainActor @Test func survivesReopeningAndAMissingFileIsAClearError() throws {
        let playground = try Playground()
        let url = playground.file("store.sqlite")
        do {
            let container = try ModelContainer(for: Attachment.self, configurations: ModelConfiguration(url: url))
            container.mainContext.insert(Attachment(name: "a", payload: Self.big))
            try container.close()
        }
        let container = try ModelContainer(for: Attachment.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(container).fetch(FetchDescriptor<Attachment>()).first?.payload == Self.big)
        let file = playground.file("store.sqlite.external").appendingPathComponent(SHA256.hex(Self.big))
        try FileManager.default.removeItem(at: file)
        #expect {
            _ = try ModelContext(container).fetch(FetchDescriptor<Attachment>())
        } throws: { error in
            guard case PersistenceError.externalStorageMissing(let path) = error else { return false }
            return path == file.path
        }
    }

    @Test func aFailedSaveLeavesNoReferenceAndCloseSweepsOrphans() throws {
        let playground = try Playground()
        let url = playground.file("store.sqlite")
        let container = try ModelContainer(for: Attachment.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(Attachment(name: "a", payload: Self.big))
        try context.save()
        // A bulk SQL delete leaves the file until the sweep.
        try context.delete(model: Attachment.self)
        #expect(Self.digests(container) == [SHA256.hex(Self.big)])
        try container.removeUnreferencedExternalStorage()
        #expect(Self.digests(container).isEmpty)
        // A save that fails after writing its files leaves rows untouched; close sweeps.
        try container.withDatabase(for: Attachment.self) { db in try db.execute("CREATE TRIGGER refuse BEFORE INSERT ON Attachment BEGIN SELECT RAISE(ABORT, 'refused'); END") }
        context.insert(Attachment(name: "b", payload: Self.other))
        #expect(throws: PersistenceError.self) { try context.save() }
        context.rollback()
        try container.close()
        let folder = playground.file("store.sqlite.external")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func aValueRemovedAndStoredAgainComesBack(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Attachment.self], in: playground)
        let context = ModelContext(container)
        let first = Attachment(name: "a", payload: Self.other)
        context.insert(first)
        try context.save()
        first.payload = Self.big
        try context.save()
        #expect(Self.digests(container) == [SHA256.hex(Self.big)])
        context.insert(Attachment(name: "b", payload: Self.other))
        try context.save()
        #expect(Self.digests(container) == [SHA256.hex(Self.big), SHA256.hex(Self.other)])
        let fetched = try ModelContext(container).fetch(FetchDescriptor<Attachment>(sortBy: [SortDescriptor(\.name)]))
        #expect(fetched.map(\.payload) == [Self.big, Self.other])
    }
}
