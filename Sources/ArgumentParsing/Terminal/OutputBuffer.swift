
/// Bytes written to an in-memory ``OutputWriter``: what a test reads back after running a
/// command in-process.
public final class OutputBuffer: Sendable {
    private let storage = Locked<[UInt8]>([])

    /// Creates an empty buffer.
    public init() {}

    /// Everything written so far.
    public var bytes: [UInt8] { storage.withLock { $0 } }

    /// Everything written so far, decoded as UTF-8 (invalid bytes become U+FFFD).
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Forgets what was written.
    public func removeAll() {
        storage.withLock { $0.removeAll() }
    }

    func append(_ bytes: some Sequence<UInt8>) {
        storage.withLock { $0.append(contentsOf: bytes) }
    }
}
