/// Media names that sanitising changed (see ``MediaNames/sanitized(_:)``) and their
/// replacement in field text: every occurrence of an old name becomes its new name.
///
/// One left-to-right pass over a field's bytes, trying the old names that start with the byte
/// at hand, longest first; replacements are not scanned again. Cost per field: its length
/// times the number of distinct name lengths at the positions whose byte starts some old name,
/// whatever the number of names (replacing each name in turn was quadratic: 1,000 renamed
/// files over 100,000 notes took 70 s).
struct MediaRenames {
    /// Old name (UTF-8) → new name.
    private var renames: [[UInt8]: String] = [:]
    /// The distinct lengths of old names, longest first.
    private var lengths: [Int] = []
    /// Whether some old name starts with the byte.
    private var starts = [Bool](repeating: false, count: 256)

    /// Renames from old name → new name (empty old names are ignored).
    init(_ renames: [String: String]) {
        for (old, new) in renames where !old.isEmpty && old != new {
            let bytes = Array(old.utf8)
            self.renames[bytes] = new
            starts[Int(bytes[0])] = true
        }
        lengths = Set(self.renames.keys.map(\.count)).sorted(by: >)
    }

    /// Whether there is nothing to rename.
    var isEmpty: Bool { renames.isEmpty }

    /// `field` with every old name replaced by its new name.
    func apply(to field: String) -> String {
        guard !renames.isEmpty else { return field }
        var field = field
        return field.withUTF8 { bytes in
            var output: [UInt8] = []
            var copied = 0, index = 0
            while index < bytes.count {
                guard starts[Int(bytes[index])] else {
                    index += 1
                    continue
                }
                var replaced = false
                for length in lengths where index + length <= bytes.count {
                    if let new = renames[Array(bytes[index..<(index + length)])] {
                        if output.isEmpty { output.reserveCapacity(bytes.count + 16) }
                        output.append(contentsOf: bytes[copied..<index])
                        output.append(contentsOf: new.utf8)
                        index += length
                        copied = index
                        replaced = true
                        break
                    }
                }
                if !replaced { index += 1 }
            }
            guard copied > 0 else { return String(decoding: bytes, as: UTF8.self) }
            output.append(contentsOf: bytes[copied...])
            return String(decoding: output, as: UTF8.self)
        }
    }
}
