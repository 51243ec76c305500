import Foundation
import Synchronization

/// Fast access to one stored property of a model class.
///
/// Applying a key path costs a runtime call each time; a context reads and writes every
/// attribute of every row, so for a plain stored property (no observers, not computed) the
/// property's byte offset inside the object is found once, from a prototype instance, and
/// used directly afterwards. The offset is trusted only when the key path's projection lies
/// inside the object and reading through it gives the same value; otherwise (computed
/// properties, `didSet`, `@Observable` storage) the key path is applied as usual.
///
/// A `@Model` attribute's storage key path (`\Card._front`) is given lazily: making a key
/// path object at run time costs some 20,000 instructions (its types are demangled and its
/// class instantiated), and a schema of `@Model` classes has one per attribute besides the
/// public one. Such a property finds its offset on the first read or write, with that
/// object, and makes the key path only then; an entity a program never reads costs nothing.
@usableFromInline
final class StoredProperty<M: AnyObject, V>: @unchecked Sendable {
    /// The byte offset inside the object; `unresolved` until it is found, `noOffset` when the
    /// key path has to be applied. One word, so a reader sees either value whole.
    @usableFromInline let state: Atomic<Int>
    @usableFromInline static var unresolved: Int { 0 }
    @usableFromInline static var noOffset: Int { -1 }
    /// Makes the key path (once, under the lock).
    private let makeKeyPath: () -> ReferenceWritableKeyPath<M, V>
    private var madeKeyPath: ReferenceWritableKeyPath<M, V>?
    /// Compares two values of the property, for a lazily resolved offset.
    private let same: ((V, V) -> Bool)?
    private let lock = NSLock()

    /// A property whose offset ``resolve(prototype:same:)`` finds when the schema is built.
    @usableFromInline
    init(_ keyPath: ReferenceWritableKeyPath<M, V>) {
        state = Atomic(Self.unresolved)
        makeKeyPath = { keyPath }
        madeKeyPath = keyPath
        same = nil
    }

    /// A property whose key path is made, and offset found, on first use.
    @usableFromInline
    init(lazy keyPath: @escaping () -> ReferenceWritableKeyPath<M, V>, same: @escaping (V, V) -> Bool) {
        state = Atomic(Self.unresolved)
        makeKeyPath = keyPath
        self.same = same
    }

    @inlinable
    func get(_ object: AnyObject) -> V {
        let offset = state.load(ordering: .relaxed)
        if offset > 0 {
            return (Unmanaged.passUnretained(object).toOpaque() + offset).assumingMemoryBound(to: V.self).pointee
        }
        return slowGet(object)
    }

    @inlinable
    func set(_ object: AnyObject, _ value: V) {
        let offset = state.load(ordering: .relaxed)
        if offset > 0 {
            (Unmanaged.passUnretained(object).toOpaque() + offset).assumingMemoryBound(to: V.self).pointee = value
        } else {
            slowSet(object, value)
        }
    }

    @usableFromInline
    func slowGet(_ object: AnyObject) -> V {
        let (keyPath, offset) = resolveOnUse(object)
        if offset > 0 {
            return (Unmanaged.passUnretained(object).toOpaque() + offset).assumingMemoryBound(to: V.self).pointee
        }
        return unsafeDowncast(object, to: M.self)[keyPath: keyPath]
    }

    @usableFromInline
    func slowSet(_ object: AnyObject, _ value: V) {
        let (keyPath, offset) = resolveOnUse(object)
        if offset > 0 {
            (Unmanaged.passUnretained(object).toOpaque() + offset).assumingMemoryBound(to: V.self).pointee = value
        } else {
            unsafeDowncast(object, to: M.self)[keyPath: keyPath] = value
        }
    }

    /// The key path, and the offset found with `object` if the property is lazy and unresolved.
    private func resolveOnUse(_ object: AnyObject) -> (ReferenceWritableKeyPath<M, V>, Int) {
        lock.lock()
        defer { lock.unlock() }
        let keyPath = keyPathLocked()
        if let same, state.load(ordering: .relaxed) == Self.unresolved {
            state.store(offset(in: object, keyPath: keyPath, same: same) ?? Self.noOffset, ordering: .relaxed)
        }
        return (keyPath, state.load(ordering: .relaxed))
    }

    private func keyPathLocked() -> ReferenceWritableKeyPath<M, V> {
        if let madeKeyPath { return madeKeyPath }
        let keyPath = makeKeyPath()
        madeKeyPath = keyPath
        return keyPath
    }

    /// Finds the offset with a prototype instance; `same` compares two values of the property.
    /// A lazy property is left to its first use.
    @usableFromInline
    func resolve(prototype: AnyObject, same: (V, V) -> Bool) {
        guard self.same == nil else { return }
        lock.lock()
        defer { lock.unlock() }
        guard state.load(ordering: .relaxed) == Self.unresolved else { return }
        state.store(offset(in: prototype, keyPath: keyPathLocked(), same: same) ?? Self.noOffset, ordering: .relaxed)
    }

    /// The offset of the key path's projection in `object`, when it lies inside the object
    /// (past the two-word header) and reading through it gives the key path's value.
    private func offset(in object: AnyObject, keyPath: ReferenceWritableKeyPath<M, V>, same: (V, V) -> Bool) -> Int? {
        guard let model = object as? M else { return nil }
        let base = Unmanaged.passUnretained(model).toOpaque()
        let size = allocationSize(base)
        var candidate: Int?
        withUnsafeMutablePointer(to: &model[keyPath: keyPath]) { pointer in
            let distance = UnsafeMutableRawPointer(pointer) - base
            if distance >= 2 * MemoryLayout<Int>.size, distance + MemoryLayout<V>.size <= size { candidate = distance }
        }
        guard let candidate else { return nil }
        let direct = (base + candidate).assumingMemoryBound(to: V.self).pointee
        return same(direct, model[keyPath: keyPath]) ? candidate : nil
    }
}

/// The usable size of a heap allocation (glibc's `malloc_usable_size`), bounding the object.
@_silgen_name("malloc_usable_size")
private func allocationSize(_ pointer: UnsafeMutableRawPointer) -> Int
