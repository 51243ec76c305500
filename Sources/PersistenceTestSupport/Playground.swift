import Foundation
import Persistence
import TestSupport

/// A temporary directory for one test, removed when released (swift-foundation's
/// FilePlayground shape). Shared by the test targets of Persistence, its macros and the
/// SwiftData seeds.
public final class Playground: TemporaryTree {
    /// A new empty directory in the temporary directory, named `prefix-<UUID>`.
    public override init(prefix: String = "persistence") throws { try super.init(prefix: prefix) }
}

/// Every store test runs on an in-memory store and on a temporary file.
public enum StoreKind: String, CaseIterable, CustomStringConvertible, Sendable {
    case memory, file
    public var description: String { rawValue }

    /// A container of `types` on this kind of store (the file `name` in `playground`).
    public func container(_ types: [any PersistentModel.Type], in playground: Playground, name: String = "store.sqlite") throws -> ModelContainer {
        switch self {
        case .memory: try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        case .file: try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(url: playground.file(name))])
        }
    }
}
