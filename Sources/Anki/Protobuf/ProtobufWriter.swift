/// A minimal protobuf wire-format writer (varints, length-delimited fields), the inverse of ``ProtobufReader``.
struct ProtobufWriter {
    /// The encoded message so far.
    private(set) var bytes: [UInt8] = []

    /// Appends a varint field; zero values are omitted, as proto3 does, unless `always`
    /// (for optional fields, whose presence matters).
    mutating func varint(_ number: Int, _ value: UInt64, always: Bool = false) {
        guard always || value != 0 else { return }
        key(number, wireType: 0)
        appendVarint(value)
    }

    /// Appends a signed (`int64`/`int32`) varint field; zero is omitted.
    mutating func int64(_ number: Int, _ value: Int64) {
        varint(number, UInt64(bitPattern: value))
    }

    /// Appends a bool field; `false` is omitted.
    mutating func bool(_ number: Int, _ value: Bool) {
        varint(number, value ? 1 : 0)
    }

    /// Appends a length-delimited field; empty values are omitted unless `always`.
    mutating func bytes(_ number: Int, _ value: some Collection<UInt8>, always: Bool = false) {
        guard always || !value.isEmpty else { return }
        key(number, wireType: 2)
        appendVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Appends a string field; empty strings are omitted.
    mutating func string(_ number: Int, _ value: String) {
        bytes(number, Array(value.utf8))
    }

    /// Appends a `float` field (fixed 32 bits); zero is omitted unless `always`.
    mutating func float(_ number: Int, _ value: Float, always: Bool = false) {
        guard always || value != 0 else { return }
        key(number, wireType: 5)
        let bits = value.bitPattern
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt32(shift))) }
    }

    /// Appends a packed `repeated float` field; an empty list is omitted.
    mutating func floats(_ number: Int, _ values: [Float]) {
        guard !values.isEmpty else { return }
        var packed: [UInt8] = []
        packed.reserveCapacity(values.count * 4)
        for value in values {
            let bits = value.bitPattern
            for shift in stride(from: 0, to: 32, by: 8) { packed.append(UInt8(truncatingIfNeeded: bits >> UInt32(shift))) }
        }
        bytes(number, packed)
    }

    /// Appends a packed `repeated uint32`/`uint64` field; an empty list is omitted.
    mutating func varints(_ number: Int, _ values: [UInt64]) {
        guard !values.isEmpty else { return }
        var inner = ProtobufWriter()
        for value in values { inner.appendVarint(value) }
        bytes(number, inner.bytes)
    }

    /// Appends an embedded message (always written, even when empty).
    mutating func message(_ number: Int, _ build: (inout ProtobufWriter) -> Void) {
        var inner = ProtobufWriter()
        build(&inner)
        bytes(number, inner.bytes, always: true)
    }

    private mutating func key(_ number: Int, wireType: UInt64) {
        appendVarint(UInt64(number) << 3 | wireType)
    }

    private mutating func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }
}
