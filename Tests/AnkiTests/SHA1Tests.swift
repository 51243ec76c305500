import Foundation
import Digest
import Testing
@testable import Anki

@Suite struct SHA1Tests {
    // FIPS 180-2 / RFC 3174 test vectors.
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
        ("test", "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"),
    ])
    func matchesKnownDigests(_ input: String, _ hex: String) {
        #expect(SHA1.hash(input).hexString == hex)
    }

    @Test func hashesAMillionAs() {
        var hasher = SHA1()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(chunk) }
        #expect(hasher.finalize().hexString == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test(arguments: [1, 55, 56, 63, 64, 65, 127, 128, 1000])
    func incrementalEqualsOneShot(_ length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        var hasher = SHA1()
        var offset = 0
        for size in [1, 3, 7, 60, 200] where offset < length {
            let end = min(length, offset + size)
            hasher.update(Array(bytes[offset..<end]))
            offset = end
        }
        if offset < length { hasher.update(Array(bytes[offset...])) }
        #expect(hasher.finalize() == SHA1.hash(bytes))
    }
}
