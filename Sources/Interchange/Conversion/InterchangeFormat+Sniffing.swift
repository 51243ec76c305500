import FileSafety
import Foundation

extension InterchangeFormat {
    /// What a file to import is, told from its first bytes: JSON (an object), an Anki package
    /// (a zip holding `collection.anki2`, `collection.anki21` or `collection.anki21b`), or text
    /// (nil: CSV or TSV, the separator guessed). A file that is none of them (a `.sampledeck`
    /// archive, an SQLite database, an image, any other binary) is refused.
    ///
    /// Reads at most 1 MiB of `url`, opened without following links.
    /// - Throws: ``InterchangeError`` `malformed` naming what the file looks like; `missing`/`io`.
    public static func sniffImport(at url: URL, label: String? = nil) throws -> InterchangeFormat? {
        let path = label ?? url.path
        var head = Data()
        do {
            let fd = try UntrustedFile.openForReading(url.path)
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while head.count < 1 << 20 {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 1 << 16) }
                if count < 0, errno == EINTR { continue }
                if count < 0 { throw InterchangeError(.io, path: path, reason: "cannot read: \(String(cString: strerror(errno)))") }
                if count == 0 { break }
                head.append(contentsOf: buffer[0..<count])
            }
        } catch let error as FileSafetyError {
            if case .missing = error.kind { throw InterchangeError(.missing, path: path, reason: "no such file") }
            throw InterchangeError(error.isWrongType ? .malformed : .io, path: path, reason: error.reason)
        }
        return try sniffImport(head, path: path)
    }

    /// ``sniffImport(at:label:)`` of bytes already read (the start of the file).
    public static func sniffImport(_ head: Data, path: String) throws -> InterchangeFormat? {
        let bytes = [UInt8](head.prefix(1 << 20))
        func refuse(_ what: String) -> InterchangeError {
            InterchangeError(.malformed, path: path, reason: "\(what), not a file deck import reads (JSON, an Anki .apkg or .colpkg, CSV or TSV text)")
        }
        guard !bytes.isEmpty else { throw refuse("the file is empty") }
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
            // Entry names are stored as written in the local headers and the central directory.
            for name in ["collection.anki21b", "collection.anki21", "collection.anki2"] where contains(bytes, Array(name.utf8)) {
                return .apkg
            }
            if contains(bytes, Array("manifest.json".utf8)) { throw refuse("a zip archive of a .sampledeck package (use deck unarchive)") }
            throw refuse("a zip archive without an Anki collection")
        }
        if bytes.starts(with: Array("SQLite format 3\0".utf8)) { throw refuse("an SQLite database") }
        if bytes.starts(with: [0x1F, 0x8B]) { throw refuse("a gzip file") }
        if bytes.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) { throw refuse("a zstd file") }
        // UTF-16 with a byte order mark is text; the CSV reader transcodes it.
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) { return nil }
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        if start < bytes.count, bytes[start] == UInt8(ascii: "{") { return .json }
        // Text has no NUL and no other control bytes than tab, line feed, carriage return and form feed.
        let sample = bytes.prefix(64 << 10)
        let controls = sample.filter { $0 < 0x20 && ![0x09, 0x0A, 0x0D, 0x0C].contains($0) }.count
        if controls > 0 { throw refuse("binary data") }
        return nil
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count, let first = needle.first else { return false }
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == first, haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }
}
