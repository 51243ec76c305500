import Foundation
import SwiftData

/// A temporary directory, removed when released (swift-foundation's FilePlayground shape).
final class Playground {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("seeds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// Every store test runs on an in-memory store and on a temporary file.
enum StoreKind: String, CaseIterable, CustomStringConvertible, Sendable {
    case memory, file
    var description: String { rawValue }

    func container(_ types: [any PersistentModel.Type], in playground: Playground, name: String = "store.sqlite") throws -> ModelContainer {
        switch self {
        case .memory: try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        case .file: try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(url: playground.file(name))])
        }
    }
}
