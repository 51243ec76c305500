/// The character encoding of a CSV or TSV file. The reader turns every encoding into UTF-8
/// as it reads (in chunks, so memory stays constant), then parses the UTF-8.
///
/// Without an explicit encoding (``CSVDialect/encoding`` `nil`) a file is UTF-8, or UTF-16
/// when it starts with a UTF-16 byte order mark; a UTF-8 byte order mark is skipped. Latin-1
/// and Windows-1252 have no mark to recognise them by, so they are only used when asked for.
///
/// ```swift
/// var dialect = CSVDialect.csv
/// dialect.encoding = .latin1
/// let encoding = CSVEncoding(name: "UTF-16")   // .utf16
/// ```
public enum CSVEncoding: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// UTF-8 (a byte order mark is skipped).
    case utf8 = "utf-8"
    /// UTF-16: the byte order mark says which byte order; little-endian without one.
    case utf16 = "utf-16"
    /// UTF-16, little-endian (a byte order mark is skipped).
    case utf16LittleEndian = "utf-16le"
    /// UTF-16, big-endian (a byte order mark is skipped).
    case utf16BigEndian = "utf-16be"
    /// ISO 8859-1: each byte is the code point of the same value.
    case latin1 = "latin-1"
    /// Windows code page 1252: Latin-1 with printable characters (`€`, `’`, `œ`, …) in
    /// 0x80–0x9F, what spreadsheets on Windows write as "ANSI".
    case windows1252 = "windows-1252"

    /// Reads a name as users write it: `utf-8`, `utf8`, `UTF-16`, `utf-16le`, `latin-1`,
    /// `latin1`, `iso-8859-1`, `windows-1252`, `cp1252` (any case); `nil` for anything else.
    public init?(name: String) {
        let key = name.lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " }
        switch key {
        case "utf8": self = .utf8
        case "utf16": self = .utf16
        case "utf16le": self = .utf16LittleEndian
        case "utf16be": self = .utf16BigEndian
        case "latin1", "iso88591", "l1": self = .latin1
        case "windows1252", "cp1252": self = .windows1252
        default: return nil
        }
    }

    /// The canonical name (`utf-8`, `utf-16le`, `latin-1`, …).
    public var description: String { rawValue }

    /// The encoding a file's first bytes announce by a byte order mark, if any.
    static func announced(by bytes: some Collection<UInt8>) -> CSVEncoding? {
        var iterator = bytes.makeIterator()
        guard let first = iterator.next(), let second = iterator.next() else { return nil }
        if first == 0xFF && second == 0xFE { return .utf16LittleEndian }
        if first == 0xFE && second == 0xFF { return .utf16BigEndian }
        if first == 0xEF && second == 0xBB, iterator.next() == 0xBF { return .utf8 }
        return nil
    }
}

/// Turns bytes of one encoding into UTF-8, a chunk at a time: a code unit split between two
/// chunks waits for the next one. Byte order marks at the very start are dropped.
struct CSVTranscoder {
    private let encoding: CSVEncoding
    private var pending: [UInt8] = []
    private var atStart = true
    /// Bytes of input decoded so far, for error offsets.
    private var offset = 0

    /// `encoding` must not be UTF-8 (which needs no transcoding) nor the undecided `.utf16`.
    init(encoding: CSVEncoding) {
        self.encoding = encoding
    }

    /// Appends the UTF-8 of `bytes` to `output`.
    /// - Throws: ``CSVError/Reason/undecodable(_:)`` for an unpaired UTF-16 surrogate.
    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8], path: String?) throws {
        switch encoding {
        case .latin1, .windows1252:
            output.reserveCapacity(output.count + bytes.count + bytes.count / 8)
            for byte in bytes {
                if byte < 0x80 {
                    output.append(byte)
                } else if encoding == .windows1252, byte < 0xA0 {
                    Self.appendUTF8(Self.windows1252High[Int(byte - 0x80)], to: &output)
                } else {
                    output.append(0xC0 | (byte >> 6))
                    output.append(0x80 | (byte & 0x3F))
                }
            }
        case .utf16LittleEndian, .utf16BigEndian, .utf16:
            pending.append(contentsOf: bytes)
            try decodeUTF16(into: &output, path: path)
        case .utf8:
            output.append(contentsOf: bytes)
        }
    }

    /// Decodes what is left at the end of the input.
    /// - Throws: ``CSVError/Reason/undecodable(_:)`` when the input ends inside a code unit
    ///   or a surrogate pair.
    mutating func finish(into output: inout [UInt8], path: String?) throws {
        guard !pending.isEmpty else { return }
        try decodeUTF16(into: &output, path: path)
        if !pending.isEmpty {
            throw CSVError(.undecodable("the UTF-16 input ends inside a character (byte \(offset))"), path: path)
        }
    }

    private mutating func decodeUTF16(into output: inout [UInt8], path: String?) throws {
        let bigEndian = encoding == .utf16BigEndian
        var index = 0
        let count = pending.count
        output.reserveCapacity(output.count + count)
        func unit(_ at: Int) -> UInt32 {
            bigEndian ? UInt32(pending[at]) << 8 | UInt32(pending[at + 1]) : UInt32(pending[at + 1]) << 8 | UInt32(pending[at])
        }
        while index + 1 < count {
            let first = unit(index)
            if atStart {
                atStart = false
                if first == 0xFEFF {
                    index += 2
                    continue
                }
            }
            if first < 0x80 {
                output.append(UInt8(first))
                index += 2
                continue
            }
            if first >= 0xD800 && first < 0xDC00 {
                guard index + 3 < count else { break }
                let second = unit(index + 2)
                guard second >= 0xDC00 && second < 0xE000 else {
                    throw CSVError(.undecodable("invalid UTF-16 at byte \(offset + index) (an unpaired surrogate)"), path: path)
                }
                Self.appendUTF8(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00), to: &output)
                index += 4
                continue
            }
            if first >= 0xDC00 && first < 0xE000 {
                throw CSVError(.undecodable("invalid UTF-16 at byte \(offset + index) (an unpaired surrogate)"), path: path)
            }
            Self.appendUTF8(first, to: &output)
            index += 2
        }
        offset += index
        pending.removeFirst(index)
    }

    static func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case ..<0x80: output.append(UInt8(scalar))
        case ..<0x800:
            output.append(UInt8(0xC0 | (scalar >> 6)))
            output.append(UInt8(0x80 | (scalar & 0x3F)))
        case ..<0x10000:
            output.append(UInt8(0xE0 | (scalar >> 12)))
            output.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            output.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            output.append(UInt8(0xF0 | (scalar >> 18)))
            output.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            output.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            output.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    /// Windows-1252's characters for 0x80–0x9F (the five bytes it leaves undefined read as
    /// the C1 control of the same value, as Windows itself converts them).
    static let windows1252High: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]
}
