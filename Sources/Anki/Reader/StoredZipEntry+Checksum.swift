internal import CZlib
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension StoredZipEntry {
    /// Checks the entry's bytes in the file at `url` against the CRC-32 the zip's central
    /// directory records for it, reading them once in 1 MiB chunks (zlib's `crc32`).
    ///
    /// An entry read in place never passes through libarchive, which is what checks the CRC of
    /// entries it reads: without this, a damaged stored collection would be read silently.
    /// - Throws: ``AnkiError`` of kind ``AnkiError/Kind/corruptCollection`` when the bytes do not
    ///   match (the package is damaged), ``AnkiError/Kind/io`` when they cannot be read.
    ///   The error's path is `package:entry`, and its reason names the entry too.
    func verifyChecksum(in url: URL, entry name: String) throws {
        let label = "\(url.path):\(name)"
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw AnkiError(.io, path: label, reason: "cannot open the package to check \(name): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var crc = crc32(0, nil, 0)
        var position = offset
        let end = offset + length
        while position < end {
            let wanted = Int(min(Int64(chunk), end - position))
            let count = pread(descriptor, buffer, wanted, off_t(position))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let reason = count == 0 ? "the package ends inside the entry" : String(cString: strerror(errno))
                throw AnkiError(count == 0 ? .corruptCollection : .io, path: label, reason: "cannot read \(name) to check it: \(reason)")
            }
            crc = crc32(crc, buffer.assumingMemoryBound(to: UInt8.self), uInt(count))
            position += Int64(count)
        }
        let computed = UInt32(truncatingIfNeeded: crc)
        guard computed == checksum else {
            throw AnkiError(.corruptCollection, path: label, reason: "the package is damaged: \(name) fails its checksum "
                            + "(CRC-32 \(Self.hex(computed)), the zip's directory says \(Self.hex(checksum)))")
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}
