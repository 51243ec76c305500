import Foundation

/// A streaming CSV/TSV writer: quotes a field only when it must, writes `\r\n` or `\n`
/// after each record, and sends its bytes to a file handle in 256 KiB chunks (or keeps them
/// in memory).
///
/// A field is quoted when it holds the separator, the quote, a line break, when it is the
/// first field of a record and starts with the dialect's comment prefix, when it is the
/// first field of the output and starts with a byte order mark, or when it is the only
/// field of its record and is empty (so the line is not read back as a blank line). What
/// ``CSVReader`` reads back is exactly what was written.
///
/// ```swift
/// var writer = CSVWriter(fileHandle: handle, dialect: .csv)
/// try writer.write(["front", "back"])
/// try writer.write(["chat", "cat, \"the animal\""])   // chat,"cat, ""the animal"""
/// try writer.flush()                                 // before closing the handle
/// ```
///
/// Call ``flush()`` when done: bytes still in the buffer are not written otherwise. Copies of
/// a writer share one buffer.
public struct CSVWriter {
    private let output: CSVOutput
    /// The dialect the writer writes with.
    public let dialect: CSVDialect
    private var wroteAnything = false

    /// Writes to an open file handle, which the caller keeps and closes after ``flush()``.
    /// `path` names the output in errors.
    public init(fileHandle: FileHandle, dialect: CSVDialect = .csv, path: String? = nil) {
        output = CSVOutput(descriptor: fileHandle.fileDescriptor, path: path)
        self.dialect = dialect
    }

    /// Writes into memory; read the result with ``data``.
    public init(dialect: CSVDialect = .csv) {
        output = CSVOutput(descriptor: nil, path: nil)
        self.dialect = dialect
    }

    /// Writes to standard output; errors name it `-`.
    public static func standardOutput(dialect: CSVDialect = .csv) -> CSVWriter {
        CSVWriter(fileHandle: .standardOutput, dialect: dialect, path: "-")
    }

    /// Everything written so far, for a writer made with ``init(dialect:)``; empty for a
    /// file-handle writer.
    public var data: Data { output.data }

    /// Writes one record.
    ///
    /// Cost: one scan of each field's UTF-8 bytes; a write system call per 256 KiB.
    /// - Throws: ``CSVError`` with ``CSVError/Reason/unquotableField(field:)`` when quoting
    ///   is off and a field needs quotes, ``CSVError/Reason/invalidDialect(_:)`` for an
    ///   unusable dialect, or an I/O error from the file handle.
    public mutating func write<Fields: Sequence>(_ fields: Fields) throws where Fields.Element == String {
        if !wroteAnything, let problem = dialect.problem {
            throw CSVError(.invalidDialect(problem), path: output.path)
        }
        let separator = dialect.separator.byte
        let quote = dialect.quoteByte
        let comment = dialect.commentByte
        let escapes = dialect.backslashEscapes
        var index = 0
        var onlyEmptyField = false
        for field in fields {
            if index > 0 { output.pending.append(separator) }
            index += 1
            onlyEmptyField = index == 1 && field.isEmpty
            if escapes, field.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == separator }) {
                try append(Self.escapingBackslashes(field, separator: separator), number: index,
                           isFirstOfOutput: !wroteAnything && index == 1, separator: separator, quote: quote, comment: comment)
            } else {
                try append(field, number: index, isFirstOfOutput: !wroteAnything && index == 1,
                           separator: separator, quote: quote, comment: comment)
            }
        }
        if index == 1 && onlyEmptyField {
            guard quote >= 0 else { throw CSVError(.unquotableField(field: 1), path: output.path) }
            output.pending.append(UInt8(quote))
            output.pending.append(UInt8(quote))
        }
        output.pending.append(contentsOf: dialect.lineEnding.rawValue.utf8)
        wroteAnything = true
        try output.flushIfFull()
    }

    /// Writes a record's fields (its line number is ignored).
    public mutating func write(_ record: CSVRecord) throws {
        try write(record.fields)
    }

    /// Writes a line as is, followed by the dialect's line ending: for comment and header
    /// lines such as Anki's `#separator:tab`.
    public mutating func writeRawLine(_ line: String) throws {
        output.pending.append(contentsOf: line.utf8)
        output.pending.append(contentsOf: dialect.lineEnding.rawValue.utf8)
        wroteAnything = true
        try output.flushIfFull()
    }

    /// Writes the buffered bytes to the file handle. Call it before closing the handle.
    /// - Throws: ``CSVError`` with an I/O reason when the write fails (disk full, closed pipe).
    public mutating func flush() throws {
        try output.flush()
    }

    /// A field with TSV's backslash escapes: backslash, tab, line feed and carriage return
    /// (and a separator that is none of these, as `\t` cannot name it: it stays and is quoted).
    static func escapingBackslashes(_ field: String, separator: UInt8) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(field.utf8.count + 8)
        for byte in field.utf8 {
            switch byte {
            case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
            case 0x09: bytes.append(0x5C); bytes.append(UInt8(ascii: "t"))
            case 0x0A: bytes.append(0x5C); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(0x5C); bytes.append(UInt8(ascii: "r"))
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends one field, quoted if it needs to be.
    private func append(_ field: String, number: Int, isFirstOfOutput: Bool,
                        separator: UInt8, quote: Int, comment: Int) throws {
        var text = field
        try text.withUTF8 { bytes in
            var needsQuotes = false
            var hasQuote = false
            for byte in bytes {
                if byte == separator || byte == 0x0A || byte == 0x0D {
                    needsQuotes = true
                } else if Int(byte) == quote {
                    needsQuotes = true
                    hasQuote = true
                }
            }
            if number == 1, let first = bytes.first {
                if Int(first) == comment { needsQuotes = true }
                if isFirstOfOutput, bytes.count >= 3, first == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
                    needsQuotes = true
                }
            }
            guard needsQuotes else {
                output.pending.append(contentsOf: bytes)
                return
            }
            guard quote >= 0 else { throw CSVError(.unquotableField(field: number), path: output.path) }
            let quoteByte = UInt8(quote)
            output.pending.append(quoteByte)
            if hasQuote {
                for byte in bytes {
                    output.pending.append(byte)
                    if byte == quoteByte { output.pending.append(quoteByte) }
                }
            } else {
                output.pending.append(contentsOf: bytes)
            }
            output.pending.append(quoteByte)
        }
    }
}
