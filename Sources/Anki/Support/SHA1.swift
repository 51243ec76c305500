import Foundation

/// SHA-1 (FIPS 180-4), incremental. Anki needs it for note checksums (`csum`) and the media list
/// of current packages; no system library linked here exposes it (Foundation on Linux has no
/// CryptoKit), so this is a small implementation checked against the FIPS test vectors.
package struct SHA1 {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    private var block = [UInt8](repeating: 0, count: 64)
    private var blockCount = 0
    private var totalBytes: UInt64 = 0

    package init() {}

    /// The digest of `bytes` (20 bytes).
    package static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA1()
        hasher.update(Array(bytes))
        return hasher.finalize()
    }

    /// The digest of the UTF-8 bytes of `text`.
    package static func hash(_ text: String) -> [UInt8] {
        var hasher = SHA1()
        var copy = text
        copy.withUTF8 { hasher.update(UnsafeRawBufferPointer($0)) }
        return hasher.finalize()
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
        var offset = 0
        if blockCount > 0 {
            let take = min(64 - blockCount, bytes.count)
            for i in 0..<take { block[blockCount + i] = bytes[i] }
            blockCount += take
            offset = take
            if blockCount == 64 {
                block.withUnsafeBytes { compress($0) }
                blockCount = 0
            }
        }
        while bytes.count - offset >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 64]))
            offset += 64
        }
        while offset < bytes.count {
            block[blockCount] = bytes[offset]
            blockCount += 1
            offset += 1
        }
    }

    /// Pads, finishes and returns the 20-byte digest.
    package mutating func finalize() -> [UInt8] {
        let bitLength = totalBytes &* 8
        var padding: [UInt8] = [0x80]
        let afterMarker = (blockCount + 1) % 64
        padding += [UInt8](repeating: 0, count: afterMarker <= 56 ? 56 - afterMarker : 120 - afterMarker)
        for shift in stride(from: 56, through: 0, by: -8) { padding.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        let savedTotal = totalBytes
        update(padding)
        totalBytes = savedTotal
        var digest: [UInt8] = []
        digest.reserveCapacity(20)
        for word in [state.0, state.1, state.2, state.3, state.4] {
            digest += [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16),
                       UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)]
        }
        return digest
    }

    private mutating func compress(_ chunk: UnsafeRawBufferPointer) {
        state = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { w in
            for i in 0..<16 {
                w[i] = UInt32(chunk[4 * i]) << 24 | UInt32(chunk[4 * i + 1]) << 16
                    | UInt32(chunk[4 * i + 2]) << 8 | UInt32(chunk[4 * i + 3])
            }
            for i in 16..<80 {
                let x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]
                w[i] = x << 1 | x >> 31
            }
            var (a, b, c, d, e) = state
            for i in 0..<80 {
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
                let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[i]
                e = d
                d = c
                c = b << 30 | b >> 2
                b = a
                a = temp
            }
            return (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
        }
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
