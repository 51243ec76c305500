import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A hidden temporary file beside its destination, published by ``publish(policy:)`` once
/// complete: the one way outputs, manifests and media files are written.
///
/// The file is created with `mkstemp` as `.<name>.partial-<pid>-XXXXXX` in the destination's
/// folder (so publishing is a rename or link on one file system), registered with
/// ``CleanupRegistry`` (removed if the process is killed by SIGINT, SIGTERM, SIGHUP or
/// SIGPIPE), and removed by ``discard()`` or `deinit` unless published. A leftover of a
/// process killed otherwise (SIGKILL) is swept by the next run (``Leftovers``).
///
/// ```swift
/// let file = try TemporaryFile(beside: "French.apkg")
/// try file.write(bytes)
/// try file.publish()          // exactly one of two writers wins; the other gets `.exists`
/// ```
public final class TemporaryFile {
    /// The temporary file's path.
    public let path: String
    /// Where ``publish(policy:)`` puts it.
    public let destination: String
    /// The open descriptor (write only), -1 once closed.
    public private(set) var descriptor: Int32
    private var token: CleanupRegistry.Token?
    private var isFinished = false

    /// Creates the temporary file (mode `mode`).
    /// - Throws: ``FileSafetyError`` `.missing` when the folder is missing, `.system` when it
    ///   can't be written (`EACCES`, `EROFS`…).
    public init(beside destination: String, mode: mode_t = 0o644) throws(FileSafetyError) {
        self.destination = destination
        let folder = (destination as NSString).deletingLastPathComponent
        let name = (destination as NSString).lastPathComponent
        let base = (folder.isEmpty ? "." : folder) + "/" + TemporaryName.prefix(for: name, purpose: .partial)
        let (created, fd, guardToken) = TemporaryName.create(base) { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard fd >= 0 else {
            let number = errno
            if number == ENOENT || number == ENOTDIR {
                throw FileSafetyError(.missing, path: destination, reason: "cannot create the file: the folder \(folder.isEmpty ? "." : folder) does not exist")
            }
            throw FileSafetyError.system(number, path: destination, doing: "cannot create the file")
        }
        fchmod(fd, mode)
        descriptor = fd
        path = created
        token = guardToken
    }

    deinit { discard() }

    /// Writes all of `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FileSafetyError) {
        let failure = writeAll(bytes)
        if failure != 0 { throw FileSafetyError.system(failure, path: destination, doing: "cannot write") }
    }

    /// Writes all of `data`.
    public func write(_ data: Data) throws(FileSafetyError) {
        let failure = data.withUnsafeBytes { writeAll($0) }
        if failure != 0 { throw FileSafetyError.system(failure, path: destination, doing: "cannot write") }
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: [UInt8]) throws(FileSafetyError) {
        let failure = bytes.withUnsafeBytes { writeAll($0) }
        if failure != 0 { throw FileSafetyError.system(failure, path: destination, doing: "cannot write") }
    }

    /// Writes everything; 0, or the errno of the failure.
    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard descriptor >= 0 else { return EBADF }
        guard let base = bytes.baseAddress else { return 0 }
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += count
        }
        return 0
    }

    /// Syncs and closes the file, and moves it to ``destination``: with
    /// ``OverwritePolicy/never`` only if nothing is there (see ``Publisher``).
    /// - Parameter sync: `fsync` the file first (skip for throwaway copies).
    /// - Throws: ``FileSafetyError`` `.exists` (the temporary is then removed), `.system`.
    public func publish(policy: OverwritePolicy = .never, sync: Bool = true) throws(FileSafetyError) {
        guard !isFinished, descriptor >= 0 else { throw FileSafetyError(.system(EBADF), path: destination, reason: "already closed") }
        if sync, fsync(descriptor) != 0 {
            let number = errno
            discard()
            throw FileSafetyError.system(number, path: destination, doing: "cannot write")
        }
        guard close(descriptor) == 0 else {
            let number = errno
            descriptor = -1
            discard()
            throw FileSafetyError.system(number, path: destination, doing: "cannot write")
        }
        descriptor = -1
        do {
            try Publisher.publishFile(path, at: destination, policy: policy)
        } catch {
            discard()
            throw error
        }
        isFinished = true
        CleanupRegistry.unregister(token)
        token = nil
    }

    /// Closes and removes the temporary file (nothing once published). Idempotent.
    public func discard() {
        guard !isFinished else { return }
        isFinished = true
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(path)
        CleanupRegistry.unregister(token)
        token = nil
    }
}

/// A private staging folder (mode 0700) named `.<name>.staging-<pid>-XXXXXX`, registered with
/// ``CleanupRegistry`` and removed, with what is in it, by ``remove()`` (after its contents
/// were moved out, that removes what is left).
public final class StagingDirectory: Sendable {
    /// The folder's path.
    public let path: String
    private let token: CleanupRegistry.Token?

    /// Creates the folder inside `parent`, named after `name` (the output it prepares).
    /// - Throws: ``FileSafetyError`` `.missing` when `parent` is missing, `.system`.
    public init(in parent: String, for name: String) throws(FileSafetyError) {
        let folder = parent.isEmpty ? "." : parent
        let (created, result, guardToken) = TemporaryName.create(folder + "/" + TemporaryName.prefix(for: name, purpose: .staging)) {
            mkdir($0, 0o700)
        }
        guard result >= 0 else {
            let number = errno
            if number == ENOENT || number == ENOTDIR {
                throw FileSafetyError(.missing, path: folder, reason: "no such folder")
            }
            throw FileSafetyError.system(number, path: folder, doing: "cannot create a temporary folder")
        }
        path = created
        token = guardToken
    }

    /// The folder as a URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// Stops guarding the folder and leaves it where it is (what it holds must outlive the
    /// process: a session's unsaved work after a failed save).
    public func keep() {
        CleanupRegistry.unregister(token)
    }

    /// Removes the folder and everything in it (links are removed, never followed). Idempotent.
    public func remove() {
        // FileManager removes links, never what they point to.
        if existsWithoutFollowing(path) { try? FileManager.default.removeItem(atPath: path) }
        CleanupRegistry.unregister(token)
    }
}

func existsWithoutFollowing(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0
}

/// The names temporaries get, so that a later run can tell its own leftovers from anything else.
public enum TemporaryName {
    /// What a temporary is for.
    public enum Purpose: String, Sendable, CaseIterable {
        /// A file being written (`.name.partial-<pid>-XXXXXX`).
        case partial
        /// A folder being filled (`.name.staging-<pid>-XXXXXX`).
        case staging
    }

    /// `.<name>.<purpose>-<pid>-`, with `name` cut to 180 bytes.
    public static func prefix(for name: String, purpose: Purpose) -> String {
        var base = name
        while base.utf8.count > 180 { base.removeLast() }
        return ".\(base).\(purpose.rawValue)-\(getpid())-"
    }

    /// Creates a temporary named `base` + 6 random letters and digits with `make` (`open` with
    /// `O_EXCL`, `mkdir`: -1 and `errno` when it fails), trying other names while the name is
    /// taken. The name is registered with ``CleanupRegistry`` before it is created, so a signal
    /// at any moment, even between the two, leaves nothing (removing a name not yet made is
    /// harmless), and created through ``CleanupRegistry/publishing(_:)``, so it is never made
    /// after the handler's last look. Returns the path, what `make` returned (-1 with `errno` set on failure) and
    /// the registration.
    static func create(_ base: String, _ make: (String) -> Int32) -> (path: String, result: Int32, token: CleanupRegistry.Token?) {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        var number: Int32 = EEXIST
        for _ in 0..<100 {
            let path = base + String((0..<6).map { _ in letters[Int.random(in: 0..<letters.count, using: &generator)] })
            let token = CleanupRegistry.register(path)
            // A guarded call: once a signal is being handled no creation starts (this thread
            // waits to be ended), and the handler waits for one under way on another thread.
            let result = CleanupRegistry.publishing { make(path) }
            if result >= 0 { return (path, result, token) }
            number = errno
            CleanupRegistry.unregister(token)
            guard number == EEXIST else { break }
        }
        errno = number
        return (base, -1, nil)
    }

    /// The purpose, process id and base name (the `<name>` of ``prefix(for:purpose:)``) of a
    /// temporary's name, or nil for any other name.
    public static func parse(_ name: String) -> (purpose: Purpose, pid: Int32, base: String)? {
        guard name.hasPrefix("."), name.utf8.count > 8 else { return nil }
        let random = name.suffix(6)
        guard random.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }) else { return nil }
        let rest = name.dropLast(6)
        guard rest.hasSuffix("-") else { return nil }
        let withPid = rest.dropLast()
        guard let dash = withPid.lastIndex(of: "-") else { return nil }
        let digits = withPid[withPid.index(after: dash)...]
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy(\.isASCII), let pid = Int32(digits), pid > 0 else { return nil }
        let head = withPid[..<dash]
        for purpose in Purpose.allCases where head.hasSuffix("." + purpose.rawValue) && head.count > purpose.rawValue.count + 2 {
            return (purpose, pid, String(head.dropFirst().dropLast(purpose.rawValue.count + 1)))
        }
        return nil
    }
}

/// Sweeping what killed runs left: temporaries named by ``TemporaryName`` whose process is gone.
public enum Leftovers {
    /// A leftover this old is removed even if a process with its id runs (ids are reused).
    public static let safeAge: TimeInterval = 24 * 60 * 60

    /// Removes from `folder` the temporaries a killed `deck` left there: entries whose name is
    /// a ``TemporaryName`` (a file for `.partial`, a folder for `.staging`), owned by this user,
    /// whose process no longer exists (or which are older than ``safeAge``). Anything else,
    /// and the temporaries of running processes, are left alone. Returns the names removed.
    ///
    /// - Parameter bases: which temporaries to consider, by the base name they were made for
    ///   (``TemporaryName/prefix(for:purpose:)``): a command sweeps only what it makes itself
    ///   (`French.apkg` beside its output, `deck-export` in `TMPDIR`). All of them by default.
    /// A folder that can't be read is left alone (sweeping is housekeeping, never a failure).
    @discardableResult
    public static func sweep(_ folder: String, bases: (String) -> Bool = { _ in true }) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)
        } catch {
            return []
        }
        var removed: [String] = []
        let now = Date().timeIntervalSince1970
        for name in names where name.hasPrefix(".") {
            guard let (purpose, pid, base) = TemporaryName.parse(name), pid != getpid(), bases(base) else { continue }
            let path = (folder as NSString).appendingPathComponent(name)
            var status = stat()
            guard lstat(path, &status) == 0, status.st_uid == geteuid() else { continue }
            let type = FileType(mode: status.st_mode)
            guard (purpose == .partial && type == .regular) || (purpose == .staging && type == .directory) else { continue }
            let processGone = kill(pid, 0) != 0 && errno == ESRCH
            let age = now - Double(status.st_mtim.tv_sec)
            guard processGone || age > safeAge else { continue }
            do {
                // FileManager removes links inside a folder, never what they point to.
                try FileManager.default.removeItem(atPath: path)
            } catch {
                continue  // another run swept it first, or it can't be removed: not ours to fail on
            }
            removed.append(name)
        }
        return removed
    }

    /// Sweeps the system's temporary folder (`TMPDIR`, else `/tmp`) of the temporaries made
    /// for `bases` (all of ours by default).
    @discardableResult
    public static func sweepTemporaryDirectory(bases: (String) -> Bool = { _ in true }) -> [String] {
        sweep(temporaryDirectory, bases: bases)
    }

    /// Sweeps the folder an output `destination` is written in of the temporaries made for it
    /// (`.<name>.partial-…`, `.<name>.staging-…`) and of those whose base passes `also`.
    @discardableResult
    public static func sweep(besideOutput destination: String, also: (String) -> Bool = { _ in false }) -> [String] {
        // Split by hand: Foundation's path getters trap on some strings ("x/" trimmed to "x").
        var trimmed = Substring(destination)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        let folder: String
        var name: String
        if let slash = trimmed.lastIndex(of: "/") {
            folder = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
            name = String(trimmed[trimmed.index(after: slash)...])
        } else {
            folder = "."
            name = String(trimmed)
        }
        while name.utf8.count > 180 { name.removeLast() }
        return sweep(folder) { $0 == name || also($0) }
    }

    /// `TMPDIR` (when set and not empty), else `/tmp`, without a trailing slash: what
    /// `NSTemporaryDirectory()` answers on Linux, read with `getenv` (that function copies the
    /// whole environment into a dictionary first, a measurable part of a short command's start).
    public static var temporaryDirectory: String {
        guard let value = getenv("TMPDIR"), value.pointee != 0 else { return "/tmp" }
        var path = String(cString: value)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
