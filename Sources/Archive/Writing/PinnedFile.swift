import Foundation

/// A file that someone else keeps unchanged only for a while, such as a database file under
/// a read lock: archived in place, without a copy, and copied aside only if its holder must
/// let go before the archiver has read it all.
///
/// Before each chunk of the file is read, the archiver asks ``PinnedFile/init(url:mustRelease:release:)``'s
/// `mustRelease` with the descriptor it reads from (so the holder can look at the locks on
/// the file). When it answers true, the archiver copies the rest of the file, from where it
/// has got to, into an unlinked temporary file beside it (a kernel copy, no data through
/// user space), calls `release`, and reads on from the copy: the archive gets the bytes the
/// file had when archiving started either way. Otherwise `release` is called as soon as the
/// file's entry is written. `release` is called exactly once, also when archiving fails or
/// the file is not in the tree.
///
/// ```swift
/// let pin = PinnedFile(url: tree.appendingPathComponent("Deck.sqlite"),
///                      mustRelease: { descriptor in writerIsWaiting(descriptor) },
///                      release: { try? db.execute("ROLLBACK") })
/// try DirectoryArchiver.archive(directory: tree, as: "Deck.sampledeck", to: out, format: .tarZstd, pinned: pin)
/// ```
///
/// Not thread-safe: the archiver calls it from the thread it archives on.
public final class PinnedFile {
    /// The file, as it is found in the tree being archived.
    public let url: URL
    private let mustRelease: (Int32) -> Bool
    private let onRelease: () -> Void
    /// Whether `release` has been called.
    public private(set) var isReleased = false

    /// Pins `url`.
    ///
    /// - Parameters:
    ///   - url: the file, inside the tree that will be archived.
    ///   - mustRelease: asked before each chunk is read, with the open descriptor of the
    ///     file; true when the holder must stop holding the file now. It should be cheap
    ///     (a system call), as it runs once per chunk (1 MiB).
    ///   - release: called once the archiver no longer reads the file itself.
    public init(url: URL, mustRelease: @escaping (Int32) -> Bool, release: @escaping () -> Void) {
        self.url = url
        self.mustRelease = mustRelease
        self.onRelease = release
    }

    /// Whether the holder needs the file back (false once released).
    func shouldRelease(_ descriptor: Int32) -> Bool {
        !isReleased && mustRelease(descriptor)
    }

    /// Calls `release` unless it has been called: the archiver does when it is done with the
    /// file; the holder may, to end the pin whatever happens (after archiving, the file is
    /// no longer read).
    public func release() {
        guard !isReleased else { return }
        isReleased = true
        onRelease()
    }

    /// Whether `file` names the pinned file.
    func matches(_ file: URL) -> Bool {
        file.standardizedFileURL.path == url.standardizedFileURL.path
    }

    /// Copies what is left of the file open on `source` (from `offset` to `size`) into an
    /// unlinked temporary file in `directory` (the same file system, so no data leaves the
    /// kernel) and returns its descriptor, positioned at its start.
    ///
    /// - Throws: ``ArchiveError`` of kind `.io` when the copy cannot be made.
    static func copyRest(of source: Int32, from offset: Int64, size: Int64, into directory: URL, path: String) throws -> Int32 {
        var template = Array("\(directory.path)/.pinned-rest-XXXXXX".utf8CString)
        let copy = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard copy >= 0 else {
            throw ArchiveError(.io, path: path, reason: "cannot make room to copy it aside: \(LibArchive.describe(errno: errno))")
        }
        template.withUnsafeBufferPointer { buffer in _ = buffer.baseAddress.map { unlink($0) } }
        _ = fcntl(copy, F_SETFD, FD_CLOEXEC)
        var position = off_t(offset)
        var remaining = max(0, size - offset)
        while remaining > 0 {
            let copied = sendfile(copy, source, &position, Int(min(remaining, 1 << 30)))
            if copied < 0, errno == EINTR { continue }
            if copied == 0 { break }  // shorter than it was: the reader reports the changed size
            guard copied > 0 else {
                let reason = LibArchive.describe(errno: errno)
                close(copy)
                throw ArchiveError(.io, path: path, reason: "cannot copy it aside: \(reason)")
            }
            remaining -= Int64(copied)
        }
        guard lseek(copy, 0, SEEK_SET) == 0 else {
            let reason = LibArchive.describe(errno: errno)
            close(copy)
            throw ArchiveError(.io, path: path, reason: "cannot copy it aside: \(reason)")
        }
        return copy
    }
}
