import Foundation
import Testing
import Digest

/// FIPS 180 test vectors, one-shot and fed in pieces.
@Suite struct DigestTests {
    static let sha1Vectors: [(String, String)] = [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ]
    static let sha256Vectors: [(String, String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ]

    @Test(arguments: sha1Vectors.indices)
    func sha1(index: Int) {
        let (input, expected) = Self.sha1Vectors[index]
        #expect(SHA1.hash(input).hexString == expected)
        var hasher = SHA1()
        for byte in input.utf8 { hasher.update([byte]) }
        #expect(hasher.finalize().hexString == expected)
    }

    @Test(arguments: sha256Vectors.indices)
    func sha256(index: Int) {
        let (input, expected) = Self.sha256Vectors[index]
        #expect(SHA256.hex(Data(input.utf8)) == expected)
        var hasher = SHA256()
        for byte in input.utf8 { hasher.update([byte]) }
        #expect(hasher.finalize().hexString == expected)
    }

    @Test func millionAs() throws {
        let data = Data(repeating: 0x61, count: 1_000_000)
        #expect(SHA1.hex(data) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
        #expect(SHA256.hex(data) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("digest-\(UUID().uuidString)")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try SHA256.hex(fileAt: url) == SHA256.hex(data))
    }
}
