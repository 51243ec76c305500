import Foundation

/// Where and how a container stores (a subset of) its schema, as in SwiftData.
///
/// ```swift
/// let config = ModelConfiguration(url: deckURL.appending(path: "store.sqlite"))
/// let preview = ModelConfiguration(isStoredInMemoryOnly: true)
/// let people = ModelConfiguration("people", schema: Schema([Person.self]), url: peopleURL)
/// ```
public struct ModelConfiguration: Sendable, Hashable {
    /// The configuration's name; also the store identifier of its models' identifiers.
    public let name: String
    /// The types stored by this configuration, or nil for "the container's whole schema".
    public let schemaTypeNames: [String]?
    let schemaTypes: SendableTypes?
    /// The store file; nil for in-memory stores.
    public let url: URL?
    /// Whether the store lives in memory only (previews, tests).
    public let isStoredInMemoryOnly: Bool
    /// Whether saving is allowed; false opens the store read-only and never writes a byte.
    public let allowsSave: Bool
    /// Whether the store uses write-ahead logging (file stores only).
    public let usesWriteAheadLog: Bool

    /// A configuration for a store file.
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true, usesWriteAheadLog: Bool = true) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schemaTypes = schema.map { SendableTypes($0.entities.map(\.type)) }
        self.schemaTypeNames = schema?.entities.map(\.name)
        self.url = url
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        self.usesWriteAheadLog = usesWriteAheadLog
    }

    /// An in-memory configuration (or, when `isStoredInMemoryOnly` is false, a store named
    /// `<name>.store` in the current directory).
    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool, allowsSave: Bool = true) {
        self.name = name ?? "default"
        self.schemaTypes = schema.map { SendableTypes($0.entities.map(\.type)) }
        self.schemaTypeNames = schema?.entities.map(\.name)
        self.url = isStoredInMemoryOnly ? nil : URL(fileURLWithPath: (name ?? "default") + ".store")
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.usesWriteAheadLog = true
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.name == b.name && a.url == b.url && a.isStoredInMemoryOnly == b.isStoredInMemoryOnly
            && a.allowsSave == b.allowsSave && a.schemaTypeNames == b.schemaTypeNames
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(name); hasher.combine(url) }
}

/// Model metatypes, which are immutable and safe to share.
struct SendableTypes: @unchecked Sendable {
    let types: [any PersistentModel.Type]
    init(_ types: [any PersistentModel.Type]) { self.types = types }
}
