/// The identity map of one table: primary key → the one model object of that row.
///
/// A fetch registers every row it returns, so this map sits on the hottest path of the
/// layer. It is an open-addressing hash table (linear probing, backward-shift deletion),
/// several times cheaper than `Dictionary`'s seeded SipHash for this one job:
/// - Primary keys are mostly dense runs of integers fetched in order, so the slot is the key
///   itself, folded with its high bits (`k ^ k >> log2(capacity)`): consecutive rows land in
///   consecutive slots and a fetch writes the table sequentially instead of missing the cache
///   on every row, while keys a multiple of the capacity apart still spread.
/// - Key and model share one slot (one cache line for both); slots are initialized only while
///   used, so creating, growing and freeing the table never touches the empty ones.
/// - Growing moves entries instead of copying them (no reference-count traffic).
/// It is a class so the context can hold it once per fetch and update it in place.
final class IdentityTable: Sequence {
    private struct Slot {
        var key: Int64
        var model: any PersistentModel
    }

    /// Initialized exactly where `used` is true.
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Slot>
    /// Probing reads only these flags and the keys, so it never touches reference counts.
    @exclusivity(unchecked) private var used: UnsafeMutablePointer<Bool>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var shift: Int
    @exclusivity(unchecked) private(set) var count = 0

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity { size *= 2 }
        self.capacity = size
        shift = size.trailingZeroBitCount
        slots = .allocate(capacity: size)
        used = .allocate(capacity: size)
        used.initialize(repeating: false, count: size)
    }

    deinit {
        for index in 0..<capacity where used[index] { (slots + index).deinitialize(count: 1) }
        slots.deallocate()
        used.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func slot(for key: Int64) -> Int {
        let bits = UInt64(bitPattern: key)
        return Int(truncatingIfNeeded: bits ^ (bits >> UInt64(shift))) & (capacity - 1)
    }

    /// The model registered for `key`, if any; assigning nil removes it.
    subscript(key: Int64) -> (any PersistentModel)? {
        get {
            var index = slot(for: key)
            while used[index] {
                if slots[index].key == key { return slots[index].model }
                index = (index + 1) & (capacity - 1)
            }
            return nil
        }
        set {
            if let newValue { insert(key, newValue) } else { removeValue(forKey: key) }
        }
    }

    private func insert(_ key: Int64, _ value: any PersistentModel) {
        if (count + 1) * 4 > capacity * 3 { grow() }
        var index = slot(for: key)
        while used[index] {
            if slots[index].key == key {
                slots[index].model = value
                return
            }
            index = (index + 1) & (capacity - 1)
        }
        used[index] = true
        (slots + index).initialize(to: Slot(key: key, model: value))
        count += 1
    }

    /// Removes the model registered for `key` and returns it.
    @discardableResult
    func removeValue(forKey key: Int64) -> (any PersistentModel)? {
        let mask = capacity - 1
        var index = slot(for: key)
        while used[index] {
            if slots[index].key == key {
                let removed = (slots + index).move().model
                used[index] = false
                count -= 1
                // Backward shift: pull later entries of the probe chain into the hole.
                var hole = index
                var next = (index + 1) & mask
                while used[next] {
                    let home = slot(for: slots[next].key)
                    if (next - home) & mask >= (next - hole) & mask {
                        (slots + hole).moveInitialize(from: slots + next, count: 1)
                        used[hole] = true
                        used[next] = false
                        hole = next
                    }
                    next = (next + 1) & mask
                }
                return removed
            }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Makes room for `additional` more entries without growing again.
    func reserveCapacity(_ additional: Int) {
        while (count + additional) * 4 > capacity * 3 { grow() }
    }

    private func grow() {
        let oldSlots = slots, oldUsed = used, oldCapacity = capacity
        capacity = oldCapacity * 2
        shift += 1
        slots = .allocate(capacity: capacity)
        used = .allocate(capacity: capacity)
        used.initialize(repeating: false, count: capacity)
        for index in 0..<oldCapacity where oldUsed[index] {
            var slot = slot(for: oldSlots[index].key)
            while used[slot] { slot = (slot + 1) & (capacity - 1) }
            used[slot] = true
            // Move the entry across: no retain, no release.
            (slots + slot).moveInitialize(from: oldSlots + index, count: 1)
        }
        oldSlots.deallocate()
        oldUsed.deallocate()
    }

    /// The registered models.
    var models: [any PersistentModel] { (0..<capacity).compactMap { used[$0] ? slots[$0].model : nil } }
    /// The registered primary keys.
    var primaryKeys: [Int64] { (0..<capacity).compactMap { used[$0] ? slots[$0].key : nil } }

    func makeIterator() -> IndexingIterator<[(key: Int64, value: any PersistentModel)]> {
        (0..<capacity).compactMap { index in used[index] ? (slots[index].key, slots[index].model) : nil }.makeIterator()
    }
}
