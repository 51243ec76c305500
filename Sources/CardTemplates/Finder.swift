/// A forward search for one pattern that remembers its answers, so scanners that look for a
/// closing marker at every opening stay linear on hostile input (`<style` a thousand times with no
/// `</style>`): the first occurrence at or after `p` is also the answer for any later start up to
/// it, and a failed search fails for every later start.
struct Finder {
    private let pattern: [UInt8]
    private let caseInsensitive: Bool
    /// A search from `lastFrom` found `lastFound` (nil: found nothing).
    private var lastFrom = Int.max
    private var lastFound: Int?

    init(_ pattern: String, caseInsensitive: Bool = false) {
        self.pattern = Array(pattern.utf8).map { caseInsensitive ? HTMLEscaping.lowercased($0) : $0 }
        self.caseInsensitive = caseInsensitive
    }

    /// The first offset at or after `start` where the pattern occurs in `bytes` (always the
    /// same bytes for one finder).
    mutating func find(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        if start >= lastFrom {
            guard let found = lastFound else { return nil }
            if start <= found { return found }
        }
        let result = search(bytes, from: start)
        lastFrom = start
        lastFound = result
        return result
    }

    /// `find` over an array.
    mutating func find(in bytes: [UInt8], from start: Int) -> Int? {
        bytes.withUnsafeBufferPointer { find(in: $0, from: start) }
    }

    private func search(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let count = pattern.count
        guard count > 0, start >= 0 else { return nil }
        var i = start
        while i + count <= b.count {
            var k = 0
            while k < count, (caseInsensitive ? HTMLEscaping.lowercased(b[i + k]) : b[i + k]) == pattern[k] { k += 1 }
            if k == count { return i }
            i += 1
        }
        return nil
    }
}
