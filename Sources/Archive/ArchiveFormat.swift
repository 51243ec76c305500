/// The archive formats SampleDeck writes: zip, and tar compressed with gzip, xz or zstd.
///
/// Reading is not limited to these: ``ArchiveReader`` reads whatever libarchive recognises
/// among zip, tar, cpio and 7-Zip, compressed or not. This type names what we *write*.
///
/// ```swift
/// let format = ArchiveFormat.inferred(fromPath: "French.sampledeck.tar.zst") // .tarZstd
/// ```
public enum ArchiveFormat: String, CaseIterable, Sendable {
    /// A zip file, each entry deflated (libarchive's default level, as `bsdtar --format zip`).
    case zip
    /// A pax (POSIX) tar stream compressed with gzip.
    case tarGzip = "tar.gz"
    /// A pax (POSIX) tar stream compressed with xz.
    case tarXz = "tar.xz"
    /// A pax (POSIX) tar stream compressed with zstd.
    case tarZstd = "tar.zst"

    /// The format a file name implies, from its extension, or `nil` when it implies none.
    ///
    /// Matching is case-insensitive and accepts the short forms `.tgz`, `.txz` and `.tzst`;
    /// `.apkg` and `.colpkg` (Anki packages) are zips.
    public static func inferred(fromPath path: String) -> ArchiveFormat? {
        let name = path.split(separator: "/").last.map(String.init)?.lowercased() ?? ""
        let suffixes: [(String, ArchiveFormat)] = [
            (".tar.gz", .tarGzip), (".tgz", .tarGzip),
            (".tar.xz", .tarXz), (".txz", .tarXz),
            (".tar.zst", .tarZstd), (".tzst", .tarZstd),
            (".zip", .zip), (".apkg", .zip), (".colpkg", .zip),
        ]
        for (suffix, format) in suffixes where name.hasSuffix(suffix) && name.count > suffix.count {
            return format
        }
        return nil
    }

    /// The usual file extension, without the leading dot (`"zip"`, `"tar.gz"`, `"tar.xz"`, `"tar.zst"`).
    public var fileExtension: String { rawValue }

    /// Whether the format is a tar stream (so compression is applied to the whole stream,
    /// not entry by entry).
    var isTar: Bool { self != .zip }
}
