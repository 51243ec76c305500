import Foundation

/// Where a zip entry stored without compression keeps its bytes in the file, found through the
/// zip's central directory, so that SQLite can read a `collection.anki2` in place (see
/// `Database(readOnlySliceOf:offset:length:)`) instead of having it copied out first.
///
/// Only plain cases are located: a classic (not zip64) directory, an entry stored (method 0),
/// unencrypted, whose sizes agree and whose local header names it; anything else gives nil and
/// the package is read the ordinary way. Nothing here trusts the file: every offset is checked
/// against its size.
struct StoredZipEntry: Equatable {
    /// Where the entry's bytes start.
    var offset: Int64
    /// How many bytes it has.
    var length: Int64
    /// The CRC-32 of those bytes, as the central directory records it: reading in place
    /// bypasses libarchive's check, so ``verifyChecksum(in:entry:)`` must run before use.
    var checksum: UInt32

    /// The stored entries among `names` in the zip at `url`, by name (the first of a repeated name).
    /// `maxDirectorySize` bounds the central directory read into memory.
    static func locate(_ names: Set<String>, in url: URL, maxDirectorySize: Int = 16 << 20) -> [String: StoredZipEntry] {
        guard let file = try? FileHandle(forReadingFrom: url) else { return [:] }
        defer { try? file.close() }
        guard let fileSize = try? file.seekToEnd(), fileSize >= 22 else { return [:] }
        // The end-of-central-directory record: in the last 22 + 65,535 (comment) bytes.
        let tailLength = min(fileSize, 22 + 65_535)
        guard let tail = read(file, at: fileSize - tailLength, count: Int(tailLength)) else { return [:] }
        guard let end = tail.lastIndex(ofSignature: 0x0605_4B50, from: tail.count - 22) else { return [:] }
        let entryCount = Int(tail.uint16(at: end + 10)), directorySize = Int64(tail.uint32(at: end + 12))
        let directoryOffset = Int64(tail.uint32(at: end + 16))
        guard entryCount != 0xFFFF, directorySize != 0xFFFF_FFFF, directoryOffset != 0xFFFF_FFFF,
              directorySize <= Int64(maxDirectorySize), directoryOffset + directorySize <= fileSize,
              let directory = read(file, at: UInt64(directoryOffset), count: Int(directorySize)) else { return [:] }

        var found: [String: StoredZipEntry] = [:]
        var position = 0
        for _ in 0..<entryCount {
            guard position + 46 <= directory.count, directory.uint32(at: position) == 0x0201_4B50 else { break }
            let flags = directory.uint16(at: position + 8), method = directory.uint16(at: position + 10)
            let checksum = directory.uint32(at: position + 16)
            let compressed = UInt64(directory.uint32(at: position + 20)), size = UInt64(directory.uint32(at: position + 24))
            let nameLength = Int(directory.uint16(at: position + 28)), extraLength = Int(directory.uint16(at: position + 30))
            let commentLength = Int(directory.uint16(at: position + 32))
            let headerOffset = UInt64(directory.uint32(at: position + 42))
            let next = position + 46 + nameLength + extraLength + commentLength
            guard next <= directory.count else { break }
            let name = String(decoding: directory[(position + 46)..<(position + 46 + nameLength)], as: UTF8.self)
            position = next
            guard names.contains(name), found[name] == nil, method == 0, flags & 1 == 0, compressed == size,
                  size != 0xFFFF_FFFF, headerOffset != 0xFFFF_FFFF, headerOffset + 30 <= fileSize,
                  let local = read(file, at: headerOffset, count: 30), local.uint32(at: 0) == 0x0403_4B50 else { continue }
            let localName = UInt64(local.uint16(at: 26)), localExtra = UInt64(local.uint16(at: 28))
            let start = headerOffset + 30 + localName + localExtra
            guard start + size <= fileSize,
                  read(file, at: headerOffset + 30, count: Int(localName)) == Array(name.utf8) else { continue }
            found[name] = StoredZipEntry(offset: Int64(start), length: Int64(size), checksum: checksum)
        }
        return found
    }

    private static func read(_ file: FileHandle, at offset: UInt64, count: Int) -> [UInt8]? {
        guard (try? file.seek(toOffset: offset)) != nil, let data = try? file.read(upToCount: count), data.count == count else {
            return count == 0 ? [] : nil
        }
        return Array(data)
    }
}

private extension [UInt8] {
    /// The little-endian 16-bit value at `index`.
    func uint16(at index: Int) -> UInt16 {
        UInt16(self[index]) | UInt16(self[index + 1]) << 8
    }

    /// The little-endian 32-bit value at `index`.
    func uint32(at index: Int) -> UInt32 {
        UInt32(uint16(at: index)) | UInt32(uint16(at: index + 2)) << 16
    }

    /// The last position at or before `from` where the little-endian `signature` starts.
    func lastIndex(ofSignature signature: UInt32, from: Int) -> Int? {
        var index = from
        while index >= 0 {
            if uint32(at: index) == signature { return index }
            index -= 1
        }
        return nil
    }
}
