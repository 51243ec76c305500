import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether publishing an output may replace what is at its destination.
///
/// Every command publishes with ``never`` today; ``replace`` is the hook for a `--force` option.
public enum OverwritePolicy: Sendable, Hashable {
    /// Never replace anything, not even a dangling symbolic link: of two writers to one
    /// destination exactly one wins, the other gets ``FileSafetyError/Kind/exists``.
    case never
    /// Replace a file (or a symbolic link, not what it points to) at the destination.
    case replace
}

/// Moves finished outputs into place without replacing anything (check and move in one
/// system call, so there is no window between them).
///
/// A file is published with `link(2)` of the finished temporary to the destination, then
/// `unlink(2)` of the temporary: `link` fails with `EEXIST` when anything is at the
/// destination. Where the file system has no hard links, `renameat2(RENAME_NOREPLACE)`
/// does the same. A directory is published with `renameat2(RENAME_NOREPLACE)`; where the
/// kernel or file system lacks it, by creating the destination directory first (`mkdir`
/// fails when anything is there, so one writer wins) and renaming over that empty directory.
///
/// ```swift
/// try Publisher.checkDestination(output)          // before any work: exit 73 at once
/// // … write `temporary` …
/// try Publisher.publishFile(temporary, at: output) // atomic, never replaces
/// ```
public enum Publisher {
    /// Refuses a destination that can't be created, before any work is done: one ending in
    /// `/` or empty (``FileSafetyError/Kind/notAFileName``), and, under ``OverwritePolicy/never``,
    /// anything that exists there, a dangling symbolic link included (`.exists`). A
    /// directory is never replaced (`.wrongType`).
    /// The check is repeated atomically by the publish itself.
    public static func checkDestination(_ path: String, policy: OverwritePolicy = .never) throws(FileSafetyError) {
        guard !path.isEmpty, !path.hasSuffix("/") else {
            throw FileSafetyError(.notAFileName, path: path, reason: "is a folder name (ends in /); give the name of the file to create")
        }
        guard let found = try UntrustedFile.type(atPath: path) else { return }
        if found == .directory {
            throw FileSafetyError(.wrongType(.directory), path: path, reason: "is a directory; give the name of a file to create")
        }
        if policy == .never {
            throw FileSafetyError(.exists, path: path, reason: found == .symbolicLink && !pointsSomewhere(path)
                                  ? "already exists (a symbolic link to a missing file)" : "already exists")
        }
    }

    /// Moves the finished file `temporary` to `destination` (same file system).
    /// - Throws: ``FileSafetyError`` `.exists` when something is at `destination` (under
    ///   ``OverwritePolicy/never``); `.system` otherwise. `temporary` is left in place on failure.
    public static func publishFile(_ temporary: String, at destination: String, policy: OverwritePolicy = .never) throws(FileSafetyError) {
        if policy == .replace {
            guard CleanupRegistry.publishing({ rename(temporary, destination) }) == 0 else {
                throw FileSafetyError.system(errno, path: destination, doing: "cannot move the file into place")
            }
            syncParent(of: destination)
            return
        }
        if CleanupRegistry.publishing({ link(temporary, destination) }) == 0 {
            unlink(temporary)
            syncParent(of: destination)
            return
        }
        let number = errno
        if number == EEXIST { throw exists(destination) }
        // No hard links here (some file systems): the kernel's no-replace rename instead.
        guard [EPERM, ENOTSUP, EOPNOTSUPP, EMLINK, ENOSYS].contains(number) else {
            throw FileSafetyError.system(number, path: destination, doing: "cannot move the file into place")
        }
        try renameNoReplace(temporary, destination)
        syncParent(of: destination)
    }

    /// Moves the finished directory `staging` to `destination` (same file system), never
    /// replacing anything there.
    /// - Throws: ``FileSafetyError`` `.exists`, `.system`. `staging` is left in place on failure.
    public static func publishDirectory(_ staging: String, at destination: String) throws(FileSafetyError) {
        do {
            try renameNoReplace(staging, destination)
        } catch let error where error.errorNumber == EINVAL || error.errorNumber == ENOSYS {
            // No RENAME_NOREPLACE: claim the name with mkdir (fails if anything is there),
            // then rename over that empty directory of ours.
            guard mkdir(destination, 0o700) == 0 else {
                if errno == EEXIST { throw exists(destination) }
                throw FileSafetyError.system(errno, path: destination, doing: "cannot move the folder into place")
            }
            guard CleanupRegistry.publishing({ rename(staging, destination) }) == 0 else {
                let number = errno
                rmdir(destination)
                throw FileSafetyError.system(number, path: destination, doing: "cannot move the folder into place")
            }
        }
        syncParent(of: destination)
    }

    /// `renameat2(…, RENAME_NOREPLACE)`, looked up at run time (glibc 2.28+; Swift's Glibc
    /// module does not declare it).
    static func renameNoReplace(_ source: String, _ target: String) throws(FileSafetyError) {
        guard let call = renameat2 else { throw FileSafetyError(.system(ENOSYS), path: target, reason: "renameat2 is not available") }
        guard CleanupRegistry.publishing({ call(AT_FDCWD, source, AT_FDCWD, target, 1 /* RENAME_NOREPLACE */) }) == 0 else {
            if errno == EEXIST || errno == ENOTEMPTY { throw exists(target) }
            throw FileSafetyError.system(errno, path: target, doing: "cannot move into place")
        }
    }

    typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32

    static let renameat2: RenameAt2? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: RenameAt2.self)
    }()

    /// `fsync` of the folder holding `path`, so the new name is on disk.
    public static func syncParent(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let fd = Glibc.open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }

    private static func exists(_ path: String) -> FileSafetyError {
        FileSafetyError(.exists, path: path, reason: "already exists")
    }

    private static func pointsSomewhere(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }
}
