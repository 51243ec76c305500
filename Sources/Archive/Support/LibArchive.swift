internal import CArchive
import Foundation

/// Small helpers over libarchive's C API: return codes, messages, strings.
enum LibArchive {
    /// The size of the chunks file data is read and written in.
    static let chunkSize = 1 << 20

    /// libarchive's file types (`AE_IFREG` ...: cast macros, so not imported into Swift).
    enum FileType {
        static let regular: UInt32 = 0o100000
        static let directory: UInt32 = 0o040000
        static let symlink: UInt32 = 0o120000
        static let characterDevice: UInt32 = 0o020000
        static let blockDevice: UInt32 = 0o060000
        static let fifo: UInt32 = 0o010000
        static let socket: UInt32 = 0o140000
    }

    /// A UTF-8 `LC_CTYPE` locale for libarchive's name conversions, or `nil` if the system has none.
    ///
    /// Swift programs run in the "C" locale, where libarchive cannot convert non-ASCII names
    /// (its pax writer even crashes on them). ``withUTF8Names(_:)`` switches only the
    /// calling thread (`uselocale`), never the process.
    nonisolated(unsafe) private static let utf8Locale: locale_t? = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)

    /// Runs `body` with the calling thread in a UTF-8 locale, then restores the thread's locale.
    static func withUTF8Names<T>(_ body: () throws -> T) rethrows -> T {
        guard let utf8Locale else { return try body() }
        let previous = uselocale(utf8Locale)
        defer { uselocale(previous) }
        return try body()
    }

    /// Decodes a C string as UTF-8, repairing invalid bytes (names from hostile archives
    /// may not be UTF-8; repaired names still go through every check).
    static func string(_ pointer: UnsafePointer<CChar>) -> String {
        String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
    }

    /// Why an `archive_*_new` call returned no object: libarchive could not be loaded (it is
    /// loaded on first use, CArchive's LibArchiveLoader.c), or there was no memory for `what`.
    static func allocationFailure(_ what: String) -> String {
        if let failure = carchive_load_failure() { return "libarchive could not be loaded: \(string(failure))" }
        return "libarchive could not allocate \(what)"
    }

    /// libarchive's message for the last error on `archive`, or a fallback.
    static func message(_ archive: OpaquePointer?, fallback: String = "unknown libarchive error") -> String {
        guard let archive, let text = archive_error_string(archive) else { return fallback }
        let message = string(text)
        return message.isEmpty ? fallback : message
    }

    /// Whether the last error on `archive` is an operating-system failure (as opposed to
    /// bad archive data).
    static func isSystemError(_ archive: OpaquePointer?) -> Bool {
        guard let archive else { return false }
        let code = archive_errno(archive)
        // ARCHIVE_ERRNO_FILE_FORMAT is EILSEQ and ARCHIVE_ERRNO_MISC is -1 (macros not imported);
        // EINVAL is ARCHIVE_ERRNO_PROGRAMMER.
        return code > 0 && code != EILSEQ && code != EINVAL
    }

    /// Builds the error for a failed libarchive call, classifying it as I/O or malformed data.
    static func error(
        _ archive: OpaquePointer?, path: String, entry: String? = nil, doing what: String,
        kind: ArchiveError.Kind? = nil
    ) -> ArchiveError {
        let kind = kind ?? (isSystemError(archive) ? .io : .malformed)
        return ArchiveError(kind, path: path, entry: entry, reason: "\(what): \(message(archive))")
    }

    /// Throws unless `code` is `ARCHIVE_OK` (or `ARCHIVE_WARN`, which libarchive uses for
    /// recoverable oddities such as an unconvertible name).
    ///
    /// For set-up and open calls only: on the data path a warning can be damage (a zip entry's
    /// bad CRC is `ARCHIVE_WARN`), which ``ArchiveReader`` refuses on its own.
    static func check(
        _ code: Int32, _ archive: OpaquePointer?, path: String, entry: String? = nil, doing what: String,
        kind: ArchiveError.Kind? = nil
    ) throws(ArchiveError) {
        guard code == ARCHIVE_OK || code == ARCHIVE_WARN else {
            throw error(archive, path: path, entry: entry, doing: what, kind: kind)
        }
    }

    /// The text of an OS error number.
    static func describe(errno code: Int32) -> String {
        String(cString: strerror(code))
    }
}
