import FileSafety
import Foundation

/// An output file written under a hidden temporary name beside its destination
/// (``TemporaryFile``) and published by ``commit()`` without replacing anything there
/// (``Publisher``), so a failed, interrupted or killed export never leaves a half-written
/// file at the destination, and of two exports to one file exactly one wins. Writes are buffered.
final class OutputFile {
    let destination: URL
    private let file: TemporaryFile
    private let policy: OverwritePolicy
    private var buffer: [UInt8] = []
    private static let bufferSize = 1 << 16

    /// The temporary file.
    var temporary: URL { URL(fileURLWithPath: file.path) }

    /// Checks the destination and creates the temporary file.
    /// - Throws: ``InterchangeError`` `cannotCreate` when something is at the destination (a
    ///   dangling symbolic link too), or the folder is missing or unwritable.
    init(_ destination: URL, overwrite: OverwritePolicy = .never) throws {
        self.destination = destination
        policy = overwrite
        do {
            try Publisher.checkDestination(destination.path, policy: overwrite)
            file = try TemporaryFile(beside: destination.path)
        } catch {
            throw InterchangeError(publishing: error)
        }
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
    var fileHandle: FileHandle? {
        file.descriptor >= 0 ? FileHandle(fileDescriptor: file.descriptor, closeOnDealloc: false) : nil
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        do {
            try file.write(buffer)
        } catch {
            throw InterchangeError(.io, path: destination.path, reason: "write failed: \(error)")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, syncs and publishes the file at the destination.
    /// - Throws: ``InterchangeError`` `cannotCreate` when another writer got there first, `io`.
    func commit() throws {
        try flush()
        do {
            try file.publish(policy: policy)
        } catch {
            throw InterchangeError(publishing: error)
        }
    }

    /// Removes the temporary file (nothing if committed).
    func discard() {
        file.discard()
    }
}

extension InterchangeError {
    /// A failure to create or publish an output: `cannotCreate` when something is there or
    /// the folder can't be written, `io` for a failed write.
    init(publishing error: FileSafetyError) {
        switch error.kind {
        case .exists, .wrongType, .notAFileName, .missing:
            self.init(.cannotCreate, path: error.path, reason: error.reason)
        case .system(let number) where [EACCES, EPERM, EROFS, ENOENT, ENOTDIR].contains(number):
            self.init(.cannotCreate, path: error.path, reason: error.reason)
        case .system:
            self.init(.io, path: error.path, reason: error.reason)
        }
    }
}
