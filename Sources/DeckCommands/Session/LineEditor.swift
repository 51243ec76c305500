import ArgumentParsing
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The text of the line the line-editing library handed over (its callback is a C function,
/// so it cannot capture); only touched on the session's one thread.
private nonisolated(unsafe) var editedLine: (done: Bool, text: String?) = (false, nil)

/// Set by the SIGINT handler of a session: Ctrl-C cancels the line being typed instead of
/// killing the session (and its unsaved work). Atomic: the handler may run on another thread
/// than the session's (lock-free, so safe in a signal handler).
private let interrupted = Atomic<Int32>(0)
/// Set on SIGTERM or SIGHUP: the session ends as at the end of input, keeping its work.
private let terminated = Atomic<Int32>(0)
/// The write end of a pipe the SIGINT handler writes to, so a wait for input wakes up.
private nonisolated(unsafe) var wakeWriter: Int32 = -1
private nonisolated(unsafe) var wakeReader: Int32 = -1

/// Reads the lines of an interactive session, with line editing and history when the
/// system has a line-editing library, and lets the session act while waiting (autosave).
///
/// Line editing comes from `libedit` (BSD licence), else GNU `readline`, loaded at run time
/// with `dlopen`, so the tool has no link-time dependency on either: on a system with
/// neither, or when standard input is not a terminal, `TERM` is `dumb` or
/// `DECK_NO_LINE_EDITING` is set, lines are read plainly.
final class LineEditor {
    private typealias Handler = @convention(c) (UnsafeMutablePointer<CChar>?) -> Void
    private typealias InstallHandler = @convention(c) (UnsafePointer<CChar>?, Handler?) -> Void
    private typealias VoidFunction = @convention(c) () -> Void
    private typealias IntFunction = @convention(c) () -> Int32
    private typealias AddHistory = @convention(c) (UnsafePointer<CChar>?) -> Int32

    private struct Library {
        var install: InstallHandler
        var remove: VoidFunction
        var readCharacter: VoidFunction
        var redisplay: IntFunction?
        var addHistory: AddHistory?
    }

    private let library: Library?
    private let terminal: Terminal
    /// Whether input is a person at a terminal (prompts are shown).
    let isInteractive: Bool
    /// The name of the library giving line editing, or nil when lines are read plainly.
    let libraryName: String?

    init(terminal: Terminal = .current) {
        self.terminal = terminal
        isInteractive = terminal.stdin.isTerminal
        let wanted = isInteractive && terminal.environment["TERM"] != "dumb" && terminal.environment["DECK_NO_LINE_EDITING"] == nil
        var found: (Library, String)?
        if wanted {
            for name in ["libedit.so.2", "libedit.so", "libreadline.so.8", "libreadline.so"] {
                if let library = Self.load(name) {
                    found = (library, name)
                    break
                }
            }
        }
        library = found?.0
        libraryName = found?.1
        if isInteractive {
            var ends: [Int32] = [-1, -1]
            if pipe(&ends) == 0 {
                wakeReader = ends[0]
                wakeWriter = ends[1]
                _ = fcntl(wakeWriter, F_SETFL, O_NONBLOCK)
                _ = fcntl(wakeReader, F_SETFL, O_NONBLOCK)
            }
            // Touch the flags first: a global is initialised on first use, which a signal
            // handler must not be the one to do.
            _ = interrupted.load(ordering: .relaxed) + terminated.load(ordering: .relaxed)
            signal(SIGINT) { _ in
                interrupted.store(1, ordering: .relaxed)
                var byte: UInt8 = 1
                _ = write(wakeWriter, &byte, 1)
            }
            for signalNumber in [SIGTERM, SIGHUP] {
                signal(signalNumber) { _ in
                    terminated.store(1, ordering: .relaxed)
                    var byte: UInt8 = 1
                    _ = write(wakeWriter, &byte, 1)
                }
            }
        }
    }

    private static func load(_ name: String) -> Library? {
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { return nil }
        func symbol<T>(_ symbolName: String, as type: T.Type) -> T? {
            dlsym(handle, symbolName).map { unsafeBitCast($0, to: type) }
        }
        guard let install = symbol("rl_callback_handler_install", as: InstallHandler.self),
              let remove = symbol("rl_callback_handler_remove", as: VoidFunction.self),
              let readCharacter = symbol("rl_callback_read_char", as: VoidFunction.self) else {
            dlclose(handle)
            return nil
        }
        // The session handles SIGINT, SIGTERM and SIGHUP itself, outside the signal handler.
        // Left to the library, its own handlers (installed when the first line is read) reset
        // the terminal and flush output from inside the handler — not async-signal-safe — and
        // libedit's reaches the editor it last set up, which can be gone: under load a Ctrl-C
        // hung a session or crashed it with SIGSEGV.
        for name in ["rl_catch_signals", "rl_catch_sigwinch"] {
            dlsym(handle, name)?.assumingMemoryBound(to: Int32.self).pointee = 0
        }
        return Library(install: install, remove: remove, readCharacter: readCharacter,
                       redisplay: symbol("rl_forced_update_display", as: IntFunction.self),
                       addHistory: symbol("add_history", as: AddHistory.self))
    }

    /// Whether the session was asked to end (SIGTERM, SIGHUP): no one is there to answer.
    var wasTerminated: Bool { terminated.load(ordering: .relaxed) != 0 }

    /// Reads one line after showing `prompt` (only to a person at a terminal); nil at the end
    /// of input. When `idle` is given, it is called once if no line has arrived after
    /// `idleAfter` seconds (the line being typed is redrawn afterwards).
    func readLine(prompt: String, idleAfter: Double? = nil, idle: (() -> Void)? = nil) throws -> String? {
        if let library { return readEdited(prompt: prompt, library: library, idleAfter: idleAfter, idle: idle) }
        if isInteractive { terminal.stdout.write(prompt) }
        try? terminal.stdout.flush()
        if isInteractive {
            // Wait first, so autosave can run while idle and a signal is noticed at once.
            var ready = Self.waitForInput(seconds: idle == nil ? nil : idleAfter)
            if !ready, terminated.load(ordering: .relaxed) == 0, let idle {
                idle()
                ready = Self.waitForInput(seconds: nil)
            }
            if terminated.load(ordering: .relaxed) != 0 { return nil }
        }
        interrupted.store(0, ordering: .relaxed)
        return try terminal.stdin.readLine()
    }

    private func readEdited(prompt: String, library: Library, idleAfter: Double?, idle: (() -> Void)?) -> String? {
        try? terminal.stdout.flush()
        editedLine = (false, nil)
        let handler: Handler = { pointer in
            editedLine = (true, pointer.map { String(cString: $0) })
            free(pointer)
        }
        prompt.withCString { library.install($0, handler) }
        var pendingIdle = idleAfter != nil && idle != nil
        while !editedLine.done {
            if terminated.load(ordering: .relaxed) != 0 {
                library.remove()
                terminal.stdout.write("\n")
                return nil
            }
            // Wait for a key first (poll is interrupted by Ctrl-C even where read would restart).
            let ready = Self.waitForInput(seconds: pendingIdle ? idleAfter : nil)
            if terminated.load(ordering: .relaxed) != 0 { continue }
            if interrupted.load(ordering: .relaxed) != 0 {
                // Ctrl-C: drop the line being typed and start a fresh one.
                interrupted.store(0, ordering: .relaxed)
                library.remove()
                terminal.stdout.write("^C\n")
                prompt.withCString { library.install($0, handler) }
                continue
            }
            if !ready, pendingIdle, let idle {
                pendingIdle = false
                terminal.stdout.write("\r\u{1B}[K")
                idle()
                _ = library.redisplay?()
                continue
            }
            pendingIdle = false
            library.readCharacter()
        }
        library.remove()
        if let line = editedLine.text, !line.trimmingCharacters(in: .whitespaces).isEmpty {
            _ = line.withCString { library.addHistory?($0) }
        }
        if editedLine.text == nil { terminal.stdout.write("\n") }
        return editedLine.text
    }

    /// Waits until standard input is readable or `seconds` pass (nil: no limit); false on
    /// timeout. Returns early when Ctrl-C was pressed.
    private static func waitForInput(seconds: Double?) -> Bool {
        var descriptors = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)]
        let milliseconds = seconds.map { Int32(max(0, min($0 * 1000, Double(Int32.max)))) } ?? -1
        while true {
            let result = poll(&descriptors, wakeReader >= 0 ? 2 : 1, milliseconds)
            if wakeReader >= 0, descriptors[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 16)
                while read(wakeReader, &drain, drain.count) > 0 {}
            }
            if interrupted.load(ordering: .relaxed) != 0 || terminated.load(ordering: .relaxed) != 0 { return true }
            if result < 0 && errno == EINTR { continue }
            if result > 0 && descriptors[0].revents == 0 { continue }
            return result != 0
        }
    }
}
