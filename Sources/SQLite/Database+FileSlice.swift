import Foundation
internal import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Database {
    /// Opens, read-only, a database whose bytes lie at `offset..<offset + length` inside the
    /// file at `path` — a stored (uncompressed) zip entry, say — reading them in place instead
    /// of copying them out to a file of their own.
    ///
    /// The bytes must not change while the connection is open (SQLite takes no locks and keeps
    /// no journal: the database is opened `immutable`). Reads past `length` see zeros and fail
    /// as a short read, as at the end of a file.
    ///
    /// - Throws: ``DatabaseError`` when the file can't be opened (`cantOpen`) or the slice is
    ///   not a database (`notADatabase`), as ``init(path:mode:busyTimeout:)``.
    public convenience init(readOnlySliceOf path: String, offset: Int64, length: Int64) throws(DatabaseError) {
        guard offset >= 0, length >= 0, FileSliceVFS.isRegistered else {
            throw DatabaseError(extendedCode: SQLITE_CANTOPEN, message: "cannot open a slice of \(path)")
        }
        let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        try self.init(path: "file:\(escaped)?vfs=\(FileSliceVFS.name)&immutable=1&offset=\(offset)&length=\(length)",
                      mode: .readOnly)
    }
}

/// The SQLite VFS behind ``Database/init(readOnlySliceOf:offset:length:)``: the default VFS
/// for everything but main database files, which it opens as a read-only byte range (the
/// `offset` and `length` URI parameters) of the named file.
enum FileSliceVFS {
    static let name = "sampledeck-file-slice"

    // Extended result codes are macros Swift cannot import: SQLITE_IOERR | (n << 8).
    static let ioErrorRead: Int32 = SQLITE_IOERR | (1 << 8)
    static let ioErrorShortRead: Int32 = SQLITE_IOERR | (2 << 8)
    static let ioErrorFstat: Int32 = SQLITE_IOERR | (7 << 8)

    /// What follows the `sqlite3_file` header of a slice: the descriptor, the slice's start
    /// and its length.
    struct Slice {
        var descriptor: Int32
        var offset: Int64
        var length: Int64
    }

    /// Where ``Slice`` starts inside the file structure SQLite allocates.
    static let sliceOffset = (MemoryLayout<sqlite3_file>.size + MemoryLayout<Slice>.alignment - 1)
        / MemoryLayout<Slice>.alignment * MemoryLayout<Slice>.alignment

    /// Registers the VFS once per process (not as the default); false if SQLite refused it.
    static let isRegistered: Bool = {
        guard let base = sqlite3_vfs_find(nil) else { return false }
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: base.pointee)
        vfs.pointee.pNext = nil
        guard let copiedName = strdup(name) else { return false }
        vfs.pointee.zName = UnsafePointer(copiedName)
        vfs.pointee.szOsFile = max(base.pointee.szOsFile, Int32(sliceOffset + MemoryLayout<Slice>.size))
        vfs.pointee.xOpen = { vfs, name, file, flags, outFlags in
            guard vfs != nil, let file, let base = sqlite3_vfs_find(nil), let openDefault = base.pointee.xOpen else {
                return SQLITE_CANTOPEN
            }
            // Temporary files (sorts, statement journals) are the default VFS's.
            guard flags & SQLITE_OPEN_MAIN_DB != 0, let name else {
                return openDefault(base, name, file, flags, outFlags)
            }
            file.pointee.pMethods = nil
            let offset = sqlite3_uri_int64(name, "offset", -1), length = sqlite3_uri_int64(name, "length", -1)
            guard offset >= 0, length >= 0, flags & SQLITE_OPEN_READONLY != 0 else { return SQLITE_CANTOPEN }
            let descriptor = open(name, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return SQLITE_CANTOPEN }
            slice(file).initialize(to: Slice(descriptor: descriptor, offset: offset, length: length))
            file.pointee.pMethods = UnsafePointer(methods)
            outFlags?.pointee = SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB
            return SQLITE_OK
        }
        return sqlite3_vfs_register(vfs, 0) == SQLITE_OK
    }()

    static func slice(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<Slice> {
        (UnsafeMutableRawPointer(file) + sliceOffset).assumingMemoryBound(to: Slice.self)
    }

    /// The methods of an open slice (version 1: no shared memory, no memory mapping).
    nonisolated(unsafe) static let methods: UnsafeMutablePointer<sqlite3_io_methods> = {
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        var m = sqlite3_io_methods()
        m.iVersion = 1
        m.xClose = { file in
            guard let file else { return SQLITE_OK }
            close(FileSliceVFS.slice(file).pointee.descriptor)
            file.pointee.pMethods = nil
            return SQLITE_OK
        }
        m.xRead = { file, buffer, amount, offset in
            guard let file, let buffer, amount >= 0 else { return FileSliceVFS.ioErrorRead }
            let slice = FileSliceVFS.slice(file).pointee
            let wanted = Int64(amount)
            let available = max(0, min(wanted, slice.length - offset))
            var done: Int64 = 0
            while done < available {
                let count = pread(slice.descriptor, buffer + Int(done), Int(available - done), off_t(slice.offset + offset + done))
                if count < 0 {
                    if errno == EINTR { continue }
                    return FileSliceVFS.ioErrorRead
                }
                if count == 0 { break }
                done += Int64(count)
            }
            guard done == wanted else {
                // SQLite expects the rest zeroed on a short read.
                memset(buffer + Int(done), 0, Int(wanted - done))
                return FileSliceVFS.ioErrorShortRead
            }
            return SQLITE_OK
        }
        m.xWrite = { _, _, _, _ in SQLITE_READONLY }
        m.xTruncate = { _, _ in SQLITE_READONLY }
        m.xSync = { _, _ in SQLITE_OK }
        m.xFileSize = { file, size in
            guard let file, let size else { return FileSliceVFS.ioErrorFstat }
            size.pointee = FileSliceVFS.slice(file).pointee.length
            return SQLITE_OK
        }
        m.xLock = { _, _ in SQLITE_OK }
        m.xUnlock = { _, _ in SQLITE_OK }
        m.xCheckReservedLock = { _, result in
            result?.pointee = 0
            return SQLITE_OK
        }
        m.xFileControl = { _, _, _ in SQLITE_NOTFOUND }
        m.xSectorSize = { _ in 4096 }
        m.xDeviceCharacteristics = { _ in SQLITE_IOCAP_IMMUTABLE }
        methods.initialize(to: m)
        return methods
    }()
}
