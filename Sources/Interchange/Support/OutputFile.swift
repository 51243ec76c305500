import Foundation

/// An output file written under a temporary name beside its destination and renamed into
/// place by ``commit()``, so a failed or interrupted export never leaves a half-written file
/// at the destination. Writes are buffered.
final class OutputFile {
    let destination: URL
    let temporary: URL
    private var handle: FileHandle?
    private var buffer: [UInt8] = []
    private static let bufferSize = 1 << 16

    /// Creates the temporary file.
    /// - Throws: ``InterchangeError`` `cannotCreate` when the folder is missing or unwritable.
    init(_ destination: URL) throws {
        self.destination = destination
        let folder = destination.deletingLastPathComponent()
        temporary = folder.appendingPathComponent(".\(destination.lastPathComponent).partial-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o644]),
              let handle = FileHandle(forWritingAtPath: temporary.path) else {
            throw InterchangeError(.cannotCreate, path: destination.path, reason: "cannot create the file (is the folder there and writable?)")
        }
        self.handle = handle
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit { discard() }

    func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    func write(_ bytes: some Sequence<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// The temporary file's handle, for writers that take one (flush this object first).
    var fileHandle: FileHandle? { handle }

    func flush() throws {
        guard let handle, !buffer.isEmpty else { return }
        do { try handle.write(contentsOf: buffer) }
        catch { throw InterchangeError(.io, path: destination.path, reason: "write failed: \(error.localizedDescription)") }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, syncs and renames the file into place (replacing a file there).
    func commit() throws {
        try flush()
        guard let handle else { throw InterchangeError(.io, path: destination.path, reason: "output already closed") }
        do {
            try handle.synchronize()
            try handle.close()
        } catch {
            throw InterchangeError(.io, path: destination.path, reason: "write failed: \(error.localizedDescription)")
        }
        self.handle = nil
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw InterchangeError(.cannotCreate, path: destination.path, reason: "cannot move the file into place: \(reason)")
        }
    }

    /// Removes the temporary file (nothing if committed).
    func discard() {
        if let handle {
            try? handle.close()
            self.handle = nil
            try? FileManager.default.removeItem(at: temporary)
        }
    }
}
