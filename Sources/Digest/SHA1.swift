import Foundation
internal import CMD

/// SHA-1 over libmd, for formats that name files or check content by it (Anki's media
/// lists and note checksums). Not for security.
///
/// ```swift
/// let digest = SHA1.hash(Data("test".utf8))     // 20 bytes
/// var hasher = SHA1(); hasher.update(chunk); let digest = hasher.finalize()
/// ```
public struct SHA1: Sendable {
    private var context = SHA1_CTX()

    public init() { SHA1Init(&context) }

    /// Adds bytes to the digest.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        SHA1Update(&context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    public mutating func update(_ data: Data) { data.withUnsafeBytes { update($0) } }
    public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The 20-byte digest; the hasher is spent afterwards.
    public mutating func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        digest.withUnsafeMutableBufferPointer { SHA1Final($0.baseAddress, &context) }
        return digest
    }

    /// The digest of some bytes.
    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA1()
        if let done: Void = bytes.withContiguousStorageIfAvailable({ hasher.update(UnsafeRawBufferPointer($0)) }) {
            _ = done
        } else {
            hasher.update(Array(bytes))
        }
        return hasher.finalize()
    }

    /// The digest of a string's UTF-8 bytes.
    public static func hash(_ text: String) -> [UInt8] {
        var hasher = SHA1()
        var copy = text
        copy.withUTF8 { hasher.update(UnsafeRawBufferPointer($0)) }
        return hasher.finalize()
    }

    /// The lowercase hexadecimal digest of some data, as `sha1sum` prints it.
    public static func hex(_ data: Data) -> String { hash(data).hexString }
}
