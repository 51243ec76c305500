import Foundation

/// Fast access to one stored property of a model class.
///
/// Applying a key path costs a runtime call each time; a context reads and writes every
/// attribute of every row, so for a plain stored property (no observers, not computed) the
/// property's byte offset inside the object is found once, from a prototype instance, and
/// used directly afterwards. The offset is trusted only when the key path's projection lies
/// inside the object and reading through it gives the same value; otherwise (computed
/// properties, `didSet`, `@Observable` storage) the key path is applied as usual.
@usableFromInline
final class StoredProperty<M: AnyObject, V>: @unchecked Sendable {
    @usableFromInline let keyPath: ReferenceWritableKeyPath<M, V>
    /// The byte offset inside the object, or nil to go through the key path.
    @exclusivity(unchecked) @usableFromInline var offset: Int?
    private var resolved = false
    private let lock = NSLock()

    @usableFromInline
    init(_ keyPath: ReferenceWritableKeyPath<M, V>) {
        self.keyPath = keyPath
    }

    @inlinable
    func get(_ object: AnyObject) -> V {
        if let offset {
            return (Unmanaged.passUnretained(object).toOpaque() + offset).assumingMemoryBound(to: V.self).pointee
        }
        return unsafeDowncast(object, to: M.self)[keyPath: keyPath]
    }

    @inlinable
    func set(_ object: AnyObject, _ value: V) {
        if let offset {
            (Unmanaged.passUnretained(object).toOpaque() + offset).assumingMemoryBound(to: V.self).pointee = value
        } else {
            unsafeDowncast(object, to: M.self)[keyPath: keyPath] = value
        }
    }

    /// Finds the offset with a prototype instance; `same` compares two values of the property.
    @usableFromInline
    func resolve(prototype: AnyObject, same: (V, V) -> Bool) {
        lock.lock()
        defer { lock.unlock() }
        guard !resolved, let model = prototype as? M else { return }
        resolved = true
        let base = Unmanaged.passUnretained(model).toOpaque()
        let size = allocationSize(base)
        var candidate: Int?
        withUnsafeMutablePointer(to: &model[keyPath: keyPath]) { pointer in
            let distance = UnsafeMutableRawPointer(pointer) - base
            // Past the object header (two words), inside the allocation.
            if distance >= 2 * MemoryLayout<Int>.size, distance + MemoryLayout<V>.size <= size { candidate = distance }
        }
        guard let candidate else { return }
        let direct = (base + candidate).assumingMemoryBound(to: V.self).pointee
        if same(direct, model[keyPath: keyPath]) { offset = candidate }
    }
}

/// The usable size of a heap allocation (glibc's `malloc_usable_size`), bounding the object.
@_silgen_name("malloc_usable_size")
private func allocationSize(_ pointer: UnsafeMutableRawPointer) -> Int
