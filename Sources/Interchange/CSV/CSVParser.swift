/// The byte-level engine behind ``CSVReader``: a growable buffer filled in large chunks, a
/// scanner that finds the fields of one record without decoding them, and a decoder that
/// turns each field into a `String` once, validating its UTF-8.
///
/// A record is always parsed from contiguous bytes: when the buffer ends inside a record the
/// unread tail moves to the front, more bytes are read (the buffer doubles if the record
/// fills it), and the record is scanned again. Memory therefore stays at one chunk plus the
/// longest record, bounded by ``CSVDialect/maximumRecordSize``.
final class CSVParser {
    /// Where one field lies in the buffer.
    struct FieldSpan {
        /// First byte of the field's content (after an opening quote).
        var start: Int
        /// One past the last byte: before the closing quote, or, when `escaped`, the end of
        /// the whole raw field (closing quote and any bytes after it included).
        var end: Int
        /// The raw bytes must be unescaped (doubled quotes, or text after the closing quote).
        var escaped: Bool
        /// Some byte is not ASCII, so the UTF-8 must be validated.
        var nonASCII: Bool
        /// The line the field starts on.
        var line: Int
    }

    private enum ScanResult {
        /// A record ends at `next`, after `lineBreaks` line breaks.
        case record(next: Int, lineBreaks: Int)
        /// A comment or empty line to skip, ending at `next`.
        case skip(next: Int)
        /// The buffer ends inside the record: read more and scan again.
        case needMore
    }

    static let defaultChunkSize = 256 << 10
    private static let lf = UInt8(ascii: "\n")
    private static let cr = UInt8(ascii: "\r")

    var dialect: CSVDialect {
        didSet { configureBytes() }
    }
    private let input: CSVInput
    /// The path named in errors.
    var path: String? { input.path }

    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The first unconsumed byte.
    private var start = 0
    /// One past the last valid byte.
    private var end = 0
    private var atEOF = false
    private var prepared = false
    /// Bytes consumed before the current buffer's offset 0.
    private var consumedBeforeBuffer = 0

    /// The 1-based line of the first unconsumed byte.
    private(set) var line = 1

    private var separator: UInt8 = 0
    private var quote: Int = -1
    private var comment: Int = -1
    private var spans: [FieldSpan] = []
    private var scratch: [UInt8] = []

    init(input: CSVInput, dialect: CSVDialect, chunkSize: Int = CSVParser.defaultChunkSize) {
        self.input = input
        self.dialect = dialect
        input.encoding = dialect.encoding
        let bytes = input.takeInitialBytes()
        capacity = max(bytes.count, chunkSize, 16)
        buffer = .allocate(capacity: capacity)
        if !bytes.isEmpty {
            bytes.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { buffer.update(from: base, count: source.count) }
            }
            end = bytes.count
        }
        configureBytes()
    }

    deinit {
        buffer.deallocate()
    }

    private func configureBytes() {
        separator = dialect.separator.byte
        quote = dialect.quoteByte
        comment = dialect.commentByte
    }

    /// The size of the buffer: one chunk, or twice the longest record seen if larger.
    var bufferCapacity: Int { capacity }

    /// The number of bytes of input consumed so far (BOM included).
    var bytesConsumed: Int { consumedBeforeBuffer + start }

    // MARK: Records

    /// Reads the next record, or `nil` at the end of the input.
    func nextRecord() throws -> CSVRecord? {
        try prepare()
        while true {
            if start == end {
                if atEOF { return nil }
                try refill()
                continue
            }
            switch try scan() {
            case .needMore:
                if end - start >= dialect.maximumRecordSize {
                    throw CSVError(.recordTooLarge(limit: dialect.maximumRecordSize), path: path, line: line)
                }
                try refill()
            case .skip(let next):
                start = next
                line += 1
            case .record(let next, let lineBreaks):
                let record = CSVRecord(fields: try decodeFields(), line: line)
                start = next
                line += lineBreaks
                return record
            }
        }
    }

    /// Scans one record from `start`, filling `spans`.
    private func scan() throws -> ScanResult {
        var fields = spans
        spans = []
        fields.removeAll(keepingCapacity: true)
        defer { spans = fields }

        let p = buffer
        let end = self.end
        let eof = atEOF
        let sep = separator
        let quote = self.quote
        let lf = Self.lf
        let cr = Self.cr
        let firstLine = line
        var lineBreaks = 0
        var i = start

        // Returns where a line ending at `i` (a CR or LF) ends, or nil when more bytes are needed.
        func afterBreak(_ i: Int) -> Int? {
            if p[i] == lf { return i + 1 }
            if i + 1 < end { return p[i + 1] == lf ? i + 2 : i + 1 }
            return eof ? i + 1 : nil
        }

        let first = p[i]
        if Int(first) == comment {
            var j = i
            while j < end, p[j] != lf, p[j] != cr { j += 1 }
            if j == end { return eof ? .skip(next: end) : .needMore }
            guard let next = afterBreak(j) else { return .needMore }
            return .skip(next: next)
        }
        if first == lf || first == cr {
            guard let next = afterBreak(i) else { return .needMore }
            if dialect.skipsEmptyLines { return .skip(next: next) }
            fields.append(FieldSpan(start: i, end: i, escaped: false, nonASCII: false, line: firstLine))
            return .record(next: next, lineBreaks: 1)
        }

        while true {
            let fieldLine = firstLine + lineBreaks
            if i < end, Int(p[i]) == quote {
                let contentStart = i + 1
                var j = contentStart
                var bits: UInt8 = 0
                var escaped = false
                var closed = false
                while j < end {
                    let b = p[j]
                    if Int(b) == quote {
                        if j + 1 < end {
                            if Int(p[j + 1]) == quote {
                                escaped = true
                                j += 2
                                continue
                            }
                            closed = true
                            break
                        }
                        if eof {
                            closed = true
                            break
                        }
                        return .needMore
                    }
                    if b == lf {
                        lineBreaks += 1
                    } else if b == cr {
                        if j + 1 < end {
                            if p[j + 1] != lf { lineBreaks += 1 }
                        } else if eof {
                            lineBreaks += 1
                        } else {
                            return .needMore
                        }
                    }
                    bits |= b
                    j += 1
                }
                if !closed {
                    if eof { throw CSVError(.unterminatedQuote, path: path, line: fieldLine) }
                    return .needMore
                }
                let contentEnd = j
                var k = j + 1
                while k < end {
                    let b = p[k]
                    if b == sep || b == lf || b == cr { break }
                    bits |= b
                    k += 1
                }
                if k == end && !eof { return .needMore }
                if k > contentEnd + 1 { escaped = true }
                fields.append(FieldSpan(
                    start: contentStart, end: escaped ? k : contentEnd,
                    escaped: escaped, nonASCII: bits >= 0x80, line: fieldLine))
                i = k
            } else {
                var j = i
                var bits: UInt8 = 0
                while j < end {
                    let b = p[j]
                    if b == sep || b == lf || b == cr { break }
                    bits |= b
                    j += 1
                }
                if j == end && !eof { return .needMore }
                fields.append(FieldSpan(start: i, end: j, escaped: false, nonASCII: bits >= 0x80, line: fieldLine))
                i = j
            }

            if i == end { return .record(next: end, lineBreaks: lineBreaks) }
            if p[i] == sep {
                i += 1
                continue
            }
            guard let next = afterBreak(i) else { return .needMore }
            return .record(next: next, lineBreaks: lineBreaks + 1)
        }
    }

    /// Decodes the fields of the scanned record.
    private func decodeFields() throws -> [String] {
        var result: [String] = []
        result.reserveCapacity(spans.count)
        for index in spans.indices {
            result.append(try decode(spans[index], field: index + 1))
        }
        if dialect.backslashEscapes {
            for index in result.indices where result[index].utf8.contains(0x5C) {
                result[index] = Self.unescapingBackslashes(result[index])
            }
        }
        return result
    }

    /// A TSV field with its backslash escapes decoded: `\n`, `\r`, `\t` and `\\`; a
    /// backslash before anything else stays as it is.
    static func unescapingBackslashes(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var escaping = false
        for byte in text.utf8 {
            if escaping {
                escaping = false
                switch byte {
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case 0x5C: bytes.append(0x5C)
                default: bytes.append(0x5C); bytes.append(byte)
                }
            } else if byte == 0x5C {
                escaping = true
            } else {
                bytes.append(byte)
            }
        }
        if escaping { bytes.append(0x5C) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func decode(_ span: FieldSpan, field: Int) throws -> String {
        let raw = UnsafeBufferPointer(start: buffer + span.start, count: span.end - span.start)
        guard span.escaped else {
            if span.nonASCII, let bad = UTF8Validation.firstInvalidOffset(in: raw) {
                throw invalidUTF8(field: field, line: span.line, prefix: UnsafeBufferPointer(rebasing: raw[..<bad]))
            }
            return String(decoding: raw, as: UTF8.self)
        }
        var bytes = scratch
        scratch = []
        defer { scratch = bytes }
        bytes.removeAll(keepingCapacity: true)
        let quote = self.quote
        var inQuotes = true
        var i = 0
        while i < raw.count {
            let b = raw[i]
            if inQuotes, Int(b) == quote {
                if i + 1 < raw.count, Int(raw[i + 1]) == quote {
                    bytes.append(b)
                    i += 2
                } else {
                    inQuotes = false
                    i += 1
                }
                continue
            }
            bytes.append(b)
            i += 1
        }
        return try bytes.withUnsafeBufferPointer { unescaped in
            if span.nonASCII, let bad = UTF8Validation.firstInvalidOffset(in: unescaped) {
                throw invalidUTF8(field: field, line: span.line, prefix: UnsafeBufferPointer(rebasing: unescaped[..<bad]))
            }
            return String(decoding: unescaped, as: UTF8.self)
        }
    }

    private func invalidUTF8(field: Int, line: Int, prefix: UnsafeBufferPointer<UInt8>) -> CSVError {
        CSVError(.invalidUTF8(field: field), path: path, line: line + Self.lineBreaks(in: prefix))
    }

    /// Counts LF, CRLF and lone CR line breaks.
    static func lineBreaks(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        for i in bytes.indices {
            if bytes[i] == lf || (bytes[i] == cr && (i + 1 == bytes.count || bytes[i + 1] != lf)) { count += 1 }
        }
        return count
    }

    // MARK: Raw lines (for the header lines of Anki's text files)

    /// The bytes of the next line without its line break, or `nil` at the end of the input.
    /// Nothing is consumed.
    func peekRawLine() throws -> [UInt8]? {
        try prepare()
        while true {
            var j = start
            while j < end, buffer[j] != Self.lf, buffer[j] != Self.cr { j += 1 }
            if j < end || atEOF {
                if j == start && j == end { return nil }
                return Array(UnsafeBufferPointer(start: buffer + start, count: j - start))
            }
            if end - start >= dialect.maximumRecordSize {
                throw CSVError(.recordTooLarge(limit: dialect.maximumRecordSize), path: path, line: line)
            }
            try refill()
        }
    }

    /// Up to `count` bytes from the current position, without consuming them, and whether
    /// they reach the end of the input (for guessing the separator).
    func peekBytes(upTo count: Int) throws -> (bytes: [UInt8], isComplete: Bool) {
        try prepare()
        while end - start < count && !atEOF { try refill() }
        let taken = min(count, end - start)
        return (Array(UnsafeBufferPointer(start: buffer + start, count: taken)), atEOF && taken == end - start)
    }

    /// The encoding the input is read in, once reading has started.
    var encoding: CSVEncoding? { input.resolvedEncoding }

    /// Consumes the next line, line break included.
    func skipRawLine() throws {
        guard try peekRawLine() != nil else { return }
        var j = start
        while j < end, buffer[j] != Self.lf, buffer[j] != Self.cr { j += 1 }
        if j == end {
            start = end
        } else if buffer[j] == Self.lf {
            start = j + 1
        } else {
            // A CR: take a following LF too (read one more chunk if the CR ends the buffer).
            if j + 1 == end && !atEOF {
                start = j
                try refill()
                j = start
            }
            start = (j + 1 < end && buffer[j + 1] == Self.lf) ? j + 2 : j + 1
        }
        line += 1
    }

    // MARK: Buffer

    /// Skips a UTF-8 byte order mark at the very start of the input, once.
    private func prepare() throws {
        guard !prepared else { return }
        prepared = true
        while end - start < 3 && !atEOF { try refill() }
        if end - start >= 3, buffer[start] == 0xEF, buffer[start + 1] == 0xBB, buffer[start + 2] == 0xBF {
            start += 3
        }
    }

    /// Moves the unconsumed bytes to the front, grows the buffer if they fill it, and reads
    /// one more chunk (setting `atEOF` when the input is exhausted).
    private func refill() throws {
        guard !atEOF else { return }
        if start > 0 {
            let pending = end - start
            if pending > 0 { buffer.update(from: buffer + start, count: pending) }
            consumedBeforeBuffer += start
            start = 0
            end = pending
        }
        if end == capacity {
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            grown.update(from: buffer, count: end)
            buffer.deallocate()
            buffer = grown
            capacity *= 2
        }
        let count = try input.read(into: buffer + end, count: capacity - end)
        if count == 0 { atEOF = true } else { end += count }
    }
}
