extension TextImportSettings {
    /// The outcome of reading one line at the top of a text file.
    enum HeaderLine: Equatable {
        /// Not a header line: the data starts here.
        case data
        /// A header or comment line, applied to the settings.
        case header
        /// A `#columns:` line whose labels are split once the separator is known.
        case columns(String)
    }

    /// Applies one line from the top of a file, Anki's way: a line starting with `#` is a
    /// header (`#key:value`, key in any case) or a comment; on the first line, `tags:…` is
    /// the old form of `#tags:`. Unknown keys and unreadable values are ignored, as Anki
    /// ignores them.
    mutating func apply(headerLine rawLine: String, isFirstLine: Bool) -> HeaderLine {
        var line = Substring(rawLine)
        if line.hasSuffix("\r") { line = line.dropLast() }
        if isFirstLine, line.hasPrefix("tags:") {
            tags = Self.splitTags(line.dropFirst("tags:".count))
            return .header
        }
        guard line.hasPrefix("#") else { return .data }
        line = line.dropFirst()
        guard let colon = line.firstIndex(of: ":") else { return .header }
        let key = String(line[..<colon]).trimmingASCIISpaces().lowercased()
        let value = String(line[line.index(after: colon)...])
        let trimmed = value.trimmingASCIISpaces()
        let column = Int(trimmed).flatMap { $0 >= 1 ? $0 : nil }
        switch key {
        case "separator":
            if let separator = CSVSeparator(ankiName: value) { self.separator = separator }
        case "html":
            switch trimmed.lowercased() {
            case "true": isHTML = true
            case "false": isHTML = false
            default: break
            }
        case "tags": tags = Self.splitTags(Substring(value))
        case "columns": return .columns(value)
        case "notetype": if !trimmed.isEmpty { notetype = trimmed }
        case "deck": if !trimmed.isEmpty { deck = trimmed }
        case "tags column": if let column { tagsColumn = column }
        case "guid column": if let column { guidColumn = column }
        case "notetype column": if let column { notetypeColumn = column }
        case "deck column": if let column { deckColumn = column }
        default: break
        }
        return .header
    }

    /// Splits tags on white space.
    /// Splits tags on white space (Unicode's, as Anki does), working on UTF-8 bytes when the
    /// text is ASCII, which it almost always is.
    static func splitTags(_ text: Substring) -> [String] {
        // Native text (as read from a file) is split straight from its bytes.
        if let tags = text.utf8.withContiguousStorageIfAvailable({ splitASCIITags($0) }), let tags { return tags }
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            var tags: [String] = []
            var start = text.utf8.startIndex
            var index = start
            let end = text.utf8.endIndex
            while index != end {
                let byte = text.utf8[index]
                if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) {
                    if start != index, let tag = String(text.utf8[start..<index]) { tags.append(tag) }
                    start = text.utf8.index(after: index)
                }
                index = text.utf8.index(after: index)
            }
            if start != end, let tag = String(text.utf8[start..<end]) { tags.append(tag) }
            return tags
        }
        return text.unicodeScalars.split(whereSeparator: \.properties.isWhitespace).map { String($0) }
    }

    /// ``splitTags(_:)`` of ASCII bytes; nil when they are not all ASCII.
    private static func splitASCIITags(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        var tags: [String] = []
        var start = 0
        for (index, byte) in bytes.enumerated() {
            guard byte < 0x80 else { return nil }
            if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) {
                if start < index { tags.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)) }
                start = index + 1
            }
        }
        if start < bytes.count { tags.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self)) }
        return tags
    }

    /// The header lines that describe these settings, in the order Anki writes them:
    /// `#separator:`, `#html:`, `#notetype:`, `#deck:`, `#tags:`, `#columns:` (the labels
    /// quoted like a record with `separator`), then the `column` lines.
    ///
    /// - Parameter separator: the separator the data will be written with (it is what
    ///   `#separator:` says).
    /// - Throws: ``CSVError`` when a column label cannot be written.
    public func headerLines(separator: CSVSeparator) throws -> [String] {
        var lines = ["#separator:\(separator.ankiName)"]
        if let isHTML { lines.append("#html:\(isHTML)") }
        if let notetype { lines.append("#notetype:\(notetype)") }
        if let deck { lines.append("#deck:\(deck)") }
        if !tags.isEmpty { lines.append("#tags:\(tags.joined(separator: " "))") }
        if let columns {
            var writer = CSVWriter(dialect: CSVDialect(separator: separator, lineEnding: .lf))
            try writer.write(columns)
            let record = String(decoding: writer.data.dropLast(), as: UTF8.self)
            lines.append("#columns:\(record)")
        }
        for (name, column) in [("guid", guidColumn), ("notetype", notetypeColumn), ("deck", deckColumn), ("tags", tagsColumn)] {
            if let column { lines.append("#\(name) column:\(column)") }
        }
        return lines
    }
}
