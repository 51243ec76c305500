import Foundation
import Testing
@testable import Anki

@Suite struct ZstdTests {
    static let sample = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 31 / 7) })

    @Test func roundTripsInMemory() throws {
        let compressed = try Zstd.compress(Self.sample)
        #expect(compressed.count < Self.sample.count)
        #expect(Zstd.hasFrameMagic(compressed))
        #expect(try Zstd.decompress(compressed, limit: 1 << 20) == Self.sample)
    }

    @Test func roundTripsFileToFile() throws {
        let dir = try TemporaryDirectory()
        let source = try dir.write("in.zst", try Zstd.compress(Self.sample))
        let written = try Zstd.decompress(file: source, to: dir.file("out"), limit: 1 << 20)
        #expect(written == Int64(Self.sample.count))
        #expect(try Data(contentsOf: dir.file("out")) == Self.sample)
    }

    @Test func decodesConcatenatedFrames() throws {
        let first = try Zstd.compress(Data("hello ".utf8))
        let second = try Zstd.compress(Data("world".utf8))
        #expect(try Zstd.decompress(first + second, limit: 100) == Data("hello world".utf8))
    }

    @Test func refusesOutputPastTheLimit() throws {
        // 64 MiB of zeros compresses to a few KiB: a small bomb.
        let bomb = try Zstd.compress(Data(count: 64 << 20), level: 19)
        #expect(bomb.count < 100_000)
        let error = try #require(throws: AnkiError.self) { try Zstd.decompress(bomb, limit: 1 << 20) }
        #expect(error.kind == .limitExceeded)
        let dir = try TemporaryDirectory()
        let source = try dir.write("bomb.zst", bomb)
        let fileError = try #require(throws: AnkiError.self) {
            try Zstd.decompress(file: source, to: dir.file("out"), limit: 1 << 20)
        }
        #expect(fileError.kind == .limitExceeded)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out").path), "a failed decode leaves no file")
    }

    @Test(arguments: [
        ("garbage", Data("definitely not zstd".utf8)),
        ("empty", Data()),
        ("truncated", Data([0x28, 0xB5, 0x2F, 0xFD, 0x24, 0x10])),
    ])
    func rejectsMalformedInput(_ name: String, _ data: Data) throws {
        let error = try #require(throws: AnkiError.self) { try Zstd.decompress(data, limit: 1 << 20, path: name) }
        #expect(error.kind == .malformedCompression)
        #expect(error.path == name)
    }

    @Test func rejectsATruncatedRealFrame() throws {
        let compressed = try Zstd.compress(Self.sample)
        let error = try #require(throws: AnkiError.self) {
            try Zstd.decompress(compressed.prefix(compressed.count / 2), limit: 1 << 20)
        }
        #expect(error.kind == .malformedCompression)
    }

    @Test func refusesAHugeWindow() throws {
        // A frame header asking for a 2 GiB window (Window_Descriptor exponent 21 → 2^31), no content size.
        let header = Data([0x28, 0xB5, 0x2F, 0xFD, 0x00, 0xA8]) + Data(count: 16)
        let error = try #require(throws: AnkiError.self) { try Zstd.decompress(header, limit: 1 << 20) }
        #expect(error.kind == .limitExceeded)
    }
}
