import SQLite

/// The values of one row as stored — the model's attributes, then its to-one keys — kept as
/// a model's snapshot to tell what changed, to roll back and to undo.
///
/// Every fetched or saved model has one, so it is built for the hot path: one allocation
/// with the values inline (tail-allocated), created through a non-generic class. An
/// `Array<SQLValue>` costs a generic metadata lookup on each allocation, which was a sixth
/// of the instructions of materialising a row.
final class StoredValues: ManagedBuffer<Int, SQLValue>, RandomAccessCollection {
    /// Values `count` long, each initialized by `fill` (which must initialize exactly `count`
    /// values from the pointer it is given, in order).
    static func make(count: Int, _ fill: (UnsafeMutablePointer<SQLValue>) -> Void) -> StoredValues {
        let buffer = unsafeDowncast(create(minimumCapacity: count) { _ in 0 }, to: StoredValues.self)
        buffer.withUnsafeMutablePointers { header, elements in
            fill(elements)
            header.pointee = count
        }
        return buffer
    }

    /// A copy of `values`.
    static func make(_ values: [SQLValue]) -> StoredValues {
        make(count: values.count) { elements in
            values.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { elements.initialize(from: base, count: source.count) }
            }
        }
    }

    deinit {
        _ = withUnsafeMutablePointers { header, elements in elements.deinitialize(count: header.pointee) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { header }

    subscript(position: Int) -> SQLValue {
        precondition(position >= 0 && position < header, "stored value index out of range")
        return withUnsafeMutablePointerToElements { $0[position] }
    }

    /// Whether both hold the same values.
    func same(as other: StoredValues?) -> Bool {
        guard let other else { return false }
        return other === self || elementsEqual(other)
    }
}
