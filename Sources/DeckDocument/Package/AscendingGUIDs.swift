extension AnkiGUID {
    /// GUIDs for the new notes of one bulk import, each greater in byte order than the one before,
    /// so that the `UNIQUE` index on `Note.guid` takes them in order.
    ///
    /// Why: with random GUIDs each new note's entry lands on a random page of that index; past a
    /// few tens of thousands of notes the index outgrows SQLite's page cache, pages are spilled
    /// and read again, and every insert seeks a different leaf (docs/perf/PROFILES.md). In order,
    /// the entries of an import fill pages one after the other.
    ///
    /// What they are: 10 characters of Anki's base-91 alphabet (as Anki's own GUIDs), a number
    /// written most significant digit first with the alphabet's characters in byte order, so that
    /// a larger number is a larger string. The first number is random (61 bits) and each next one
    /// adds a random step of 1 to 2^32, from ``FastRandom``: GUIDs of one import never repeat,
    /// and those of different imports or programs meet as rarely as random 64-bit GUIDs do in
    /// practice. Every GUID starts with a capital letter (never `#`, which a text file's header
    /// lines start with).
    struct Ascending {
        /// The alphabet in byte order: digit values 0…90.
        static let digits: [UInt8] = alphabetBytes.sorted()
        /// 91^9, the value of the first of the ten digits.
        static let leadingDigitValue: UInt64 = {
            var value: UInt64 = 1
            for _ in 0..<9 { value *= 91 }
            return value
        }()
        /// The smallest number written: the first digit is `A` (digit value 30; the largest
        /// 64-bit number starts with `R`).
        static let smallest: UInt64 = 30 * leadingDigitValue

        private var random: FastRandom
        private var value: UInt64

        init() {
            random = FastRandom()
            value = Self.smallest + (random.next() >> 3)
        }

        /// The next GUID: greater in byte order than every one before it (after some 2^31 GUIDs
        /// the numbers run out and start again at a random one, so order is not kept past that).
        mutating func next() -> String {
            let step = 1 + (random.next() >> 32)
            let (sum, overflow) = value.addingReportingOverflow(step)
            value = overflow ? Self.smallest + (random.next() >> 3) : sum
            return Self.encode(value)
        }

        /// `value` as 10 digits of ``digits``, most significant first (leading zeros kept, so
        /// that every GUID has the same length and byte order is number order).
        static func encode(_ value: UInt64) -> String {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { buffer in
                var value = value
                for index in stride(from: 9, through: 0, by: -1) {
                    buffer[index] = digits[Int(value % 91)]
                    value /= 91
                }
                return String(decoding: UnsafeBufferPointer(buffer), as: UTF8.self)
            }
        }
    }
}
