import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The temporary files and staging folders of this process, removed when it is ended by
/// SIGINT, SIGTERM, SIGHUP or SIGPIPE.
///
/// Code that creates a temporary registers it and unregisters it once it is published or
/// removed. ``installSignalHandlers()`` (called once at start-up by the `deck` tool) installs a
/// handler for the four signals that removes every registered path (a folder with what is
/// in it), restores the signal's default action and raises it again, so the process still
/// ends by that signal (a shell sees SIGPIPE after `| head`, 130 after Ctrl-C). A signal the
/// process inherited as ignored stays ignored.
///
/// The handler is async-signal-safe: it calls only `unlink`, `openat`, `getdents64`,
/// `unlinkat`, `close`, `signal`, `raise` and `nanosleep`, reads paths from memory allocated
/// up front, and takes no lock (slots are claimed with atomics). At most ``capacity`` paths
/// are registered at once; past that, ``register(_:)`` returns nil and the path is only
/// removed by the normal path (a kill leaves a hidden, swept leftover, see ``Leftovers``).
///
/// Why a handler and not a thread calling `sigwait`: `sigwait` only receives signals that
/// every thread of the process blocks, and the Swift runtime and Dispatch start threads before
/// `main` could block them (a thread created earlier keeps its mask, and the kernel may deliver
/// the signal there, running the default action: no cleanup at all). SIGPIPE is also sent to
/// the very thread whose write failed; blocked there, that thread would write on into EPIPE
/// while the sigwait thread cleans up under it. A handler runs wherever the signal lands, so
/// it must be async-signal-safe, which this one is by construction: it touches only memory
/// allocated before it was installed and makes system calls only. The other threads run on
/// while it cleans up (a copy may still be creating files in a staging folder): a folder is
/// passed over until it is gone, and the whole list is removed a second time after a 5 ms
/// pause; then the process ends by the same signal.
///
/// The `deck` tool itself ignores SIGPIPE (a closed pipe is the write error EPIPE, which each
/// command handles by removing its temporaries on the normal path); the handler serves any
/// program that keeps SIGPIPE's default. `deck open`, once reading input, handles SIGINT,
/// SIGTERM and SIGHUP itself (to save the session's work) and removes its working copy on the
/// normal path.
///
/// ```swift
/// let token = CleanupRegistry.register(temporary)
/// defer { CleanupRegistry.unregister(token) }
/// ```
public enum CleanupRegistry {
    /// How many paths can be registered at once.
    public static let capacity = 64
    static let pathCapacity = Int(PATH_MAX)
    /// The nesting a folder is removed to (staging folders are 3 deep).
    static let maximumDepth = 8
    static let directoryBufferSize = 16 << 10

    /// Slots taken by a registration (claimed with compare-and-exchange).
    static let reserved = Atomic<UInt64>(0)
    /// Slots whose path the handler removes (set once the path is written).
    static let active = Atomic<UInt64>(0)
    /// Set by the first handler to run; others wait for it.
    static let handling = Atomic<Bool>(false)
    static let handled = Atomic<Bool>(false)
    /// Guarded calls under way (``publishing(_:)``: a publish, or the creation of a registered
    /// temporary), which the handler waits for before removing.
    static let publishes = Atomic<Int>(0)
    /// The threads inside ``publishing(_:)``, one per slot (0: free), so the handler does not
    /// wait for a call of the very thread it interrupted.
    static let callerCapacity = 16
    static let callers: InlineArray<16, Atomic<UInt>> = InlineArray { _ in Atomic<UInt>(0) }
    /// How long the handler waits for other threads' guarded calls to finish: one system call
    /// each, so only a thread that is not scheduled (a loaded machine) takes long.
    static let callWaitMilliseconds = 5_000

    /// Paths, `capacity` × `pathCapacity` bytes, NUL-terminated; then one directory buffer per level.
    ///
    /// Both are zeroed by `calloc`, whose large blocks are fresh pages from the kernel: no page
    /// is touched until a path or a folder uses it (zeroing them here cost every process about
    /// 100 page faults, a tenth of a `deck --version`). A page first touched inside the
    /// handler is a page fault, which is safe there.
    nonisolated(unsafe) static let storage: UnsafeMutablePointer<CChar> = zeroed(capacity * pathCapacity)
        .bindMemory(to: CChar.self, capacity: capacity * pathCapacity)
    nonisolated(unsafe) static let directoryBuffers: UnsafeMutableRawPointer = zeroed(maximumDepth * directoryBufferSize)

    private static func zeroed(_ byteCount: Int) -> UnsafeMutableRawPointer {
        guard let pointer = calloc(byteCount, 1) else { fatalError("CleanupRegistry: no memory for \(byteCount) bytes") }
        return pointer
    }

    typealias GetDents = @convention(c) (Int32, UnsafeMutableRawPointer?, Int) -> Int
    /// `getdents64` (glibc 2.30+), looked up before any signal can arrive.
    static let getdents64: GetDents? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getdents64") else { return nil }
        return unsafeBitCast(symbol, to: GetDents.self)
    }()

    /// The signals that remove registered paths.
    public static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGPIPE]

    /// A registered path; pass it back to ``unregister(_:)``.
    public struct Token: Sendable, Hashable {
        let slot: Int
    }

    /// Installs the handler for ``signals`` (except those inherited as ignored). Idempotent.
    public static func installSignalHandlers() {
        _ = installed
    }

    private static let installed: Void = {
        // Everything the handler touches exists before it can run.
        _ = storage
        _ = directoryBuffers
        _ = getdents64
        _ = reserved.load(ordering: .relaxed)
        _ = active.load(ordering: .relaxed)
        _ = handling.load(ordering: .relaxed)
        _ = handled.load(ordering: .relaxed)
        _ = publishes.load(ordering: .relaxed)
        _ = callers[0].load(ordering: .relaxed)
        // The rest of the process runs on while the handler cleans up: a thread that ends the
        // process meanwhile (its work failed because its files went) waits for the handler,
        // so the process still ends by the signal, not by that thread's exit status.
        atexit { CleanupRegistry.waitWhileHandling() }
        for number in signals {
            // SIG_IGN is the handler value 1.
            if let previous = signal(number, cleanupHandler), unsafeBitCast(previous, to: Int.self) == 1 {
                signal(number, SIG_IGN)
            }
        }
    }()

    /// Registers `path` for removal if the process is killed by one of ``signals``.
    /// Returns nil when every slot is taken or the path is too long (then it is not guarded).
    @discardableResult
    public static func register(_ path: String) -> Token? {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < pathCapacity else { return nil }
        var current = reserved.load(ordering: .relaxed)
        while true {
            guard current != UInt64.max else { return nil }
            let slot = (~current).trailingZeroBitCount
            let bit = UInt64(1) << UInt64(slot)
            let (exchanged, original) = reserved.compareExchange(expected: current, desired: current | bit,
                                                                 ordering: .acquiringAndReleasing)
            if exchanged {
                let target = storage + slot * pathCapacity
                bytes.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { chars in
                        target.update(from: chars.baseAddress!, count: bytes.count)
                    }
                }
                target[bytes.count] = 0
                active.bitwiseOr(bit, ordering: .releasing)
                return Token(slot: slot)
            }
            current = original
        }
    }

    /// Runs `body`, one system call that moves a finished output into place (``Publisher``) or
    /// creates a registered temporary (``TemporaryName``), unless a signal is ending the
    /// process: then the calling thread waits to be ended with it, so nothing is published half
    /// removed and nothing is created after the handler's last look. The handler waits for a
    /// call under way on another thread to finish before it removes anything (the two are
    /// ordered by sequentially consistent atomics: one of them always sees the other), and does
    /// not wait for one of the thread it runs on (it interrupted that call before or after its
    /// system call, and the process ends with the handler).
    ///
    /// Without this, a thread that had registered a temporary but not yet created it could
    /// create it after the handler's last round, while the handler's thread was not scheduled
    /// before it raised the signal: a `.name.partial-…` left behind on a loaded machine.
    public static func publishing<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        let slot = claimCallerSlot()
        publishes.add(1, ordering: .sequentiallyConsistent)
        defer {
            publishes.subtract(1, ordering: .sequentiallyConsistent)
            if let slot { callers[slot].store(0, ordering: .sequentiallyConsistent) }
        }
        if handling.load(ordering: .sequentiallyConsistent) { waitWhileHandling() }
        return try body()
    }

    /// Claims a slot naming this thread as inside ``publishing(_:)``; nil when all are taken
    /// (the handler then waits for the call like for another thread's).
    private static func claimCallerSlot() -> Int? {
        let me = UInt(pthread_self())
        for slot in 0..<callerCapacity {
            if callers[slot].compareExchange(expected: 0, desired: me, ordering: .sequentiallyConsistent).exchanged { return slot }
        }
        return nil
    }

    /// How many guarded calls under way are the calling thread's (async-signal-safe).
    static func callsOfThisThread() -> Int {
        let me = UInt(pthread_self())
        var count = 0
        for slot in 0..<callerCapacity where callers[slot].load(ordering: .sequentiallyConsistent) == me { count += 1 }
        return count
    }

    /// While the handler runs (on another thread), waits for it to end the process (at most
    /// ~10 s); returns at once when no signal is being handled.
    static func waitWhileHandling() {
        guard handling.load(ordering: .sequentiallyConsistent) else { return }
        var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
        for _ in 0..<1000 { nanosleep(&pause, nil) }
    }

    /// Stops guarding a path (after it was published or removed). Nil does nothing.
    public static func unregister(_ token: Token?) {
        guard let token else { return }
        // While a signal is being handled, the path stays registered: the thread unregistering
        // it may have been interrupted half way through removing it (its files went under it),
        // and the handler's second round must still remove what is left.
        if handling.load(ordering: .sequentiallyConsistent) { return }
        let bit = UInt64(1) << UInt64(token.slot)
        active.bitwiseAnd(~bit, ordering: .releasing)
        reserved.bitwiseAnd(~bit, ordering: .releasing)
    }

    /// The paths registered now (for tests).
    public static var registeredPaths: [String] {
        let mask = active.load(ordering: .acquiring)
        return (0..<capacity).filter { mask & (UInt64(1) << UInt64($0)) != 0 }.map { String(cString: storage + $0 * pathCapacity) }
    }

    /// Removes every registered path now, as the signal handler does (for tests).
    static func removeRegisteredPaths() {
        let mask = active.load(ordering: .acquiring)
        for slot in 0..<capacity where mask & (UInt64(1) << UInt64(slot)) != 0 {
            removeTree(storage + slot * pathCapacity, in: AT_FDCWD, depth: 0)
        }
    }

    /// Removes the file or folder `path` (relative to `directory`), not following links:
    /// async-signal-safe (system calls only, buffers allocated up front).
    static func removeTree(_ path: UnsafePointer<CChar>, in directory: Int32, depth: Int) {
        if unlinkat(directory, path, 0) == 0 || errno == ENOENT { return }
        guard errno == EISDIR || errno == EPERM, depth < maximumDepth, let getdents64 else { return }
        let fd = openat(directory, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return }
        let buffer = directoryBuffers + depth * directoryBufferSize
        // Entries removed while the folder is read may make a pass miss some, and another
        // thread of the process may still be creating files in it (a copy under way): pass
        // again, pausing a millisecond, until the folder goes (that thread's next creation
        // inside it then fails) or 50 passes have been made.
        var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        for pass in 0..<50 {
            if pass > 2 { nanosleep(&pause, nil) }
            _ = lseek(fd, 0, SEEK_SET)
            while true {
                let count = getdents64(fd, buffer, directoryBufferSize)
                if count <= 0 { break }
                var offset = 0
                // struct linux_dirent64 { u64 d_ino; s64 d_off; u16 d_reclen; u8 d_type; char d_name[]; }
                while offset < count {
                    let record = buffer + offset
                    let length = Int(record.load(fromByteOffset: 16, as: UInt16.self))
                    let name = UnsafePointer<CChar>((record + 19).assumingMemoryBound(to: CChar.self))
                    let isDot = name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0))
                    if !isDot { removeTree(name, in: fd, depth: depth + 1) }
                    guard length > 0 else { break }
                    offset += length
                }
            }
            if unlinkat(directory, path, AT_REMOVEDIR) == 0 || errno != ENOTEMPTY { break }
        }
        close(fd)
    }
}

/// The handler: removes every registered path once, then ends the process by the signal.
private func cleanupHandler(_ number: Int32) {
    let saved = errno
    if !CleanupRegistry.handling.exchange(true, ordering: .sequentiallyConsistent) {
        // Guarded calls under way on other threads (one rename, link, open or mkdir each)
        // finish first: from now on no such call starts, so nothing registered is created or
        // published behind the handler's back. Not those of this thread, which it interrupted.
        var tick = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        var waited = 0
        while CleanupRegistry.publishes.load(ordering: .sequentiallyConsistent) > CleanupRegistry.callsOfThisThread()
                && waited < CleanupRegistry.callWaitMilliseconds {
            nanosleep(&tick, nil)
            waited += 1
        }
        CleanupRegistry.removeRegisteredPaths()
        // Other threads run on while this one cleans up, and one may have been creating a
        // registered file (SQLite makes a journal at its next write): a second round after a
        // short pause removes what appeared meanwhile.
        var settle = timespec(tv_sec: 0, tv_nsec: 5_000_000)
        nanosleep(&settle, nil)
        CleanupRegistry.removeRegisteredPaths()
        CleanupRegistry.handled.store(true, ordering: .releasing)
    } else {
        // Another thread is cleaning up: wait for it (at most ~5 s), then end.
        var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
        var rounds = 0
        while !CleanupRegistry.handled.load(ordering: .acquiring) && rounds < 500 {
            nanosleep(&pause, nil)
            rounds += 1
        }
    }
    signal(number, SIG_DFL)
    raise(number)
    errno = saved
}
