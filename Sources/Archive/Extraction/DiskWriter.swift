internal import CArchive
import Foundation

/// Creates the admitted entries of an archive under a fresh staging directory.
///
/// Two implementations: libarchive's disk writer with its security flags (the normal one,
/// needing the thread's working directory to be the staging directory), and a writer built
/// on `openat(2)` relative to a directory descriptor (used when the system forbids giving a
/// thread its own working directory, as container sandboxes may).
protocol DiskWriter: AnyObject {
    /// Creates a directory (and missing parents).
    func makeDirectory(_ entry: EntryPolicy.Admitted) throws
    /// Creates a file (and missing parents) and fills it from the reader's current entry.
    func writeFile(_ entry: EntryPolicy.Admitted, from reader: ArchiveReader) throws
}

/// libarchive's `archive_write_disk` with `SECURE_NODOTDOT`, `SECURE_SYMLINKS`,
/// `SECURE_NOABSOLUTEPATHS` and `NO_OVERWRITE`, writing names relative to the working directory.
final class LibArchiveDiskWriter: DiskWriter {
    static let flags: Int32 = ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_SYMLINKS
        | ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS | ARCHIVE_EXTRACT_NO_OVERWRITE

    private let disk: OpaquePointer
    private let entry: OpaquePointer
    private let archivePath: String

    init(archivePath: String) throws {
        self.archivePath = archivePath
        guard let disk = archive_write_disk_new() else {
            throw ArchiveError(.io, path: archivePath, reason: LibArchive.allocationFailure("a disk writer"))
        }
        guard let entry = archive_entry_new() else {
            archive_write_free(disk)
            throw ArchiveError(.io, path: archivePath, reason: LibArchive.allocationFailure("an entry"))
        }
        self.disk = disk
        self.entry = entry
        do {
            try LibArchive.check(archive_write_disk_set_options(disk, Self.flags), disk, path: archivePath,
                                 doing: "cannot set the extraction options", kind: .io)
        } catch {
            archive_write_free(disk)
            archive_entry_free(entry)
            throw error
        }
    }

    deinit {
        archive_write_free(disk)
        archive_entry_free(entry)
    }

    func makeDirectory(_ admitted: EntryPolicy.Admitted) throws {
        try writeHeader(admitted, type: LibArchive.FileType.directory, size: 0)
        try finishEntry(admitted)
    }

    func writeFile(_ admitted: EntryPolicy.Admitted, from reader: ArchiveReader) throws {
        try writeHeader(admitted, type: LibArchive.FileType.regular, size: admitted.size)
        try reader.forEachBlock { block, offset in
            guard let base = block.baseAddress else { return }
            let written = archive_write_data_block(disk, base, block.count, offset)
            guard written == ARCHIVE_OK else {
                throw LibArchive.error(disk, path: archivePath, entry: admitted.name, doing: "cannot write", kind: .io)
            }
        }
        try finishEntry(admitted)
    }

    private func writeHeader(_ admitted: EntryPolicy.Admitted, type: UInt32, size: Int64?) throws {
        archive_entry_clear(entry)
        archive_entry_set_pathname_utf8(entry, admitted.name)
        archive_entry_set_filetype(entry, type)
        archive_entry_set_perm(entry, type == LibArchive.FileType.directory ? 0o755 : 0o644)
        if let size { archive_entry_set_size(entry, size) }
        let code = LibArchive.withUTF8Names { archive_write_header(disk, entry) }
        guard code == ARCHIVE_OK else {
            // A refusal by libarchive's own security checks is about the entry, not the disk.
            let kind: ArchiveError.Kind = LibArchive.isSystemError(disk) ? .io : .unsafeEntry(name: admitted.name)
            throw LibArchive.error(disk, path: archivePath, entry: admitted.name, doing: "cannot create", kind: kind)
        }
    }

    private func finishEntry(_ admitted: EntryPolicy.Admitted) throws {
        guard archive_write_finish_entry(disk) == ARCHIVE_OK else {
            throw LibArchive.error(disk, path: archivePath, entry: admitted.name, doing: "cannot finish", kind: .io)
        }
    }
}

/// A writer that resolves every name component by component with `openat(2)` and
/// `O_NOFOLLOW` from a directory descriptor, creating files with `O_EXCL`: it can neither
/// follow a link nor replace anything.
final class DescriptorDiskWriter: DiskWriter {
    private let root: Int32
    private let rootPath: String

    init(root url: URL) throws {
        rootPath = url.path
        root = open(url.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard root >= 0 else {
            throw ArchiveError(.io, path: url.path, reason: "cannot open: \(LibArchive.describe(errno: errno))")
        }
    }

    deinit { close(root) }

    func makeDirectory(_ admitted: EntryPolicy.Admitted) throws {
        let descriptor = try openDirectory(admitted.components, create: true, entry: admitted.name)
        if descriptor != root { close(descriptor) }
    }

    func writeFile(_ admitted: EntryPolicy.Admitted, from reader: ArchiveReader) throws {
        let parent = try openDirectory(admitted.components.dropLast(), create: true, entry: admitted.name)
        defer { if parent != root { close(parent) } }
        guard let last = admitted.components.last else { return }
        let file = openat(parent, String(last), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw failure(admitted.name, "cannot create") }
        defer { close(file) }
        try reader.copyData(toDescriptor: file, path: rootPath + "/" + admitted.name)
    }

    /// Opens (creating if asked) the directory named by `components` below the root.
    private func openDirectory<C: Collection<Substring>>(_ components: C, create: Bool, entry: String) throws -> Int32 {
        var current = root
        for component in components {
            let name = String(component)
            if create, mkdirat(current, name, 0o755) != 0, errno != EEXIST {
                let error = failure(entry, "cannot create the directory '\(name)'")
                if current != root { close(current) }
                throw error
            }
            let next = openat(current, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let openError = errno
            if current != root { close(current) }
            guard next >= 0 else {
                errno = openError
                throw failure(entry, "cannot open the directory '\(name)'")
            }
            current = next
        }
        return current
    }

    private func failure(_ entry: String, _ what: String) -> ArchiveError {
        let code = errno
        let kind: ArchiveError.Kind = (code == ELOOP || code == ENOTDIR || code == EEXIST) ? .unsafeEntry(name: entry) : .io
        return ArchiveError(kind, path: rootPath, entry: entry, reason: "\(what): \(LibArchive.describe(errno: code))")
    }
}
