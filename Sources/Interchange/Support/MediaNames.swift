import Foundation

/// Media file names as card text refers to them: sanitising names from other programs and
/// finding the names a field mentions (`<img src="…">`, `[sound:…]`).
public enum MediaNames {
    /// A name safe to create in any folder: NFC, no path separators, control characters or
    /// characters Windows forbids (each becomes `_`), no leading dots, at most 200 UTF-8 bytes
    /// (keeping the extension), and never empty.
    public static func sanitized(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.precomposedStringWithCanonicalMapping.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || "/\\:*?\"<>|".unicodeScalars.contains(scalar) {
                scalars.append("_")
            } else {
                scalars.append(scalar)
            }
        }
        var result = String(scalars).trimmingCharacters(in: .whitespaces)
        while result.hasPrefix(".") { result.removeFirst() }
        if result.utf8.count > 200 {
            let ext = (result as NSString).pathExtension
            let keep = ext.isEmpty || ext.utf8.count > 16 ? "" : "." + ext
            var stem = String(result.dropLast(keep.count))
            while stem.utf8.count + keep.utf8.count > 200 { stem.removeLast() }
            result = stem + keep
        }
        return result.isEmpty ? "media" : result
    }

    /// The media names a field refers to, in order of appearance, each once: the `src` of
    /// HTML elements (quoted or not) and Anki's `[sound:name]`. Remote URLs (`scheme:`) and
    /// absolute paths are not media names and are left out; `%XX` escapes are decoded.
    ///
    /// Cost: one scan of the UTF-8 bytes for each of the two forms; a field with neither `=`
    /// nor `[` is passed over in one byte search (most fields).
    public static func references(in text: String) -> [String] {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.contains(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "[") }) else { return [] }
            var names: [String] = []
            var seen: Set<String> = []
            func add(_ start: Int, _ end: Int) {
                var name = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                    .trimmingCharacters(in: .whitespaces)
                if name.contains("%"), let decoded = name.removingPercentEncoding { name = decoded }
                if let colon = name.firstIndex(of: ":"),
                   name[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }),
                   name.distance(from: name.startIndex, to: colon) > 1 {
                    return  // http:, data:, file:…
                }
                guard !name.isEmpty, !name.hasPrefix("/"), seen.insert(name).inserted else { return }
                names.append(name)
            }
            // `src=` in any case, then its value: quoted, or up to a space, `>`, tab or newline.
            var index = 0
            while let value = find(srcIn: bytes, from: index) {
                if value < bytes.count, bytes[value] == UInt8(ascii: "\"") || bytes[value] == UInt8(ascii: "'") {
                    let quote = bytes[value]
                    guard let close = bytes[(value + 1)...].firstIndex(of: quote) else { break }
                    add(value + 1, close)
                    index = close
                } else {
                    let close = bytes[value...].firstIndex {
                        $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n")
                    } ?? bytes.count
                    add(value, close)
                    index = close
                }
            }
            // `[sound:name]`.
            let sound = Array("[sound:".utf8)
            index = 0
            while let open = find(sound, in: bytes, from: index) {
                let value = open + sound.count
                guard let close = bytes[value...].firstIndex(of: UInt8(ascii: "]")) else { break }
                add(value, close)
                index = close
            }
            return names
        }
    }

    /// The position just after the next `src=` (any case) at or after `start`.
    private static func find(srcIn bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while index + 4 <= bytes.count {
            if bytes[index] | 0x20 == UInt8(ascii: "s"), bytes[index + 1] | 0x20 == UInt8(ascii: "r"),
               bytes[index + 2] | 0x20 == UInt8(ascii: "c"), bytes[index + 3] == UInt8(ascii: "=") {
                return index + 4
            }
            index += 1
        }
        return nil
    }

    /// The position of the next `needle` at or after `start`.
    private static func find(_ needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == first, bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
