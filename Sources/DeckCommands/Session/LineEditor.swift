import ArgumentParsing
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The text of the line the line-editing library handed over (its callback is a C function,
/// so it cannot capture); only touched on the session's one thread.
private nonisolated(unsafe) var editedLine: (done: Bool, text: String?) = (false, nil)

/// Tab completion: what the session offers for the word being typed (the line before the
/// word, the word), and the matches of the current completion. The library calls the
/// generator (a C function) on the session's thread, while it handles a key.
private nonisolated(unsafe) var completionSource: ((String, String) -> [String])?
private nonisolated(unsafe) var completionMatches: [String] = []
private nonisolated(unsafe) var completionIndex = 0
/// The library's `rl_line_buffer` and `rl_point` variables, to see the line before the word.
private nonisolated(unsafe) var lineBufferVariable: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
private nonisolated(unsafe) var pointVariable: UnsafeMutablePointer<Int32>?

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
    private typealias Generator = @convention(c) (UnsafePointer<CChar>?, Int32) -> UnsafeMutablePointer<CChar>?

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
    /// The file lines are remembered in between sessions (nil: none).
    let historyFile: String?
    /// The most lines the history file keeps.
    static let historyLimit = 1000

    /// The variable naming the history file; set to an empty value to keep no history.
    static let historyVariable = "DECK_HISTORY_FILE"

    /// - Parameter completions: what Tab offers, given the line before the word and the word.
    init(terminal: Terminal = .current, completions: ((String, String) -> [String])? = nil) {
        self.terminal = terminal
        isInteractive = terminal.stdin.isTerminal
        let wanted = isInteractive && terminal.environment["TERM"] != "dumb" && terminal.environment["DECK_NO_LINE_EDITING"] == nil
        var found: (Library, String)?
        if wanted {
            // Typed text is UTF-8: the library decodes keys with the C library's multibyte
            // functions, which in the "C" locale every process starts in drop every byte
            // past ASCII ("árbol" arrived as "rbol"). Take the user's locale for character
            // types, and C.UTF-8 where that is not UTF-8 (the deck stores UTF-8 anyway).
            Self.useUTF8CharacterTypes()
            completionSource = completions
            for name in ["libedit.so.2", "libedit.so", "libreadline.so.8", "libreadline.so"] {
                if let library = Self.load(name) {
                    found = (library, name)
                    break
                }
            }
        }
        library = found?.0
        libraryName = found?.1
        historyFile = found == nil ? nil : Self.historyPath(environment: terminal.environment)
        if let historyFile, let library = found?.0 { Self.loadHistory(historyFile, into: library) }
        // Signals are the session's to handle whenever it reads a real descriptor (a terminal
        // or a pipe): SIGTERM and SIGHUP end it as the end of input does, saving its work.
        // Not for input given in-process (a test's bytes): the process is not the session's.
        if terminal.stdin.fileDescriptor != nil {
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
            if isInteractive {
                signal(SIGINT) { _ in
                    interrupted.store(1, ordering: .relaxed)
                    var byte: UInt8 = 1
                    _ = write(wakeWriter, &byte, 1)
                }
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

    deinit { completionSource = nil }

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
        // Tab completes from the session's words instead of file names.
        if completionSource != nil, let entry = dlsym(handle, "rl_completion_entry_function") {
            let generator: Generator = { text, state in
                if state == 0 {
                    let word = text.map { String(cString: $0) } ?? ""
                    var before = ""
                    if let buffer = lineBufferVariable?.pointee, let point = pointVariable?.pointee {
                        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self),
                                                        count: max(0, min(Int(point), strlen(buffer))))
                        before = String(decoding: bytes.dropLast(min(word.utf8.count, bytes.count)), as: UTF8.self)
                    }
                    completionMatches = completionSource?(before, word) ?? []
                    completionIndex = 0
                }
                guard completionIndex < completionMatches.count else { return nil }
                defer { completionIndex += 1 }
                return strdup(completionMatches[completionIndex])
            }
            entry.assumingMemoryBound(to: Generator?.self).pointee = generator
            lineBufferVariable = dlsym(handle, "rl_line_buffer")?.assumingMemoryBound(to: UnsafeMutablePointer<CChar>?.self)
            pointVariable = dlsym(handle, "rl_point")?.assumingMemoryBound(to: Int32.self)
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
        if terminated.load(ordering: .relaxed) != 0 { return nil }
        if let library { return readEdited(prompt: prompt, library: library, idleAfter: idleAfter, idle: idle) }
        if isInteractive { terminal.stdout.write(prompt) }
        try? terminal.stdout.flush()
        if let descriptor = terminal.stdin.fileDescriptor, !terminal.stdin.hasBufferedLine {
            // Wait first (on a terminal or a pipe), so autosave can run while idle and a
            // signal is noticed at once: a blocked read would resume after the handler.
            var ready = Self.waitForInput(on: descriptor, seconds: idle == nil ? nil : idleAfter)
            if !ready, terminated.load(ordering: .relaxed) == 0, let idle {
                idle()
                ready = Self.waitForInput(on: descriptor, seconds: nil)
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
            let ready = Self.waitForInput(on: STDIN_FILENO, seconds: pendingIdle ? idleAfter : nil)
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
            if let historyFile { Self.appendHistory(line, to: historyFile) }
        }
        if editedLine.text == nil { terminal.stdout.write("\n") }
        return editedLine.text
    }

    /// Waits until `descriptor` is readable or `seconds` pass (nil: no limit); false on
    /// timeout. Returns early when Ctrl-C was pressed.
    private static func waitForInput(on descriptor: Int32, seconds: Double?) -> Bool {
        var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
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

    // MARK: - Locale

    /// Sets the locale's character types from the environment, or to C.UTF-8 when they are
    /// not UTF-8 (only `LC_CTYPE`: numbers and dates keep the C library's defaults).
    static func useUTF8CharacterTypes() {
        _ = setlocale(LC_CTYPE, "")
        if isUTF8CharacterTypes { return }
        for name in ["C.UTF-8", "C.utf8", "en_US.UTF-8"] where setlocale(LC_CTYPE, name) != nil { return }
    }

    /// Whether the C library decodes multibyte characters as UTF-8 now.
    static var isUTF8CharacterTypes: Bool {
        guard let codeset = nl_langinfo(nl_item(CODESET)) else { return false }
        let name = String(cString: codeset).uppercased().filter { $0.isLetter || $0.isNumber }
        return name == "UTF8"
    }

    // MARK: - History

    /// Where history is kept: `DECK_HISTORY_FILE` when set (empty: nowhere), else
    /// `$XDG_STATE_HOME/deck/history`, else `~/.local/state/deck/history`.
    static func historyPath(environment: [String: String]) -> String? {
        if let file = environment[historyVariable] { return file.isEmpty ? nil : file }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/deck/history"
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.local/state/deck/history"
    }

    /// Reads the last ``historyLimit`` lines of the history file into the library's history,
    /// rewriting the file when it has grown past twice the limit. A missing or unreadable
    /// file is no history.
    private static func loadHistory(_ path: String, into library: Library) {
        guard let data = FileManager.default.contents(atPath: path) else { return }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        let kept = lines.suffix(historyLimit)
        for line in kept { _ = line.withCString { library.addHistory?($0) } }
        if lines.count > 2 * historyLimit {
            let temporary = path + ".\(getpid()).tmp"
            let text = kept.joined(separator: "\n") + "\n"
            if FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) {
                if rename(temporary, path) != 0 { unlink(temporary) }
            }
        }
    }

    /// Appends one line to the history file (mode 0600, its folder made 0700 when missing);
    /// history that cannot be written is not an error of the session.
    private static func appendHistory(_ line: String, to path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}
