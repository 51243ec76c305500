import Foundation
import Testing
@testable import DeckDocument

@Suite struct JSONStringArrayTests {
    @Test func stringArrayReader() {
        #expect(JSONStringArray.parse(#"["a","b\"c","\u00e9\ud83d\ude00","\n"]"#) == ["a", "b\"c", "é😀", "\n"])
        #expect(JSONStringArray.parse("[]") == [])
        #expect(JSONStringArray.parse(#" [ "x" , "y" ] "#) == ["x", "y"])
        #expect(JSONStringArray.parse(#"["a",]"#) == nil)
        #expect(JSONStringArray.parse(#"["a"] x"#) == nil)
        #expect(JSONStringArray.parse(#"[1]"#) == nil)
        #expect(JSONStringArray.parse(#"["\ud83d"]"#) == nil)
    }

    /// The writer gives JSONEncoder's bytes for every Unicode scalar (alone and in text), and
    /// for empty arrays and strings.
    @Test func stringArrayWriterWritesWhatJSONEncoderWrites() throws {
        let encoder = JSONEncoder()
        func check(_ values: [String]) throws {
            let expected = String(decoding: try encoder.encode(values), as: UTF8.self)
            #expect(JSONStringArray.encode(values) == expected)
            #expect(JSONStringArray.parse(JSONStringArray.encode(values)) == values)
        }
        try check([])
        try check([""])
        try check(["", ""])
        try check(["a/b\\c\"d", "<b>x</b>", "\u{7F}\u{85}\u{2028}\u{2029}\u{FEFF}", "é😀"])
        // Every scalar, in runs of 256 (one string each), with text around them.
        var scalars: [Unicode.Scalar] = []
        for value in UInt32(0)...0x10FFFF { if let scalar = Unicode.Scalar(value) { scalars.append(scalar) } }
        var start = 0
        while start < scalars.count {
            let run = scalars[start..<min(start + 256, scalars.count)]
            var text = "x"
            text.unicodeScalars.append(contentsOf: run)
            try check([text, String(String.UnicodeScalarView(run.prefix(3))), "y"])
            start += 256
        }
        // Each ASCII character alone.
        for value in UInt8(0)..<0x80 { try check([String(UnicodeScalar(value))]) }
    }

    /// GUIDs are Anki's base 91 of a 64-bit number, most significant digit first, no leading zeros.
    @Test func guidsAreBase91() {
        func reference(_ value: UInt64) -> String {
            var value = value
            var characters: [Character] = []
            repeat {
                characters.append(AnkiGUID.alphabet[Int(value % 91)])
                value /= 91
            } while value > 0
            return String(characters.reversed())
        }
        var generator = AnkiGUID.FastRandom()
        var values: [UInt64] = [0, 1, 90, 91, 8280, 8281, UInt64.max, UInt64.max - 1, 1 << 63]
        for _ in 0..<10_000 { values.append(generator.next()) }
        for value in values { #expect(AnkiGUID.encode(value) == reference(value)) }
        // Two generators seeded apart do not repeat each other.
        var other = AnkiGUID.FastRandom()
        #expect((0..<100).map { _ in generator.next() } != (0..<100).map { _ in other.next() })
    }
}
