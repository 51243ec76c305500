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
    public static func references(in text: String) -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        func add(_ raw: Substring) {
            var name = raw.trimmingCharacters(in: .whitespaces)
            if name.contains("%"), let decoded = name.removingPercentEncoding { name = decoded }
            if let colon = name.firstIndex(of: ":"), name[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }),
               name.distance(from: name.startIndex, to: colon) > 1 {
                return  // http:, data:, file:…
            }
            guard !name.isEmpty, !name.hasPrefix("/"), seen.insert(name).inserted else { return }
            names.append(name)
        }
        var rest = Substring(text)
        while let found = rest.range(of: "src=", options: .caseInsensitive) {
            var value = rest[found.upperBound...]
            if let quote = value.first, quote == "\"" || quote == "'" {
                value = value.dropFirst()
                guard let end = value.firstIndex(of: quote) else { break }
                add(value[..<end])
                rest = value[end...]
            } else {
                let end = value.firstIndex { $0 == " " || $0 == ">" || $0 == "\t" || $0 == "\n" } ?? value.endIndex
                add(value[..<end])
                rest = value[end...]
            }
        }
        rest = Substring(text)
        while let found = rest.range(of: "[sound:") {
            let value = rest[found.upperBound...]
            guard let end = value.firstIndex(of: "]") else { break }
            add(value[..<end])
            rest = value[end...]
        }
        return names
    }
}
