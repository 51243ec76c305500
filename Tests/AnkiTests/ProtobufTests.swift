import Foundation
import Testing
@testable import Anki

@Suite struct ProtobufTests {
    @Test func decodesPackageMetadataAsAnkiWritesIt() throws {
        // The `meta` entry of Anki's exports: field 1 varint.
        #expect(try PackageMetadata(decoding: [0x08, 0x03], path: "meta").version == 3)
        #expect(try PackageMetadata(decoding: [0x08, 0x02], path: "meta").version == 2)
        #expect(try PackageMetadata(decoding: [], path: "meta").version == 0)
        #expect(PackageMetadata(version: 3).encoded() == [0x08, 0x03])
    }

    @Test func roundTripsMediaEntries() throws {
        let entries = MediaEntries(entries: [
            .init(name: "red dot.png", size: 73, sha1: Array(repeating: 0xAB, count: 20), legacyZipFilename: nil),
            .init(name: "é.mp3", size: 300_000, sha1: Array(0..<20), legacyZipFilename: 0),
        ])
        let decoded = try MediaEntries(decoding: entries.encoded(), path: "media")
        #expect(decoded == entries)
    }

    @Test func skipsUnknownFieldsOfEveryWireType() throws {
        var writer = ProtobufWriter()
        writer.message(1) { entry in
            entry.varint(7, 12345)              // unknown varint
            entry.string(1, "a.jpg")
            entry.bytes(9, [1, 2, 3])           // unknown bytes
            entry.varint(2, 10)
        }
        var bytes = writer.bytes
        bytes += [0x2D, 1, 2, 3, 4]                   // field 5, fixed32
        bytes += [0x31, 1, 2, 3, 4, 5, 6, 7, 8]       // field 6, fixed64
        bytes += [0x5B, 0x08, 0x01, 0x5C]             // field 11 group holding a varint, then its end
        let decoded = try MediaEntries(decoding: bytes, path: "media")
        #expect(decoded.entries.map(\.name) == ["a.jpg"])
        #expect(decoded.entries.first?.size == 10)
    }

    @Test(arguments: [
        ("truncated varint", [0x08, 0x80] as [UInt8]),
        ("length past end", [0x0A, 0x05, 0x01]),
        ("bad wire type", [0x0F, 0x00]),
        ("field zero", [0x00, 0x01]),
        ("overlong varint", [0x08] + [UInt8](repeating: 0xFF, count: 11)),
        ("unterminated group", [0x0B, 0x08, 0x01]),
        ("invalid utf8 name", [0x0A, 0x03, 0x0A, 0x01, 0xFF]),
    ])
    func rejectsMalformedMessages(_ name: String, _ bytes: [UInt8]) {
        #expect(throws: AnkiError.self) { try MediaEntries(decoding: bytes, path: name) }
    }

    @Test func readsFieldNumber255() throws {
        var writer = ProtobufWriter()
        writer.message(1) { entry in
            entry.string(1, "x")
            entry.varint(255, 7, always: true)
        }
        // Field 255 with wire type 0 is the two-byte key 0xF8 0x0F.
        #expect(writer.bytes.contains(0xF8))
        #expect(try MediaEntries(decoding: writer.bytes, path: "media").entries.first?.legacyZipFilename == 7)
    }

    @Test func decodesNoteTypeAndDeckConfiguration() throws {
        var notetype = ProtobufWriter()
        notetype.varint(1, 1)
        notetype.varint(2, 1)
        notetype.string(3, ".card {}")
        notetype.string(5, "latex")      // skipped
        let config = try NotetypeConfig(decoding: notetype.bytes, path: "nt")
        #expect(config.kind == 1 && config.sortFieldIndex == 1 && config.css == ".card {}")

        var deck = ProtobufWriter()
        deck.message(1) { normal in
            normal.varint(1, 1)
            normal.string(4, "About this deck")
        }
        let kind = try DeckKind(decoding: deck.bytes, path: "deck")
        #expect(kind.description == "About this deck" && !kind.isFiltered)
        var filtered = ProtobufWriter()
        filtered.message(2) { $0.bool(1, true) }
        #expect(try DeckKind(decoding: filtered.bytes, path: "deck").isFiltered)
    }

    /// Found by the AnkiProtobuf fuzzer: a deck's desired retention (Normal field 10, a float)
    /// of 1e30, an infinity or NaN trapped converting retention × 100 to Int; it saturates to
    /// Anki's `u32` range as Rust's `as u32` does.
    @Test(arguments: [(Float(1e30), Int(UInt32.max)), (-Float(1e30), 0), (.infinity, Int(UInt32.max)), (-.infinity, 0), (.nan, 0), (0.9, 90)])
    func aDeckRetentionBeyondIntDoesNotTrap(_ retention: Float, _ percent: Int) throws {
        var normal: [UInt8] = [10 << 3 | 5]
        withUnsafeBytes(of: retention.bitPattern.littleEndian) { normal += $0 }
        let kind: [UInt8] = [1 << 3 | 2, UInt8(normal.count)] + normal
        var deck = AnkiDeck(id: 1, name: "D")
        let options = try SchemaConfig.readDeck(common: [], kind: kind, into: &deck, path: "decks")
        #expect(options["desiredRetention"] as? Int == percent)
    }

    /// Found by the AnkiProtobuf fuzzer: a preset's starting ease (field 11, a float) of 1e30,
    /// an infinity or NaN trapped converting ease × 1000 to Int (SIGILL in `deck import`).
    @Test(arguments: [Float(1e30), -Float(1e30), .infinity, -.infinity, .nan])
    func aStartingEaseBeyondIntDoesNotTrap(_ ease: Float) throws {
        var bytes: [UInt8] = [11 << 3 | 5]
        withUnsafeBytes(of: ease.bitPattern.littleEndian) { bytes += $0 }
        var preset = AnkiPreset(id: 1)
        _ = try SchemaConfig.readPreset(bytes, into: &preset, path: "deck_config")
        #expect(ease.isNaN ? preset.startingEase == 0 : (ease > 0 ? preset.startingEase == Int.max : preset.startingEase == Int.min))
    }
}
