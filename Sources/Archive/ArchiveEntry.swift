internal import CArchive

/// One entry's header, as read by ``ArchiveReader/nextEntry()``.
public struct ArchiveEntry: Sendable, Equatable, CustomStringConvertible {
    /// What kind of file system object an entry describes.
    public enum EntryType: Sendable, Equatable {
        /// A regular file.
        case file
        /// A directory.
        case directory
        /// A symbolic link (see ``ArchiveEntry/linkTarget``).
        case symlink
        /// A hard link to an earlier entry (see ``ArchiveEntry/linkTarget``).
        case hardlink
        /// Anything else: a device, a fifo, a socket, or a type the archive does not say.
        case other
    }

    /// The entry's name exactly as stored (UTF-8), e.g. `"Deck.sampledeck/Media/"` for a
    /// directory of a zip. Not sanitised: never use it as a file system path without
    /// checking it (``ArchiveExtractor`` does).
    public let path: String
    /// What kind of object the entry is.
    public let type: EntryType
    /// The data size the header declares, or `nil` when the header does not say
    /// (a streamed zip entry). The actual data may differ in a damaged or hostile archive.
    public let size: Int64?
    /// The permission bits (`0o7777` at most), e.g. `0o644`.
    public let mode: UInt32
    /// The target of a symbolic or hard link; `nil` for other entries.
    public let linkTarget: String?
    /// The modification time the header records, if any.
    public let modificationTime: Int64?
    /// A description of the file type for messages ("character device", "fifo", ...).
    let typeDescription: String

    /// `path (type, size)`.
    public var description: String {
        "\(path) (\(typeDescription)\(size.map { ", \($0) bytes" } ?? ""))"
    }
}

extension ArchiveEntry {
    /// Reads the header fields of a libarchive entry.
    init(_ entry: OpaquePointer) {
        let path = ArchiveEntry.string(archive_entry_pathname_utf8(entry))
            ?? ArchiveEntry.string(archive_entry_pathname(entry)) ?? ""
        let hardlink = ArchiveEntry.string(archive_entry_hardlink_utf8(entry))
            ?? ArchiveEntry.string(archive_entry_hardlink(entry))
        let symlink = ArchiveEntry.string(archive_entry_symlink_utf8(entry))
            ?? ArchiveEntry.string(archive_entry_symlink(entry))
        let fileType = UInt32(archive_entry_filetype(entry))
        let type: EntryType
        let description: String
        if let hardlink, !hardlink.isEmpty {
            (type, description) = (.hardlink, "hard link to \(hardlink)")
        } else {
            switch fileType {
            case LibArchive.FileType.regular: (type, description) = (.file, "file")
            case LibArchive.FileType.directory: (type, description) = (.directory, "directory")
            case LibArchive.FileType.symlink: (type, description) = (.symlink, "symbolic link to \(symlink ?? "")")
            case LibArchive.FileType.characterDevice: (type, description) = (.other, "character device")
            case LibArchive.FileType.blockDevice: (type, description) = (.other, "block device")
            case LibArchive.FileType.fifo: (type, description) = (.other, "fifo")
            case LibArchive.FileType.socket: (type, description) = (.other, "socket")
            default: (type, description) = (.other, "entry of unknown type")
            }
        }
        self.path = path
        self.type = type
        self.typeDescription = description
        self.size = archive_entry_size_is_set(entry) != 0 ? Int64(archive_entry_size(entry)) : nil
        self.mode = UInt32(archive_entry_perm(entry)) & 0o7777
        self.linkTarget = type == .hardlink ? hardlink : (type == .symlink ? symlink : nil)
        self.modificationTime = archive_entry_mtime_is_set(entry) != 0 ? Int64(archive_entry_mtime(entry)) : nil
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map(LibArchive.string)
    }
}
