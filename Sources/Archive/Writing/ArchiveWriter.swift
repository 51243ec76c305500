internal import CArchive
import FileSafety
import Foundation

/// Writes an archive entry by entry, with normalised metadata, so the same input always
/// gives the same bytes.
///
/// Every entry gets the same modification time (``normalizedModificationTime``), owner and
/// group 0 with no user or group names, and mode `0644` (files) or `0755` (directories).
/// Entries appear in the order they are added. Tar formats are written as pax (POSIX)
/// tar, with extended headers only where ustar cannot hold a name; gzip headers carry no
/// timestamp.
///
/// Writing to a URL goes to a hidden temporary file beside it (``TemporaryFile``: removed on
/// SIGINT, SIGTERM, SIGHUP and SIGPIPE too), moved into place by ``finish()`` without
/// replacing anything there (``Publisher``; of two writers to one destination one wins, the
/// other gets ``ArchiveError/Kind/alreadyExists``): a failed or abandoned writer leaves
/// nothing at the destination.
///
/// ```swift
/// let writer = try ArchiveWriter(url: out, format: .zip)
/// try writer.addDirectory("Deck.sampledeck")
/// try writer.addFile("Deck.sampledeck/manifest.json", contents: manifest)
/// try writer.addFile("Deck.sampledeck/store.sqlite", contentsOf: storeURL)
/// try writer.finish()
/// ```
///
/// Not thread-safe: use one writer from one thread at a time.
public final class ArchiveWriter {
    /// How an entry's data is stored.
    public enum EntryCompression: Sendable {
        /// The format's compression: deflate for zip entries, the stream's filter for tar.
        case automatic
        /// No compression: a zip "stored" entry (Anki's `collection.anki21b`, already
        /// zstd-compressed, must be stored). Tar streams are compressed as a whole, so this
        /// changes nothing there.
        case stored
    }

    /// The modification time given to every entry: 2000-01-01T00:00:00Z, as seconds since 1970.
    ///
    /// Zip headers record it in local time (an MS-DOS date), so zips made in different time
    /// zones differ in those bytes; tar headers record UTC.
    public static let normalizedModificationTime: Int64 = 946_684_800

    private let archive: OpaquePointer
    private let entry: OpaquePointer
    private let format: ArchiveFormat
    /// What error messages call the output.
    private let displayPath: String
    private var output: Output
    private var state: State = .open
    private var names: Set<String> = []
    private var buffer: UnsafeMutableRawBufferPointer?

    private enum Output {
        /// A temporary file published at its destination by `finish()`.
        case temporary(TemporaryFile, OverwritePolicy)
        /// A file descriptor owned by this writer (a device or fifo named by the caller).
        case ownedDescriptor(Int32)
        /// A file descriptor owned by the caller.
        case borrowedDescriptor(Int32)
    }

    private enum State { case open, finished, failed }

    /// Creates an archive at `url`, published there once ``finish()`` succeeds.
    ///
    /// - Parameters:
    ///   - url: the destination; its directory must exist. A device or fifo (such as
    ///     `/dev/stdout`) is written directly instead of through a temporary file.
    ///   - format: the archive format.
    ///   - compressionLevel: the compressor's level (zip and gzip 0–9, xz 0–9, zstd 1–22);
    ///     `nil` keeps libarchive's default, the same as `bsdtar` (6 for deflate and xz, 3 for zstd).
    ///   - overwrite: ``OverwritePolicy/never`` (the default) refuses anything at `url`, a
    ///     dangling symbolic link included, now and atomically at ``finish()``.
    /// - Throws: ``ArchiveError`` of kind `.alreadyExists` when something is at `url`, `.io` if
    ///   the temporary file cannot be created, `.invalidArgument` for a level the compressor refuses.
    public convenience init(url: URL, format: ArchiveFormat, compressionLevel: Int? = nil, overwrite: OverwritePolicy = .never) throws {
        let path = url.path
        var status = stat()
        let output: Output
        if lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFCHR || (status.st_mode & S_IFMT) == S_IFIFO {
            let descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw ArchiveError(.io, path: path, reason: "cannot open for writing: \(LibArchive.describe(errno: errno))")
            }
            output = .ownedDescriptor(descriptor)
        } else {
            do {
                try Publisher.checkDestination(path, policy: overwrite)
                output = .temporary(try TemporaryFile(beside: path), overwrite)
            } catch {
                throw ArchiveError(publishing: error)
            }
        }
        try self.init(output: output, displayPath: path, format: format, compressionLevel: compressionLevel)
    }

    /// Writes an archive to an open file descriptor, such as standard output (`1`).
    ///
    /// The descriptor is not closed; nothing is written after ``finish()``. No format needs
    /// to seek, so pipes work.
    ///
    /// - Throws: ``ArchiveError`` of kind `.invalidArgument` for a level the compressor refuses.
    public convenience init(fileDescriptor: Int32, format: ArchiveFormat, compressionLevel: Int? = nil) throws {
        try self.init(output: .borrowedDescriptor(fileDescriptor), displayPath: "-", format: format,
                      compressionLevel: compressionLevel)
    }

    private init(output: Output, displayPath: String, format: ArchiveFormat, compressionLevel: Int?) throws {
        self.output = output
        self.displayPath = displayPath
        self.format = format
        guard let archive = archive_write_new() else {
            Self.discard(output)
            throw ArchiveError(.io, path: displayPath, reason: LibArchive.allocationFailure("a writer"))
        }
        guard let entry = archive_entry_new() else {
            archive_write_free(archive)
            Self.discard(output)
            throw ArchiveError(.io, path: displayPath, reason: LibArchive.allocationFailure("an entry"))
        }
        self.archive = archive
        self.entry = entry
        do {
            try LibArchive.withUTF8Names {
                try configure(compressionLevel: compressionLevel)
                let descriptor: Int32
                switch output {
                case .temporary(let file, _): descriptor = file.descriptor
                case .ownedDescriptor(let fd), .borrowedDescriptor(let fd): descriptor = fd
                }
                try LibArchive.check(archive_write_open_fd(archive, descriptor), archive, path: displayPath,
                                     doing: "cannot start the archive", kind: .io)
            }
        } catch {
            state = .failed
            throw error
        }
    }

    deinit {
        if state != .finished {
            archive_write_fail(archive)
        }
        archive_write_free(archive)
        archive_entry_free(entry)
        if state != .finished { Self.discard(output) }
        buffer?.deallocate()
    }

    /// Closes what this writer owns and removes an unfinished temporary file.
    private static func discard(_ output: Output) {
        switch output {
        case .temporary(let file, _):
            file.discard()
        case .ownedDescriptor(let descriptor):
            close(descriptor)
        case .borrowedDescriptor:
            break
        }
    }

    private func configure(compressionLevel: Int?) throws {
        let a = archive
        func set(_ code: Int32, _ what: String, kind: ArchiveError.Kind = .io) throws {
            try LibArchive.check(code, a, path: displayPath, doing: what, kind: kind)
        }
        // Blocks of 64 KiB keep write(2) calls few; no padding after the last one.
        try set(archive_write_set_bytes_per_block(a, 64 << 10), "cannot set the block size")
        try set(archive_write_set_bytes_in_last_block(a, 1), "cannot set the block size")
        switch format {
        case .zip:
            try set(archive_write_set_format_zip(a), "cannot select the zip format")
            try set(archive_write_set_format_option(a, "zip", "hdrcharset", "UTF-8"), "cannot select UTF-8 names")
        case .tarGzip, .tarXz, .tarZstd:
            try set(archive_write_set_format_pax_restricted(a), "cannot select the tar format")
            try set(archive_write_set_format_option(a, "pax", "hdrcharset", "UTF-8"), "cannot select UTF-8 names")
        }
        switch format {
        case .zip:
            break
        case .tarGzip:
            try set(archive_write_add_filter_gzip(a), "cannot add gzip compression")
            // No timestamp in the gzip header: the same input gives the same bytes.
            try set(archive_write_set_filter_option(a, "gzip", "timestamp", nil), "cannot drop the gzip timestamp")
        case .tarXz:
            try set(archive_write_add_filter_xz(a), "cannot add xz compression")
        case .tarZstd:
            try set(archive_write_add_filter_zstd(a), "cannot add zstd compression")
        }
        if let compressionLevel {
            let module: String
            switch format {
            case .zip: module = "zip"
            case .tarGzip: module = "gzip"
            case .tarXz: module = "xz"
            case .tarZstd: module = "zstd"
            }
            let code = format == .zip
                ? archive_write_set_format_option(a, module, "compression-level", String(compressionLevel))
                : archive_write_set_filter_option(a, module, "compression-level", String(compressionLevel))
            try set(code, "compression level \(compressionLevel) refused for \(format.rawValue)", kind: .invalidArgument)
        }
    }

    // MARK: Adding entries

    /// Adds a directory entry (mode `0755`).
    ///
    /// Parent directories are not added implicitly; add them first if readers need them.
    /// - Throws: ``ArchiveError`` for an unsafe or duplicate name, or a write failure.
    public func addDirectory(_ path: String) throws {
        try beginEntry(path, type: LibArchive.FileType.directory, size: 0, compression: .automatic)
        try finishEntry(path)
    }

    /// Adds a file whose contents are in memory (mode `0644`).
    ///
    /// - Parameters:
    ///   - path: the entry name, `/`-separated, relative, without `..`.
    ///   - contents: the file's bytes.
    ///   - compression: `.stored` to keep a zip entry uncompressed.
    /// - Throws: ``ArchiveError`` for an unsafe or duplicate name, or a write failure.
    public func addFile(_ path: String, contents: Data, compression: EntryCompression = .automatic) throws {
        try beginEntry(path, type: LibArchive.FileType.regular, size: Int64(contents.count), compression: compression)
        try contents.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            try writeData(base, count: bytes.count, entry: path)
        }
        try finishEntry(path)
    }

    /// Adds a file by streaming it from disk in 1 MiB chunks (mode `0644`), so memory stays
    /// bounded whatever the file's size.
    ///
    /// - Parameters:
    ///   - path: the entry name, `/`-separated, relative, without `..`.
    ///   - file: the file to copy; it must not change while it is copied.
    ///   - compression: `.stored` to keep a zip entry uncompressed.
    ///   - pinned: when `file` is held unchanged only for a while (see ``PinnedFile``): it is
    ///     asked before each chunk whether to let go, the rest copied aside when it must, and
    ///     released once the entry is written (or when this call fails).
    ///   - progress: called with the number of bytes copied after each chunk.
    /// - Returns: the number of bytes copied (the file's size).
    /// - Throws: ``ArchiveError`` of kind `.io` if the file cannot be read or changes size
    ///   while it is copied, or cannot be copied aside; for an unsafe or duplicate name; for
    ///   a write failure.
    @discardableResult
    public func addFile(
        _ path: String, contentsOf file: URL, compression: EntryCompression = .automatic,
        pinned: PinnedFile? = nil, progress: ((Int64) -> Void)? = nil
    ) throws -> Int64 {
        // Never through a link, never blocking on a FIFO: only a regular file is read.
        var source: Int32
        do {
            source = try UntrustedFile.openForReading(file.path)
        } catch {
            pinned?.release()
            throw ArchiveError(.io, path: file.path, reason: error.isWrongType ? error.reason : "cannot open: \(error.reason)")
        }
        // Closing the descriptor comes before releasing the pin: the holder's locks must
        // outlast every read of the file itself.
        defer {
            close(source)
            pinned?.release()
        }
        var status = stat()
        guard fstat(source, &status) == 0 else {
            throw ArchiveError(.io, path: file.path, reason: "cannot read its size: \(LibArchive.describe(errno: errno))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw ArchiveError(.io, path: file.path, reason: "is not a regular file")
        }
        let size = Int64(status.st_size)
        try beginEntry(path, type: LibArchive.FileType.regular, size: size, compression: compression)
        let chunk = chunkBuffer()
        var copied: Int64 = 0
        while true {
            if let pinned, pinned.shouldRelease(source) {
                let rest: Int32
                do {
                    rest = try PinnedFile.copyRest(of: source, from: copied, size: size,
                                                   into: file.deletingLastPathComponent(), path: file.path)
                } catch {
                    state = .failed
                    throw error
                }
                close(source)
                source = rest
                pinned.release()
            }
            let count = read(source, chunk.baseAddress, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                let reason = "cannot read: \(LibArchive.describe(errno: errno))"
                state = .failed
                throw ArchiveError(.io, path: file.path, reason: reason)
            }
            if count == 0 { break }
            guard copied + Int64(count) <= size else { break }
            guard let base = chunk.baseAddress else { break }
            try writeData(UnsafeRawPointer(base), count: count, entry: path)
            copied += Int64(count)
            progress?(copied)
        }
        guard copied == size else {
            state = .failed
            throw ArchiveError(.io, path: file.path, reason: "the file changed size while it was archived (\(size) bytes, then \(copied))")
        }
        try finishEntry(path)
        return copied
    }

    /// Ends the archive (central directory, tar trailer, compressor flush) and, when writing
    /// to a URL, renames the temporary file to the destination.
    ///
    /// Call it exactly once; the writer can do nothing afterwards.
    /// - Throws: ``ArchiveError`` of kind `.io` if the last writes or the rename fail (the
    ///   temporary file is then removed).
    public func finish() throws {
        try requireOpen()
        guard LibArchive.withUTF8Names({ archive_write_close(archive) }) == ARCHIVE_OK else {
            state = .failed
            throw LibArchive.error(archive, path: displayPath, doing: "cannot finish the archive", kind: .io)
        }
        switch output {
        case .temporary(let file, let policy):
            output = .borrowedDescriptor(-1)
            do {
                try file.publish(policy: policy)
            } catch {
                state = .failed
                throw ArchiveError(publishing: error)
            }
        case .ownedDescriptor(let descriptor):
            close(descriptor)
            output = .borrowedDescriptor(-1)
        case .borrowedDescriptor:
            break
        }
        state = .finished
    }

    // MARK: Internals

    private func requireOpen() throws {
        switch state {
        case .open: return
        case .finished:
            throw ArchiveError(.invalidArgument, path: displayPath, reason: "the archive is already finished")
        case .failed:
            throw ArchiveError(.invalidArgument, path: displayPath, reason: "an earlier write failed; the archive is abandoned")
        }
    }

    private func beginEntry(_ path: String, type: UInt32, size: Int64, compression: EntryCompression) throws {
        try requireOpen()
        let components: [Substring]
        switch EntryName.components(of: path) {
        case .success(let parts) where !parts.isEmpty: components = parts
        case .success: throw ArchiveError(.invalidArgument, path: displayPath, entry: path, reason: "names nothing")
        case .failure(let refusal): throw ArchiveError(.invalidArgument, path: displayPath, entry: path, reason: refusal.reason)
        }
        let name = components.joined(separator: "/")
        guard names.insert(name).inserted else {
            throw ArchiveError(.invalidArgument, path: displayPath, entry: path, reason: "is already in the archive")
        }
        archive_entry_clear(entry)
        archive_entry_set_pathname_utf8(entry, name)
        archive_entry_set_filetype(entry, type)
        archive_entry_set_perm(entry, type == LibArchive.FileType.directory ? 0o755 : 0o644)
        archive_entry_set_size(entry, size)
        archive_entry_set_mtime(entry, time_t(Self.normalizedModificationTime), 0)
        archive_entry_set_uid(entry, 0)
        archive_entry_set_gid(entry, 0)
        if format == .zip {
            let code = compression == .stored
                ? archive_write_zip_set_compression_store(archive)
                : archive_write_zip_set_compression_deflate(archive)
            try LibArchive.check(code, archive, path: displayPath, entry: name, doing: "cannot select the compression")
        }
        let code = LibArchive.withUTF8Names { archive_write_header(archive, entry) }
        guard code == ARCHIVE_OK else {
            // A warning here means the name could not be stored as given: refuse it rather
            // than write something else.
            state = .failed
            throw LibArchive.error(archive, path: displayPath, entry: name, doing: "cannot write the header", kind: .io)
        }
    }

    private func writeData(_ bytes: UnsafeRawPointer, count: Int, entry name: String) throws {
        var offset = 0
        while offset < count {
            let written = archive_write_data(archive, bytes + offset, count - offset)
            guard written > 0 else {
                state = .failed
                throw LibArchive.error(archive, path: displayPath, entry: name, doing: "cannot write", kind: .io)
            }
            offset += written
        }
    }

    private func finishEntry(_ name: String) throws {
        guard archive_write_finish_entry(archive) == ARCHIVE_OK else {
            state = .failed
            throw LibArchive.error(archive, path: displayPath, entry: name, doing: "cannot finish the entry", kind: .io)
        }
    }

    private func chunkBuffer() -> UnsafeMutableRawBufferPointer {
        if let buffer { return buffer }
        let fresh = UnsafeMutableRawBufferPointer.allocate(byteCount: LibArchive.chunkSize, alignment: 16)
        buffer = fresh
        return fresh
    }
}
