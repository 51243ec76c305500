import Foundation

/// SHA-1 (FIPS 180-4), incremental. Anki needs it for note checksums (`csum`) and the media list
/// of current packages; no system library linked here exposes it (Foundation on Linux has no
/// CryptoKit), so this is a small implementation checked against the FIPS test vectors.
///
/// The pending block lives inline (no heap allocation), so hashing short fields is cheap.
package struct SHA1 {
    private var h0: UInt32 = 0x6745_2301
    private var h1: UInt32 = 0xEFCD_AB89
    private var h2: UInt32 = 0x98BA_DCFE
    private var h3: UInt32 = 0x1032_5476
    private var h4: UInt32 = 0xC3D2_E1F0
    /// The pending partial block (64 bytes).
    private var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var blockCount = 0
    private var totalBytes: UInt64 = 0

    package init() {}

    /// The digest of `bytes` (20 bytes).
    package static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA1()
        let array = Array(bytes)
        array.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    /// The digest of the UTF-8 bytes of `text`.
    package static func hash(_ text: String) -> [UInt8] {
        var hasher = SHA1()
        var copy = text
        copy.withUTF8 { hasher.update(UnsafeRawBufferPointer($0)) }
        return hasher.finalize()
    }

    /// The first four digest bytes of the UTF-8 of `text`, big-endian (Anki's note checksum).
    package static func prefix32(_ text: String) -> UInt32 {
        var hasher = SHA1()
        var copy = text
        copy.withUTF8 { hasher.update(UnsafeRawBufferPointer($0)) }
        hasher.pad()
        return hasher.h0
    }

    /// Feeds `bytes`.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Feeds `data`.
    package mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// Feeds raw bytes.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        totalBytes &+= UInt64(bytes.count)
        append(bytes)
    }

    /// Pads, finishes and returns the 20-byte digest.
    package mutating func finalize() -> [UInt8] {
        pad()
        var digest: [UInt8] = []
        digest.reserveCapacity(20)
        for word in [h0, h1, h2, h3, h4] {
            digest.append(UInt8(word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// Appends the 0x80 marker, zeros and the bit length, compressing the last block(s).
    private mutating func pad() {
        let bitLength = totalBytes &* 8
        withUnsafeBytes(of: UInt8(0x80)) { append($0) }
        let zeros = blockCount <= 56 ? 56 - blockCount : 120 - blockCount
        let zeroBlock: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeBytes(of: zeroBlock) { raw in
            var left = zeros
            while left > 0 {
                let n = min(left, 64)
                append(UnsafeRawBufferPointer(rebasing: raw[0..<n]))
                left -= n
            }
        }
        withUnsafeBytes(of: bitLength.bigEndian) { append($0) }
    }

    /// Buffers or compresses `bytes` without counting them in the message length.
    private mutating func append(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        if blockCount > 0 {
            let take = min(64 - blockCount, bytes.count)
            let start = blockCount
            withUnsafeMutableBytes(of: &block) { buffer in
                for i in 0..<take { buffer[start + i] = bytes[i] }
            }
            blockCount += take
            offset = take
            if blockCount == 64 {
                let copy = block
                withUnsafeBytes(of: copy) { compress($0) }
                blockCount = 0
            }
        }
        while bytes.count - offset >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 64]))
            offset += 64
        }
        if offset < bytes.count {
            let rest = bytes.count - offset
            withUnsafeMutableBytes(of: &block) { buffer in
                for i in 0..<rest { buffer[i] = bytes[offset + i] }
            }
            blockCount = rest
        }
    }

    private mutating func compress(_ chunk: UnsafeRawBufferPointer) {
        var w: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
                UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var a = h0, b = h1, c = h2, d = h3, e = h4
        withUnsafeMutableBytes(of: &w) { raw in
            let words = raw.bindMemory(to: UInt32.self)
            for i in 0..<16 {
                words[i] = UInt32(chunk[4 * i]) << 24 | UInt32(chunk[4 * i + 1]) << 16
                    | UInt32(chunk[4 * i + 2]) << 8 | UInt32(chunk[4 * i + 3])
            }
            // A rolling 16-word schedule: w[i] = rotl1(w[i-3] ^ w[i-8] ^ w[i-14] ^ w[i-16]).
            for i in 0..<80 {
                let word: UInt32
                if i < 16 {
                    word = words[i]
                } else {
                    let x = words[(i - 3) & 15] ^ words[(i - 8) & 15] ^ words[(i - 14) & 15] ^ words[i & 15]
                    word = x << 1 | x >> 31
                    words[i & 15] = word
                }
                let f: UInt32
                let k: UInt32
                if i < 20 {
                    f = (b & c) | (~b & d); k = 0x5A82_7999
                } else if i < 40 {
                    f = b ^ c ^ d; k = 0x6ED9_EBA1
                } else if i < 60 {
                    f = (b & c) | (b & d) | (c & d); k = 0x8F1B_BCDC
                } else {
                    f = b ^ c ^ d; k = 0xCA62_C1D6
                }
                let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ word
                e = d
                d = c
                c = b << 30 | b >> 2
                b = a
                a = temp
            }
        }
        h0 = h0 &+ a
        h1 = h1 &+ b
        h2 = h2 &+ c
        h3 = h3 &+ d
        h4 = h4 &+ e
    }
}

extension [UInt8] {
    /// Lowercase hexadecimal, as `sha1sum` prints.
    package var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
