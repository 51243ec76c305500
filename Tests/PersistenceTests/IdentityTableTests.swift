import Testing
@testable import Persistence

@Suite struct IdentityTableTests {
    /// The table agrees with a Dictionary over a seeded mix of inserts, replacements and removals.
    @Test func matchesDictionaryUnderRandomOperations() {
        var generator = SplitMix(seed: 42)
        let table = IdentityTable()
        var reference: [Int64: Trip] = [:]
        for _ in 0..<20_000 {
            let key = Int64(generator.next() % 3_000) - 100
            if generator.next() % 3 == 0 {
                #expect((table.removeValue(forKey: key) as? Trip) === reference.removeValue(forKey: key))
            } else {
                let trip = Trip(name: "\(key)")
                table[key] = trip
                reference[key] = trip
            }
        }
        #expect(table.count == reference.count)
        for (key, trip) in reference { #expect((table[key] as? Trip) === trip) }
        #expect(Set(table.primaryKeys) == Set(reference.keys))
        #expect(table[999_999] == nil)
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
