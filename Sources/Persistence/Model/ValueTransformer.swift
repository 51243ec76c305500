import Foundation
import SQLite

#if !canImport(ObjectiveC)
/// The name a ``ValueTransformer`` is registered under, as in Foundation.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// ``NSSecureUnarchiveFromDataTransformer``'s name.
    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
}

/// Foundation's `ValueTransformer`, which swift-corelibs-foundation doesn't have: converts a
/// value to another (for `@Attribute(.transformable(by:))`, to `Data`) and back.
///
/// Subclass it as on Apple platforms:
///
/// ```swift
/// final class ColorTransformer: ValueTransformer {
///     override class func transformedValueClass() -> AnyClass { NSData.self }
///     override class func allowsReverseTransformation() -> Bool { true }
///     override func transformedValue(_ value: Any?) -> Any? { (value as? RGB)?.data }
///     override func reverseTransformedValue(_ value: Any?) -> Any? { (value as? Data).flatMap(RGB.init) }
/// }
/// ```
///
/// Foundation's `ValueTransformer(forName:)` returns a registered instance, which a Swift
/// initializer can't; ``valueTransformer(forName:)`` does it here.
open class ValueTransformer: NSObject {
    public required override init() {}

    /// The class of the values ``transformedValue(_:)`` returns.
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Whether ``reverseTransformedValue(_:)`` undoes ``transformedValue(_:)`` (default true).
    open class func allowsReverseTransformation() -> Bool { true }

    /// The transformed value (by default the value itself).
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// The value back from a transformed one; by default ``transformedValue(_:)`` when the
    /// class allows reverse transformation, else nil.
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        type(of: self).allowsReverseTransformation() ? transformedValue(value) : nil
    }

    private nonisolated(unsafe) static var registry: [NSValueTransformerName: ValueTransformer] = [:]
    private static let lock = NSLock()

    /// Registers `transformer` under `name` (nil removes the registration).
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        lock.lock()
        defer { lock.unlock() }
        registry[name] = transformer
    }

    /// The transformer registered under `name`.
    public class func valueTransformer(forName name: NSValueTransformerName) -> ValueTransformer? {
        lock.lock()
        defer { lock.unlock() }
        if let registered = registry[name] { return registered }
        if name == .secureUnarchiveFromDataTransformerName { return NSSecureUnarchiveFromDataTransformer() }
        return nil
    }

    /// The names of the registered transformers.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        lock.lock()
        defer { lock.unlock() }
        return Array(registry.keys)
    }
}

/// Foundation's transformer between `Data` and objects of ``allowedTopLevelClasses`` through
/// `NSKeyedUnarchiver`'s secure coding: ``transformedValue(_:)`` unarchives, the reverse
/// archives. Subclass it and override ``allowedTopLevelClasses`` for your `NSSecureCoding`
/// classes, as on Apple platforms.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer {
    /// The classes an archive may hold at its top level.
    open class var allowedTopLevelClasses: [AnyClass] {
        [NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSURL.self,
         NSUUID.self, NSNull.self]
    }

    open override class func allowsReverseTransformation() -> Bool { true }
    open override class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Unarchives `Data` (nil when it isn't an archive of the allowed classes).
    open override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        let allowed = type(of: self).allowedTopLevelClasses
        do {
            // swift-corelibs-foundation doesn't check the top-level class itself.
            guard let object = try NSKeyedUnarchiver.unarchivedObject(ofClasses: allowed, from: data) as? NSObject,
                  allowed.contains(where: { object.isKind(of: $0) }) else { return nil }
            return object
        } catch {
            return nil
        }
    }

    /// Archives an object (nil when it can't be archived with secure coding).
    open override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value else { return nil }
        do {
            return try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
        } catch {
            return nil
        }
    }
}
#endif

extension ValueTransformer {
    /// The transformer registered under `name`, on every platform.
    static func registered(_ name: String) -> ValueTransformer? {
        #if canImport(ObjectiveC)
        ValueTransformer(forName: NSValueTransformerName(name))
        #else
        valueTransformer(forName: NSValueTransformerName(name))
        #endif
    }
}

/// How a `.transformable(by:)` attribute is stored: the transformer turns the value into
/// `Data` (a BLOB column) and back. A transformer that unarchives from data
/// (``NSSecureUnarchiveFromDataTransformer``) is applied the other way round, as Core Data
/// does.
@usableFromInline
struct AttributeTransform: @unchecked Sendable {
    let name: String
    let transformer: ValueTransformer?

    @usableFromInline
    init(options: Set<Schema.Attribute.Option>) {
        var name = ""
        for case .transformable(let transformer) in options { name = transformer }
        self.name = name
        transformer = ValueTransformer.registered(name)
    }

    private var unarchives: Bool { transformer is NSSecureUnarchiveFromDataTransformer }

    private func require() -> ValueTransformer {
        guard let transformer else {
            preconditionFailure("no ValueTransformer is registered as \"\(name)\" (register it before making the container)")
        }
        return transformer
    }

    /// The last encoding of each object value, so that an unchanged object reads as its
    /// stored bytes: a keyed archive of the same object isn't byte-identical from one
    /// archiving to the next on Linux.
    private let encodings = EncodingCache()

    /// The column value for a non-nil model value.
    @usableFromInline
    func columnValue(_ value: Any) -> SQLValue {
        let value = unwrapped(value)
        guard Swift.type(of: value) is AnyObject.Type else { return encode(value) }
        let object = value as AnyObject
        if let cached = encodings[object] { return cached }
        let encoded = encode(value)
        encodings[object] = encoded
        return encoded
    }

    private func unwrapped(_ value: Any) -> Any {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional, let child = mirror.children.first else { return value }
        return unwrapped(child.value)
    }

    private func encode(_ value: Any) -> SQLValue {
        let transformer = require()
        let data = unarchives ? transformer.reverseTransformedValue(value) : transformer.transformedValue(value)
        guard let data = data as? Data else {
            preconditionFailure("ValueTransformer \"\(name)\" didn't turn a \(type(of: value)) into Data")
        }
        return .blob(data)
    }

    /// The model value for a column value, nil when it doesn't convert.
    @usableFromInline
    func modelValue(_ value: SQLValue) -> Any? {
        guard case .blob(let data) = value else { return nil }
        let transformer = require()
        return unarchives ? transformer.transformedValue(data) : transformer.reverseTransformedValue(data)
    }
}

/// Encodings of object values by identity (weakly held, bounded).
private final class EncodingCache: @unchecked Sendable {
    private struct Entry {
        weak var object: AnyObject?
        let value: SQLValue
    }
    private let lock = NSLock()
    private var entries: [ObjectIdentifier: Entry] = [:]

    subscript(object: AnyObject) -> SQLValue? {
        get {
            lock.lock()
            defer { lock.unlock() }
            guard let entry = entries[ObjectIdentifier(object)], entry.object === object else { return nil }
            return entry.value
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            if entries.count >= 4096 { entries = entries.filter { $0.value.object != nil } }
            if entries.count >= 4096 { entries.removeAll() }
            entries[ObjectIdentifier(object)] = newValue.map { Entry(object: object, value: $0) }
        }
    }
}
