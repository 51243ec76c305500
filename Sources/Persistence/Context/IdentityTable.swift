/// The identity map of one table: primary key → the one model object of that row.
///
/// A fetch registers every row it returns, so this map sits on the hottest path of the
/// layer. It is an open-addressing hash table (linear probing, backward-shift deletion)
/// with a multiplicative hash of the integer key, several times cheaper than
/// `Dictionary`'s seeded SipHash for this one job, and it moves its entries when it grows
/// instead of copying them (no reference-count traffic). It is a class so the context can
/// hold it once per fetch and update it in place.
final class IdentityTable: Sequence {
    private var keys: UnsafeMutablePointer<Int64>
    /// Probing reads only these flags and keys, so it never touches reference counts.
    private var used: UnsafeMutablePointer<Bool>
    /// nil in every unused slot.
    private var values: UnsafeMutablePointer<(any PersistentModel)?>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 16) {
        self.capacity = capacity
        keys = .allocate(capacity: capacity)
        used = .allocate(capacity: capacity)
        used.initialize(repeating: false, count: capacity)
        values = .allocate(capacity: capacity)
        values.initialize(repeating: nil, count: capacity)
    }

    deinit {
        values.deinitialize(count: capacity)
        values.deallocate()
        used.deallocate()
        keys.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func slot(for key: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> 20) & (capacity - 1)
    }

    /// The model registered for `key`, if any; assigning nil removes it.
    subscript(key: Int64) -> (any PersistentModel)? {
        get {
            var index = slot(for: key)
            while used[index] {
                if keys[index] == key { return values[index] }
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
            if keys[index] == key {
                values[index] = value
                return
            }
            index = (index + 1) & (capacity - 1)
        }
        used[index] = true
        keys[index] = key
        values[index] = value
        count += 1
    }

    /// Removes the model registered for `key` and returns it.
    @discardableResult
    func removeValue(forKey key: Int64) -> (any PersistentModel)? {
        let mask = capacity - 1
        var index = slot(for: key)
        while used[index] {
            if keys[index] == key {
                let removed = values[index]
                values[index] = nil
                used[index] = false
                count -= 1
                // Backward shift: pull later entries of the probe chain into the hole.
                var hole = index
                var next = (index + 1) & mask
                while used[next] {
                    let home = slot(for: keys[next])
                    if (next - home) & mask >= (next - hole) & mask {
                        keys[hole] = keys[next]
                        used[hole] = true
                        used[next] = false
                        (values + hole).moveUpdate(from: values + next, count: 1)
                        (values + next).initialize(to: nil)
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
        let oldKeys = keys, oldValues = values, oldUsed = used, oldCapacity = capacity
        capacity = oldCapacity * 2
        keys = .allocate(capacity: capacity)
        used = .allocate(capacity: capacity)
        used.initialize(repeating: false, count: capacity)
        values = .allocate(capacity: capacity)
        values.initialize(repeating: nil, count: capacity)
        for index in 0..<oldCapacity {
            guard oldUsed[index] else { continue }
            var slot = slot(for: oldKeys[index])
            while used[slot] { slot = (slot + 1) & (capacity - 1) }
            used[slot] = true
            keys[slot] = oldKeys[index]
            // Move the reference across: no retain, no release.
            (values + slot).moveUpdate(from: oldValues + index, count: 1)
            (oldValues + index).initialize(to: nil)
        }
        oldValues.deinitialize(count: oldCapacity)
        oldValues.deallocate()
        oldUsed.deallocate()
        oldKeys.deallocate()
    }

    /// The registered models.
    var models: [any PersistentModel] { (0..<capacity).compactMap { used[$0] ? values[$0] : nil } }
    /// The registered primary keys.
    var primaryKeys: [Int64] { (0..<capacity).compactMap { used[$0] ? keys[$0] : nil } }

    func makeIterator() -> IndexingIterator<[(key: Int64, value: any PersistentModel)]> {
        (0..<capacity).compactMap { index in values[index].map { (keys[index], $0) } }.makeIterator()
    }
}
