import Foundation

/// Where and how a container stores (a subset of) its schema, as in SwiftData.
///
/// ```swift
/// let config = ModelConfiguration(url: deckURL.appending(path: "store.sqlite"))
/// let preview = ModelConfiguration(isStoredInMemoryOnly: true)
/// let standard = ModelConfiguration()   // ~/.local/share/<program>/default.store
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

    /// A store in the program's default location, as SwiftData's `ModelConfiguration()`,
    /// or in memory when `isStoredInMemoryOnly`.
    ///
    /// The default location is `<name>.store` (`default.store` without a name) in the
    /// program's data folder, ``defaultStoreDirectory(environment:programName:)``:
    /// `$XDG_DATA_HOME/<program>/`, or `~/.local/share/<program>/` when `XDG_DATA_HOME` is
    /// unset or not absolute (the XDG base directory rules; SwiftData uses Application
    /// Support on Apple systems). The folder is created when the store is opened.
    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true) {
        self.name = name ?? "default"
        self.schemaTypes = schema.map { SendableTypes($0.entities.map(\.type)) }
        self.schemaTypeNames = schema?.entities.map(\.name)
        self.url = isStoredInMemoryOnly ? nil
            : Self.defaultStoreDirectory().appendingPathComponent((name ?? "default") + ".store")
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.usesWriteAheadLog = true
    }

    /// The folder of stores created without a URL: `$XDG_DATA_HOME/<program>` when
    /// `XDG_DATA_HOME` is an absolute path, else `$HOME/.local/share/<program>` (the home
    /// folder from the user database when `HOME` is unset). `<program>` is the process name.
    public static func defaultStoreDirectory(environment: [String: String] = ProcessInfo.processInfo.environment,
                                             programName: String = ProcessInfo.processInfo.processName) -> URL {
        let program = programName.isEmpty ? "default" : programName
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent(program, isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0, isDirectory: true) : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".local/share", isDirectory: true).appendingPathComponent(program, isDirectory: true)
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
