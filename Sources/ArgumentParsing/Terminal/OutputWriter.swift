#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A destination for a command's output: a file descriptor (standard output or error) or
/// an in-memory ``OutputBuffer``.
///
/// Text writes never throw (like `print`); a failure is remembered and thrown by the next
/// ``flush()`` or ``write(contentsOf:)``, which the entry point calls before exiting, so a
/// full disk still ends in exit status 74. Writers are `Sendable` and may be shared by
/// concurrent tasks. `print(_:to:)` works with a `var` copy.
public struct OutputWriter: TextOutputStream, Sendable {
    private let sink: any OutputSink

    /// Whether the destination is a terminal (so progress and colour make sense).
    public let isTerminal: Bool

    private init(sink: any OutputSink, isTerminal: Bool) {
        self.sink = sink
        self.isTerminal = isTerminal
    }

    /// A writer to a file descriptor, named in errors by `name`.
    ///
    /// With `buffered`, output is collected in 64 KiB blocks (call ``flush()``), unless the
    /// descriptor is a terminal, where every write goes out at once.
    public static func fileDescriptor(_ descriptor: Int32, name: String, buffered: Bool = false) -> OutputWriter {
        let isTerminal = isatty(descriptor) == 1
        let capacity = buffered && !isTerminal ? 64 * 1024 : 0
        return OutputWriter(
            sink: FileDescriptorSink(descriptor: descriptor, name: name, capacity: capacity),
            isTerminal: isTerminal)
    }

    /// A writer that appends to `buffer`; `isTerminal` pretends the destination is a terminal.
    public static func buffer(_ buffer: OutputBuffer, isTerminal: Bool = false) -> OutputWriter {
        OutputWriter(sink: BufferSink(buffer: buffer), isTerminal: isTerminal)
    }

    /// Writes text as UTF-8; a failure is reported by the next ``flush()``.
    public func write(_ string: String) {
        sink.write(string.utf8)
    }

    /// Writes bytes, such as a binary file sent to standard output.
    ///
    /// - Throws: ``StreamError`` if this or an earlier write failed.
    public func write(contentsOf bytes: some Sequence<UInt8>) throws(StreamError) {
        sink.write(bytes)
        try sink.checkError()
    }

    /// Sends buffered output to its destination.
    ///
    /// - Throws: ``StreamError`` if this or an earlier write failed.
    public func flush() throws(StreamError) {
        try sink.flush()
    }
}

/// Where an ``OutputWriter`` sends its bytes.
protocol OutputSink: AnyObject, Sendable {
    func write(_ bytes: some Sequence<UInt8>)
    func flush() throws(StreamError)
    func checkError() throws(StreamError)
}

final class BufferSink: OutputSink {
    let buffer: OutputBuffer

    init(buffer: OutputBuffer) {
        self.buffer = buffer
    }

    func write(_ bytes: some Sequence<UInt8>) {
        buffer.append(bytes)
    }

    func flush() {}
    func checkError() {}
}

/// Writes to a file descriptor with `write(2)`, retrying short writes and `EINTR`.
final class FileDescriptorSink: OutputSink {
    private struct State {
        var pending: [UInt8] = []
        var errorCode: Int32?
    }

    private let descriptor: Int32
    private let name: String
    private let capacity: Int
    private let state = Locked(State())

    init(descriptor: Int32, name: String, capacity: Int) {
        self.descriptor = descriptor
        self.name = name
        self.capacity = capacity
    }

    func write(_ bytes: some Sequence<UInt8>) {
        state.withLock { state in
            state.pending.append(contentsOf: bytes)
            if state.pending.count >= capacity { drain(&state) }
        }
    }

    func flush() throws(StreamError) {
        let code = state.withLock { state in
            drain(&state)
            return state.errorCode
        }
        if let code { throw StreamError(stream: name, code: code) }
    }

    func checkError() throws(StreamError) {
        if let code = state.withLock({ $0.errorCode }) {
            throw StreamError(stream: name, code: code)
        }
    }

    private func drain(_ state: inout State) {
        defer { state.pending.removeAll(keepingCapacity: true) }
        guard state.errorCode == nil else { return }
        state.pending.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(descriptor, base + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    state.errorCode = errno
                    return
                }
                offset += written
            }
        }
    }
}

/// `write(2)`, under a name that methods called `write` do not shadow.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
