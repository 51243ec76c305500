/// Bounds on what reading or extracting an archive may produce, so that a hostile archive
/// (a zip bomb, millions of entries) fails with ``ArchiveError/Kind/limitExceeded`` instead of
/// filling the disk or the memory.
///
/// Sizes are checked twice: against what headers *declare*, before any data is read, and
/// against the bytes that *actually* come out while reading, since headers can lie.
///
/// The expansion ratio is the uncompressed bytes produced so far divided by the size of the
/// archive file (for a stream of unknown size: the compressed bytes consumed so far). It is
/// only enforced once more than ``expansionRatioThreshold`` bytes have come out, so small
/// archives of very compressible files are not refused.
public struct ArchiveLimits: Sendable, Equatable {
    /// The most entries (files, directories, anything) an archive may hold.
    public var maxEntries: Int
    /// The most bytes a single entry may hold.
    public var maxEntrySize: Int64
    /// The most bytes all entries together may hold.
    public var maxTotalSize: Int64
    /// The most uncompressed bytes per byte of archive.
    public var maxExpansionRatio: Int64
    /// Output below this many bytes is never refused for its expansion ratio.
    public var expansionRatioThreshold: Int64

    /// Creates limits; every value defaults to the one in ``default``.
    public init(
        maxEntries: Int = 2_000_000,
        maxEntrySize: Int64 = 16 << 30,
        maxTotalSize: Int64 = 64 << 30,
        maxExpansionRatio: Int64 = 200,
        expansionRatioThreshold: Int64 = 16 << 20
    ) {
        self.maxEntries = maxEntries
        self.maxEntrySize = maxEntrySize
        self.maxTotalSize = maxTotalSize
        self.maxExpansionRatio = maxExpansionRatio
        self.expansionRatioThreshold = expansionRatioThreshold
    }

    /// Limits sized for real decks: a deck of about a million cards with a media file or two
    /// per card fits comfortably, a bomb does not.
    ///
    /// - 2,000,000 entries (a manifest, a store, and up to two media files per card);
    /// - 16 GiB per entry (the store of a million cards is well under 2 GiB; long videos fit);
    /// - 64 GiB in all;
    /// - an expansion ratio of 200 past the first 16 MiB. Decks compress 2–10x (SQLite pages,
    ///   already-compressed media); a deflate bomb of zeros expands about 1000x, and xz or
    ///   zstd bombs far more.
    public static let `default` = ArchiveLimits()

    /// No practical bound: for archives this program wrote itself. Never use it on input
    /// from elsewhere.
    public static let unlimited = ArchiveLimits(
        maxEntries: .max, maxEntrySize: .max, maxTotalSize: .max,
        maxExpansionRatio: .max, expansionRatioThreshold: .max)
}
