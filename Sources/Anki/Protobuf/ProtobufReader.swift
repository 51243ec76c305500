import Foundation

/// A minimal protobuf wire-format reader: varints, fixed 32/64-bit values and length-delimited
/// bytes, field by field, with unknown fields (groups included) skipped by the caller's `switch`.
///
/// Every read is bounds-checked; malformed input throws ``AnkiError/Kind/malformedProtobuf``.
struct ProtobufReader {
    /// The value of one field as it appears on the wire.
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case bytes(ArraySlice<UInt8>)
        case fixed32(UInt32)
        /// A (deprecated) group, already skipped.
        case group
    }

    private let bytes: [UInt8]
    private var position: Int
    private let end: Int
    private let path: String
    private let depth: Int

    /// A reader over `bytes`; `path` names the source in errors.
    init(_ bytes: [UInt8], path: String) {
        self.init(bytes[...], path: path, depth: 0)
    }

    /// A reader over a length-delimited sub-message.
    init(_ slice: ArraySlice<UInt8>, path: String, depth: Int = 0) {
        bytes = Array(slice)
        position = 0
        end = bytes.count
        self.path = path
        self.depth = depth
    }

    /// The next field as (field number, value), or nil at the end of the message.
    mutating func next() throws -> (number: Int, value: Value)? {
        guard position < end else { return nil }
        let key = try readVarint()
        let number = key >> 3
        guard number >= 1, number <= 536_870_911 else { throw malformed("invalid field number \(number)") }
        let value: Value
        switch key & 7 {
        case 0: value = .varint(try readVarint())
        case 1: value = .fixed64(try readFixed(8))
        case 2: value = .bytes(try readLengthDelimited())
        case 5: value = .fixed32(UInt32(try readFixed(4)))
        case 3:
            try skipGroup(number: Int(number))
            value = .group
        default: throw malformed("invalid wire type \(key & 7)")
        }
        return (Int(number), value)
    }

    /// A reader over the sub-message in `value`, nesting-limited against stack exhaustion.
    func message(_ value: Value) throws -> ProtobufReader {
        guard depth < 64 else { throw malformed("messages nested too deeply") }
        return ProtobufReader(try bytes(value), path: path, depth: depth + 1)
    }

    /// `value` as a varint-encoded unsigned integer.
    func uint64(_ value: Value) throws -> UInt64 {
        guard case .varint(let v) = value else { throw malformed("expected a varint") }
        return v
    }

    /// `value` as a varint-encoded (two's complement) signed integer, as `int64`/`int32` encode it.
    func int64(_ value: Value) throws -> Int64 { Int64(bitPattern: try uint64(value)) }

    /// `value` as a bool.
    func bool(_ value: Value) throws -> Bool { try uint64(value) != 0 }

    /// `value` as length-delimited bytes.
    /// A `float` field, as the shortest `Double` that prints as the float does (`0.85`, not
    /// `0.8500000238418579`), which is how Anki's schema-11 JSON spells it.
    func float(_ value: Value) throws -> Double {
        guard case .fixed32(let bits) = value else { throw malformed("expected a 32-bit float") }
        return Self.widen(Float(bitPattern: bits))
    }

    /// The elements of a `repeated float` field: packed (length-delimited) or one value.
    func floats(_ value: Value) throws -> [Double] {
        switch value {
        case .fixed32(let bits): return [Self.widen(Float(bitPattern: bits))]
        case .bytes(let slice):
            guard slice.count % 4 == 0 else { throw malformed("a packed float list has \(slice.count) bytes") }
            var result: [Double] = []
            var index = slice.startIndex
            while index < slice.endIndex {
                let bits = UInt32(slice[index]) | UInt32(slice[index + 1]) << 8 | UInt32(slice[index + 2]) << 16 | UInt32(slice[index + 3]) << 24
                result.append(Self.widen(Float(bitPattern: bits)))
                index += 4
            }
            return result
        default: throw malformed("expected 32-bit floats")
        }
    }

    /// A float as the `Double` its shortest decimal text reads as.
    static func widen(_ float: Float) -> Double {
        guard float.isFinite else { return Double(float) }
        return Double("\(float)") ?? Double(float)
    }

    func bytes(_ value: Value) throws -> ArraySlice<UInt8> {
        guard case .bytes(let b) = value else { throw malformed("expected length-delimited bytes") }
        return b
    }

    /// `value` as a UTF-8 string.
    func string(_ value: Value) throws -> String {
        let raw = try bytes(value)
        guard let text = String(validating: raw, as: UTF8.self) else { throw malformed("a string is not valid UTF-8") }
        return text
    }

    func malformed(_ reason: String) -> AnkiError {
        AnkiError(.malformedProtobuf, path: path, reason: "protobuf: \(reason)")
    }

    /// Whether bytes are left (for packed repeated fields).
    var hasMore: Bool { position < end }

    /// One bare varint (an element of a packed repeated field).
    mutating func readRawVarint() throws -> UInt64 { try readVarint() }

    private mutating func readVarint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw malformed("truncated varint") }
            let byte = bytes[position]
            position += 1
            if shift == 63 && byte > 1 { throw malformed("varint overflows 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw malformed("varint longer than 10 bytes") }
        }
    }

    private mutating func readFixed(_ size: Int) throws -> UInt64 {
        guard end - position >= size else { throw malformed("truncated fixed-size value") }
        var result: UInt64 = 0
        for i in 0..<size { result |= UInt64(bytes[position + i]) << (8 * UInt64(i)) }
        position += size
        return result
    }

    private mutating func readLengthDelimited() throws -> ArraySlice<UInt8> {
        let length = try readVarint()
        guard length <= UInt64(end - position) else { throw malformed("length runs past the end") }
        let start = position
        position += Int(length)
        return bytes[start..<position]
    }

    private mutating func skipGroup(number: Int) throws {
        var open = [number]
        while let top = open.last {
            guard open.count <= 64 else { throw malformed("groups nested too deeply") }
            guard position < end else { throw malformed("unterminated group") }
            let key = try readVarint()
            let field = Int(key >> 3)
            switch key & 7 {
            case 0: _ = try readVarint()
            case 1: _ = try readFixed(8)
            case 2: _ = try readLengthDelimited()
            case 5: _ = try readFixed(4)
            case 3: open.append(field)
            case 4:
                guard field == top else { throw malformed("mismatched end of group") }
                open.removeLast()
            default: throw malformed("invalid wire type \(key & 7)")
            }
        }
    }
}
