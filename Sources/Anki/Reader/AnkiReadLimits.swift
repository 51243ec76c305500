import Archive

/// Bounds on what reading an Anki package may produce, so a hostile package (a zip or zstd
/// bomb, a gigantic media list) fails with ``AnkiError/Kind/limitExceeded``.
public struct AnkiReadLimits: Sendable, Equatable {
    /// Limits on the zip container (entries, sizes, expansion ratio).
    public var archive: ArchiveLimits
    /// The largest collection, once decompressed, in bytes.
    public var maxCollectionSize: Int64
    /// The largest media list (`media` entry), once decompressed, in bytes.
    public var maxMediaListSize: Int
    /// The largest single media file, once decompressed, in bytes.
    public var maxMediaFileSize: Int64

    /// Creates limits; each value defaults to the one in ``default``.
    public init(archive: ArchiveLimits = .default, maxCollectionSize: Int64 = 8 << 30,
                maxMediaListSize: Int = 64 << 20, maxMediaFileSize: Int64 = 4 << 30) {
        self.archive = archive
        self.maxCollectionSize = maxCollectionSize
        self.maxMediaListSize = maxMediaListSize
        self.maxMediaFileSize = maxMediaFileSize
    }

    /// Limits sized for real decks: collections up to 8 GiB, media lists up to 64 MiB
    /// (about a million files), media files up to 4 GiB; ``ArchiveLimits/default`` for the zip.
    public static let `default` = AnkiReadLimits()
}
