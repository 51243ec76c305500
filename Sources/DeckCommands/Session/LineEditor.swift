import ArgumentParsing
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The text of the line the line-editing library handed over (its callback is a C function,
/// so it cannot capture); only touched on the session's one thread.
private nonisolated(unsafe) var editedLine: (done: Bool, text: String?) = (false, nil)

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
        return Library(install: install, remove: remove, readCharacter: readCharacter,
                       redisplay: symbol("rl_forced_update_display", as: IntFunction.self),
                       addHistory: symbol("add_history", as: AddHistory.self))
    }

    /// Reads one line after showing `prompt` (only to a person at a terminal); nil at the end
    /// of input. When `idle` is given, it is called once if no line has arrived after
    /// `idleAfter` seconds (the line being typed is redrawn afterwards).
    func readLine(prompt: String, idleAfter: Double? = nil, idle: (() -> Void)? = nil) throws -> String? {
        if let library { return readEdited(prompt: prompt, library: library, idleAfter: idleAfter, idle: idle) }
        if isInteractive { terminal.stdout.write(prompt) }
        try? terminal.stdout.flush()
        if isInteractive, let idleAfter, let idle, !Self.waitForInput(seconds: idleAfter) { idle() }
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
            if pendingIdle, let idleAfter, let idle, !Self.waitForInput(seconds: idleAfter) {
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

    /// Waits until standard input is readable or `seconds` pass; false on timeout.
    private static func waitForInput(seconds: Double) -> Bool {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(0, min(seconds * 1000, Double(Int32.max))))
        while true {
            let result = poll(&descriptor, 1, milliseconds)
            if result < 0 && errno == EINTR { continue }
            return result != 0
        }
    }
}
