/// The layout of an Anki package, from its `meta` entry (or, without one, its entry names).
public enum AnkiPackageVersion: Int, Sendable, Hashable, CaseIterable, Comparable {
    /// Anki 2.0: `collection.anki2` (schema 11), JSON media map, no `meta`.
    case legacy1 = 1
    /// Anki 2.1 before 2.1.50: `collection.anki21` (schema 11), JSON media map.
    case legacy2 = 2
    /// Anki 2.1.50 and later: zstd `collection.anki21b` (schema 18), zstd media, protobuf media list.
    case latest = 3

    /// The zip entry that holds the collection.
    public var collectionEntryName: String {
        switch self {
        case .legacy1: "collection.anki2"
        case .legacy2: "collection.anki21"
        case .latest: "collection.anki21b"
        }
    }

    /// Whether the collection and media entries are zstd-compressed.
    public var isZstdCompressed: Bool { self == .latest }

    /// Orders versions from oldest to newest.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
