extension CSVSeparator {
    /// The separators ``sniff(_:quote:commentPrefix:isComplete:)`` chooses from, in the order
    /// it prefers them when several fit equally well (Anki's order).
    public static let sniffed: [CSVSeparator] = [.tab, .pipe, .semicolon, .comma]

    /// Guesses the separator of a CSV file from its first bytes: for each of tab, pipe,
    /// semicolon and comma, the sample is split into records the way the reader would split
    /// it (quotes respected, so `"a, b";c` is two fields), and the separator that gives the
    /// same number of fields (at least two) on the most records wins; ties go to the earlier
    /// of tab, pipe, semicolon, comma, or to `preferred` (the separator a file's name
    /// suggests) when it is one of them. Lines starting with `commentPrefix` and empty lines
    /// are left out.
    ///
    /// - Parameters:
    ///   - sample: the first bytes of the data (a few KiB are enough; at most the first 64
    ///     records are looked at).
    ///   - isComplete: whether the sample is the whole input; if not, its last record, which
    ///     may be cut, is left out.
    /// - Returns: the separator, or `nil` when none of them splits the records (a
    ///   one-column file).
    public static func sniff(_ sample: some Collection<UInt8>, quote: Unicode.Scalar? = "\"",
                             commentPrefix: Unicode.Scalar? = "#", isComplete: Bool,
                             preferred: CSVSeparator? = nil) -> CSVSeparator? {
        let bytes = Array(sample)
        let quoteByte = quote.map { Int($0.value) } ?? -1
        let commentByte = commentPrefix.map { Int($0.value) } ?? -1
        var best: (separator: CSVSeparator, agreeing: Int, records: Int)?
        let order = preferred.map { preferred in [preferred] + sniffed.filter { $0 != preferred } } ?? sniffed
        for separator in order {
            let counts = fieldCounts(bytes, separator: separator.byte, quote: quoteByte, comment: commentByte, isComplete: isComplete)
            guard !counts.isEmpty else { continue }
            var frequency: [Int: Int] = [:]
            for count in counts { frequency[count, default: 0] += 1 }
            // The most common field count; among equally common ones, the larger.
            guard let (fields, agreeing) = frequency.max(by: { ($0.value, $0.key) < ($1.value, $1.key) }), fields >= 2 else { continue }
            if let current = best, agreeing * current.records <= current.agreeing * counts.count { continue }
            best = (separator, agreeing, counts.count)
        }
        return best?.separator
    }

    /// The number of fields of each record in `bytes` split on `separator`.
    private static func fieldCounts(_ bytes: [UInt8], separator: UInt8, quote: Int, comment: Int, isComplete: Bool) -> [Int] {
        var counts: [Int] = []
        var index = 0
        let end = bytes.count
        let lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
        while index < end && counts.count < 64 {
            let first = bytes[index]
            if first == lf || first == cr {
                index += 1
                continue
            }
            if Int(first) == comment {
                while index < end && bytes[index] != lf && bytes[index] != cr { index += 1 }
                continue
            }
            var fields = 1
            var atFieldStart = true
            var recordEnded = false
            while index < end {
                let byte = bytes[index]
                if atFieldStart && Int(byte) == quote {
                    // A quoted field: up to the closing quote (a doubled quote is part of it).
                    index += 1
                    var closed = false
                    while index < end {
                        if Int(bytes[index]) == quote {
                            if index + 1 < end && Int(bytes[index + 1]) == quote {
                                index += 2
                                continue
                            }
                            index += 1
                            closed = true
                            break
                        }
                        index += 1
                    }
                    if !closed { return isComplete ? counts + [fields] : counts }
                    atFieldStart = false
                    continue
                }
                atFieldStart = false
                if byte == separator {
                    fields += 1
                    atFieldStart = true
                } else if byte == lf || byte == cr {
                    recordEnded = true
                    break
                }
                index += 1
            }
            if recordEnded || isComplete { counts.append(fields) }
        }
        return counts
    }
}
