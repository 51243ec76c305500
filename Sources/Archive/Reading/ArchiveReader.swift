internal import CArchive
import Foundation

/// Reads an archive sequentially: entry headers one after the other, and the data of the
/// current entry, within ``ArchiveLimits``.
///
/// Reads zip, tar (ustar, pax, GNU), cpio and 7-Zip, uncompressed or compressed with gzip,
/// bzip2, xz, lzma, zstd, lz4 or compress. Text formats such as mtree, whose entries refer
/// to files on *this* machine, and filters that run external programs are deliberately not
/// enabled: an archive from a stranger can make the reader touch nothing but itself.
///
/// ```swift
/// let reader = try ArchiveReader(url: apkg)
/// while let entry = try reader.nextEntry() {
///     if entry.path == "collection.anki21b" { compressed = try reader.readData() }
/// }
/// ```
///
/// Limits are enforced as the archive is read: ``nextEntry()`` throws once there are too
/// many entries or the declared sizes are too large, ``readData()`` and
/// ``copyData(to:)`` once the bytes actually produced are. Errors are
/// ``ArchiveError``s of kind `.malformed`, `.limitExceeded` or `.io`.
///
/// Not thread-safe: use one reader from one thread at a time.
public final class ArchiveReader {
    /// The limits this reader enforces.
    public let limits: ArchiveLimits

    private let archive: OpaquePointer
    /// What error messages call the archive.
    let displayPath: String
    /// The archive's size in bytes when known (files and memory), else `nil` (streams).
    private let sourceSize: Int64?
    /// A private copy of in-memory archive data, alive as long as the reader.
    private var memory: UnsafeMutableRawBufferPointer?

    private var state: State = .beforeFirstEntry
    private(set) var entryCount = 0
    private var declaredTotal: Int64 = 0
    private var producedTotal: Int64 = 0
    private var current: ArchiveEntry?
    private var currentProduced: Int64 = 0
    /// Called after each block of entry data with the bytes of data produced so far, over all
    /// entries: for a progress display.
    var onProduced: ((Int64) -> Void)?

    private enum State { case beforeFirstEntry, inEntry, atEnd, failed }

    /// Opens the archive file at `url`.
    ///
    /// Zips are read through their central directory (which lets the reader seek).
    /// - Throws: ``ArchiveError`` of kind `.io` if the file cannot be opened, `.malformed`
    ///   if it is not an archive this reader knows.
    public convenience init(url: URL, limits: ArchiveLimits = .default) throws {
        let path = url.path
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw ArchiveError(.io, path: path, reason: "cannot open: \(LibArchive.describe(errno: errno))")
        }
        guard (status.st_mode & S_IFMT) != S_IFDIR else {
            throw ArchiveError(.io, path: path, reason: "is a directory, not an archive")
        }
        let size: Int64? = (status.st_mode & S_IFMT) == S_IFREG ? Int64(status.st_size) : nil
        try self.init(displayPath: path, sourceSize: size, limits: limits) { archive in
            archive_read_open_filename(archive, path, LibArchive.chunkSize)
        }
    }

    /// Reads an archive held in memory (a copy is kept for the reader's lifetime).
    /// - Throws: ``ArchiveError`` of kind `.malformed` if it is not an archive this reader knows.
    public convenience init(data: Data, limits: ArchiveLimits = .default) throws {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        data.copyBytes(to: memory.bindMemory(to: UInt8.self), count: data.count)
        do {
            try self.init(displayPath: "(memory)", sourceSize: Int64(data.count), limits: limits) { archive in
                archive_read_open_memory(archive, memory.baseAddress, data.count)
            }
        } catch {
            memory.deallocate()
            throw error
        }
        self.memory = memory
    }

    /// Reads an archive from an open file descriptor, such as standard input (`0`), without
    /// seeking. The descriptor is not closed.
    ///
    /// Zips are then read entry by entry from their local headers, as `bsdtar` does on a pipe.
    /// - Throws: ``ArchiveError`` of kind `.malformed` if it is not an archive this reader knows.
    public convenience init(fileDescriptor: Int32, limits: ArchiveLimits = .default) throws {
        try self.init(displayPath: "-", sourceSize: nil, limits: limits) { archive in
            archive_read_open_fd(archive, fileDescriptor, LibArchive.chunkSize)
        }
    }

    private init(
        displayPath: String, sourceSize: Int64?, limits: ArchiveLimits,
        open: (OpaquePointer) -> Int32
    ) throws {
        self.displayPath = displayPath
        self.sourceSize = sourceSize
        self.limits = limits
        guard let archive = archive_read_new() else {
            throw ArchiveError(.io, path: displayPath, reason: LibArchive.allocationFailure("a reader"))
        }
        self.archive = archive
        do {
            // The name conversions libarchive sets up here capture the thread's locale.
            try LibArchive.withUTF8Names {
                try enableFormats()
                try LibArchive.check(open(archive), archive, path: displayPath, doing: "cannot read the archive")
            }
        } catch {
            state = .failed
            throw error
        }
    }

    deinit {
        archive_read_free(archive)
        memory?.deallocate()
    }

    private func enableFormats() throws {
        let a = archive
        let setups: [(String, (OpaquePointer) -> Int32)] = [
            ("zip", archive_read_support_format_zip),
            ("tar", archive_read_support_format_tar),
            ("cpio", archive_read_support_format_cpio),
            ("7-Zip", archive_read_support_format_7zip),
            ("gzip", archive_read_support_filter_gzip),
            ("bzip2", archive_read_support_filter_bzip2),
            ("xz", archive_read_support_filter_xz),
            ("lzma", archive_read_support_filter_lzma),
            ("zstd", archive_read_support_filter_zstd),
            ("lz4", archive_read_support_filter_lz4),
            ("compress", archive_read_support_filter_compress),
        ]
        for (name, setup) in setups {
            // ARCHIVE_WARN means "through an external program": not acceptable here.
            guard setup(a) == ARCHIVE_OK else {
                throw LibArchive.error(a, path: displayPath, doing: "cannot enable \(name) reading", kind: .io)
            }
        }
        // Names in zips without the UTF-8 flag are read as UTF-8, not in the C locale.
        _ = archive_read_set_format_option(a, "zip", "hdrcharset", "UTF-8")
    }

    // MARK: Headers

    /// Moves to the next entry and returns its header, or `nil` at the end of the archive.
    ///
    /// Any unread data of the previous entry is skipped.
    /// - Throws: ``ArchiveError`` of kind `.malformed` for a damaged or truncated archive,
    ///   `.limitExceeded` once the entry count, a declared entry size, the declared total
    ///   or (for a file) the declared expansion ratio goes past ``limits``.
    public func nextEntry() throws -> ArchiveEntry? {
        switch state {
        case .atEnd: return nil
        case .failed:
            throw ArchiveError(.invalidArgument, path: displayPath, reason: "an earlier read failed")
        case .beforeFirstEntry, .inEntry: break
        }
        var header: OpaquePointer?
        let code = LibArchive.withUTF8Names { archive_read_next_header(archive, &header) }
        if code == ARCHIVE_EOF {
            state = .atEnd
            current = nil
            return nil
        }
        guard code == ARCHIVE_OK || code == ARCHIVE_WARN, let header else {
            throw fail(LibArchive.error(archive, path: displayPath, entry: current?.path, doing: current == nil
                ? "cannot read the archive" : "cannot read on past this entry"))
        }
        let entry = LibArchive.withUTF8Names { ArchiveEntry(header) }
        entryCount += 1
        current = entry
        currentProduced = 0
        state = .inEntry
        if entryCount > limits.maxEntries {
            throw fail(ArchiveError(.limitExceeded, path: displayPath, entry: entry.path,
                                    reason: "the archive has more than \(limits.maxEntries) entries"))
        }
        if let size = entry.size {
            guard size >= 0 else {
                throw fail(ArchiveError(.malformed, path: displayPath, entry: entry.path, reason: "declares a negative size"))
            }
            if size > limits.maxEntrySize {
                throw fail(ArchiveError(.limitExceeded, path: displayPath, entry: entry.path,
                                        reason: "declares \(size) bytes, more than the limit of \(limits.maxEntrySize)"))
            }
            declaredTotal = declaredTotal.addingReportingOverflow(size).partialValue
            if declaredTotal > limits.maxTotalSize || declaredTotal < 0 {
                throw fail(ArchiveError(.limitExceeded, path: displayPath, entry: entry.path,
                                        reason: "the entries declare more than \(limits.maxTotalSize) bytes in all"))
            }
            if let sourceSize, exceedsRatio(declaredTotal, base: sourceSize) {
                throw fail(ArchiveError(.limitExceeded, path: displayPath, entry: entry.path,
                                        reason: "the entries declare \(declaredTotal) bytes from a \(sourceSize)-byte archive, more than \(limits.maxExpansionRatio) times its size"))
            }
        }
        return entry
    }

    /// Reads every remaining header, skipping data: a listing of the archive.
    /// - Throws: as ``nextEntry()``.
    public func entries() throws -> [ArchiveEntry] {
        var result: [ArchiveEntry] = []
        while let entry = try nextEntry() { result.append(entry) }
        return result
    }

    // MARK: Data

    /// Reads the rest of the current entry's data into memory.
    ///
    /// Costs memory for the whole entry: for large entries prefer ``copyData(to:)``.
    /// Returns empty data for directories and links.
    /// - Throws: ``ArchiveError`` of kind `.limitExceeded` once the bytes produced pass the
    ///   entry, total or ratio limits; `.malformed` for damaged data (a bad CRC, a
    ///   truncated archive, more data than the header declares); `.invalidArgument` without
    ///   a current entry.
    public func readData() throws -> Data {
        var data = Data()
        // The declared size may lie: reserve no more than 64 MiB on its word.
        if let size = current?.size { data.reserveCapacity(Int(clamping: min(size, limits.maxEntrySize, 64 << 20))) }
        try forEachBlock { block, offset in
            if offset > Int64(data.count) { data.append(contentsOf: repeatElement(0, count: Int(offset) - data.count)) }
            data.append(block.assumingMemoryBound(to: UInt8.self))
        }
        return data
    }

    /// Streams the rest of the current entry's data into a new file at `file` (created or
    /// truncated, mode `0644`), in the blocks libarchive decompresses, without holding the
    /// entry in memory. A failed copy removes the file.
    /// - Throws: as ``readData()``, and `.io` if the file cannot be written.
    public func copyData(to file: URL) throws {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ArchiveError(.io, path: file.path, reason: "cannot create: \(LibArchive.describe(errno: errno))")
        }
        do {
            try copyData(toDescriptor: descriptor, path: file.path)
            guard close(descriptor) == 0 else {
                throw ArchiveError(.io, path: file.path, reason: "cannot write: \(LibArchive.describe(errno: errno))")
            }
        } catch {
            close(descriptor)
            unlink(file.path)
            throw error
        }
    }

    /// Reads every remaining file entry into memory, keyed by its name as stored.
    ///
    /// Meant for small archives (an Anki package's collection and media list); directories
    /// are skipped. Memory is bounded by ``limits``' `maxTotalSize`.
    /// - Throws: ``ArchiveError`` of kind `.malformed` if two file entries have the same name,
    ///   `.unsafeEntry` for a link or special file, and as ``readData()``.
    public func readAllFiles() throws -> [String: Data] {
        var files: [String: Data] = [:]
        while let entry = try nextEntry() {
            switch entry.type {
            case .directory: continue
            case .file: break
            case .symlink, .hardlink, .other:
                throw ArchiveError(.unsafeEntry(name: entry.path), path: displayPath, entry: entry.path,
                                   reason: "is a \(entry.typeDescription), not a file")
            }
            guard files[entry.path] == nil else {
                throw ArchiveError(.malformed, path: displayPath, entry: entry.path, reason: "appears twice in the archive")
            }
            files[entry.path] = try readData()
        }
        return files
    }

    // MARK: Internals

    /// Writes the current entry's data to an open descriptor, seeking over holes.
    func copyData(toDescriptor descriptor: Int32, path: String) throws {
        var end: Int64 = 0
        try forEachBlock { block, offset in
            var written = 0
            while written < block.count {
                guard let base = block.baseAddress else { return }
                let count = pwrite(descriptor, base + written, block.count - written, off_t(offset) + off_t(written))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw ArchiveError(.io, path: path, reason: "cannot write: \(LibArchive.describe(errno: errno))")
                }
                written += count
            }
            end = max(end, offset + Int64(block.count))
        }
        if let size = current?.size, size > end, ftruncate(descriptor, off_t(size)) != 0 {
            throw ArchiveError(.io, path: path, reason: "cannot write: \(LibArchive.describe(errno: errno))")
        }
    }

    /// Calls `body` with each block of the current entry's data and its offset in the entry,
    /// enforcing the limits on the bytes actually produced.
    func forEachBlock(_ body: (UnsafeRawBufferPointer, Int64) throws -> Void) throws {
        guard state == .inEntry, let entry = current else {
            throw ArchiveError(.invalidArgument, path: displayPath, reason: "there is no current entry to read")
        }
        while true {
            var buffer: UnsafeRawPointer?
            var size = 0
            var offset: la_int64_t = 0
            let code = archive_read_data_block(archive, &buffer, &size, &offset)
            if code == ARCHIVE_EOF { return }
            // On the data path a warning is damage, not an oddity: libarchive's zip reader (3.6.2,
            // archive_read_format_zip_read_data) reports a CRC-32 mismatch ("ZIP bad CRC") and
            // compressed or uncompressed sizes that disagree with the header as ARCHIVE_WARN once
            // the entry's data ends, and the 7-Zip reader its bad CRC the same way.
            if code == ARCHIVE_WARN {
                throw fail(ArchiveError(.malformed, path: displayPath, entry: entry.path,
                                        reason: "is damaged: its data fails its checksum or size check (\(LibArchive.message(archive)))"))
            }
            guard code == ARCHIVE_OK else {
                throw fail(LibArchive.error(archive, path: displayPath, entry: entry.path, doing: "cannot read the data"))
            }
            guard size > 0, let buffer else { continue }
            // The offset comes from the archive (a sparse entry's map): near Int64.max the sum would trap.
            let (blockEnd, overflow) = Int64(offset).addingReportingOverflow(Int64(size))
            guard offset >= 0, !overflow, blockEnd >= currentProduced else {
                throw fail(ArchiveError(.malformed, path: displayPath, entry: entry.path, reason: "has data blocks out of order"))
            }
            let added = blockEnd - currentProduced
            currentProduced = blockEnd
            producedTotal += added
            try checkProduced(entry)
            try body(UnsafeRawBufferPointer(start: buffer, count: size), Int64(offset))
            onProduced?(producedTotal)
        }
    }

    private func checkProduced(_ entry: ArchiveEntry) throws {
        if let size = entry.size, currentProduced > size {
            throw fail(ArchiveError(.malformed, path: displayPath, entry: entry.path,
                                    reason: "holds more data than the \(size) bytes its header declares"))
        }
        if currentProduced > limits.maxEntrySize {
            throw fail(ArchiveError(.limitExceeded, path: displayPath, entry: entry.path,
                                    reason: "holds more than the limit of \(limits.maxEntrySize) bytes"))
        }
        if producedTotal > limits.maxTotalSize {
            throw fail(ArchiveError(.limitExceeded, path: displayPath, entry: entry.path,
                                    reason: "the entries hold more than \(limits.maxTotalSize) bytes in all"))
        }
        let base = sourceSize ?? Int64(archive_filter_bytes(archive, -1))
        if exceedsRatio(producedTotal, base: base) {
            throw fail(ArchiveError(.limitExceeded, path: displayPath, entry: entry.path,
                                    reason: "expands to more than \(limits.maxExpansionRatio) times the archive's size (\(producedTotal) bytes from \(base))"))
        }
    }

    private func exceedsRatio(_ total: Int64, base: Int64) -> Bool {
        guard total > limits.expansionRatioThreshold else { return false }
        let (allowed, overflow) = max(base, 1).multipliedReportingOverflow(by: limits.maxExpansionRatio)
        return !overflow && total > allowed
    }

    /// Marks the reader unusable (libarchive's state is undefined after most errors).
    private func fail(_ error: ArchiveError) -> ArchiveError {
        state = .failed
        return error
    }
}
