#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A source of input for a command: standard input, or bytes given by a test.
///
/// Commands read `-` (standard input) through `Terminal.current.stdin`, so tests can feed
/// them without a pipe.
public struct InputReader: Sendable {
    private let source: InputSource

    /// Whether the input is a terminal (a person typing, not a pipe or a file).
    public let isTerminal: Bool

    /// A reader of a file descriptor, named in errors by `name`.
    public static func fileDescriptor(_ descriptor: Int32, name: String) -> InputReader {
        InputReader(source: InputSource(descriptor: descriptor, name: name, bytes: []),
                    isTerminal: isatty(descriptor) == 1)
    }

    /// A reader that returns `bytes`, then the end of input.
    public static func bytes(_ bytes: [UInt8], isTerminal: Bool = false) -> InputReader {
        InputReader(source: InputSource(descriptor: nil, name: "standard input", bytes: bytes), isTerminal: isTerminal)
    }

    /// A reader that returns `text` as UTF-8, then the end of input.
    public static func text(_ text: String, isTerminal: Bool = false) -> InputReader {
        bytes(Array(text.utf8), isTerminal: isTerminal)
    }

    /// Reads everything up to the end of input.
    ///
    /// - Throws: ``StreamError`` when reading fails.
    public func readAll() throws(StreamError) -> [UInt8] {
        try source.readAll()
    }

    /// The file descriptor read, or nil for bytes given by a test.
    public var fileDescriptor: Int32? { source.descriptor }

    /// Whether ``readLine()`` can return without reading from the descriptor: a whole line
    /// is buffered, or the end of input was reached. A caller that waits for input (with
    /// `poll`) before reading a line must not wait when this is true.
    public var hasBufferedLine: Bool { source.hasBufferedLine }

    /// Reads one line, without its line break (`\n` or `\r\n`); `nil` at the end of input.
    ///
    /// - Throws: ``StreamError`` when reading fails.
    public func readLine() throws(StreamError) -> String? {
        try source.readLine()
    }
}

/// The shared state of a reader: bytes read ahead and whether the end was reached.
final class InputSource: Sendable {
    private struct State {
        var pending: [UInt8]
        var isAtEnd: Bool
    }

    let descriptor: Int32?
    private let name: String
    private let state: Locked<State>

    init(descriptor: Int32?, name: String, bytes: [UInt8]) {
        self.descriptor = descriptor
        self.name = name
        state = Locked(State(pending: bytes, isAtEnd: descriptor == nil))
    }

    var hasBufferedLine: Bool {
        state.withLock { state in state.isAtEnd || state.pending.contains(UInt8(ascii: "\n")) }
    }

    func readAll() throws(StreamError) -> [UInt8] {
        try state.withLock { state throws(StreamError) in
            while !state.isAtEnd { try fill(&state) }
            defer { state.pending.removeAll() }
            return state.pending
        }
    }

    func readLine() throws(StreamError) -> String? {
        try state.withLock { state throws(StreamError) -> String? in
            var searchFrom = 0
            while true {
                if let newline = state.pending[searchFrom...].firstIndex(of: UInt8(ascii: "\n")) {
                    var line = state.pending[..<newline]
                    if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                    let text = String(decoding: line, as: UTF8.self)
                    state.pending.removeFirst(newline + 1)
                    return text
                }
                if state.isAtEnd {
                    guard !state.pending.isEmpty else { return nil }
                    defer { state.pending.removeAll() }
                    return String(decoding: state.pending, as: UTF8.self)
                }
                searchFrom = state.pending.count
                try fill(&state)
            }
        }
    }

    /// Reads the next block from the descriptor.
    private func fill(_ state: inout State) throws(StreamError) {
        guard let descriptor else {
            state.isAtEnd = true
            return
        }
        var block = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StreamError(stream: name, code: errno)
            }
            if count == 0 { state.isAtEnd = true }
            state.pending.append(contentsOf: block[..<count])
            return
        }
    }
}
