import Foundation
internal import CMD

/// SHA-256 over libmd: the content address of media files and external storage.
///
/// ```swift
/// let name = SHA256.hex(data)                   // 64 lowercase hex digits
/// let fileDigest = try SHA256.hex(fileAt: url)  // read in 1 MiB chunks
/// ```
public struct SHA256: Sendable {
    private var context = SHA2_CTX()

    public init() { SHA256Init(&context) }

    /// Adds bytes to the digest.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        SHA256Update(&context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    public mutating func update(_ data: Data) { data.withUnsafeBytes { update($0) } }
    public mutating func update(_ bytes: some Collection<UInt8>) {
        if bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }

    /// The 32-byte digest; the hasher is spent afterwards.
    public mutating func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        digest.withUnsafeMutableBufferPointer { SHA256Final($0.baseAddress, &context) }
        return digest
    }

    /// The lowercase hexadecimal digest of some data, as `sha256sum` prints it.
    public static func hex(_ data: Data) -> String {
        var hasher = SHA256()
        hasher.update(data)
        return hasher.finalize().hexString
    }

    /// The lowercase hexadecimal digest of a file, read in 1 MiB chunks.
    /// - Throws: the file's read error.
    public static func hex(fileAt url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(chunk) }
        return hasher.finalize().hexString
    }

    /// The lowercase hexadecimal digest of what is left to read on an open descriptor (not
    /// closed), read in 1 MiB chunks.
    /// - Throws: the read error.
    public static func hex(fileDescriptor: Int32) throws -> String {
        let handle = FileHandle(fileDescriptor: fileDescriptor, closeOnDealloc: false)
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(chunk) }
        return hasher.finalize().hexString
    }
}

extension [UInt8] {
    /// Lowercase hexadecimal, two digits a byte.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
