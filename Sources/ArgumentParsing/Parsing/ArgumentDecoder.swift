/// Hands parsed values to a command's synthesized `init(from:)`.
///
/// The compiler-generated `Decodable` conformance asks for each property wrapper by its
/// property name; the wrapper's own `init(from:)` then reads its value from
/// ``values`` under the decoder's coding path. Anything that is not an argument property
/// fails with an error naming the property.
final class ArgumentDecoder: Decoder {
    let values: [InputKey: Any]
    let codingPath: [any CodingKey]
    let commandName: String
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(values: [InputKey: Any], codingPath: [any CodingKey] = [], commandName: String) {
        self.values = values
        self.codingPath = codingPath
        self.commandName = commandName
    }

    /// The parsed value for the property a wrapper is being decoded for.
    ///
    /// - Throws: `DecodingError` when the decoder is not the argument parser's, or holds no
    ///   value of the expected type (a wrapper declared in an unsupported way).
    static func value<Value>(of _: Value.Type, from decoder: any Decoder) throws -> Value {
        guard let decoder = decoder as? ArgumentDecoder else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "argument properties are decoded only by the argument parser"))
        }
        let key = InputKey(decoder.codingPath.map(\.stringValue))
        guard let stored = decoder.values[key], let value = stored as? Value else {
            throw DecodingError.valueNotFound(Value.self, .init(
                codingPath: decoder.codingPath,
                debugDescription: "no parsed value for '\(key)' in '\(decoder.commandName)'"))
        }
        return value
    }

    func child(_ key: any CodingKey) -> ArgumentDecoder {
        ArgumentDecoder(values: values, codingPath: codingPath + [key], commandName: commandName)
    }

    func notAnArgument() -> DecodingError {
        let property = codingPath.last?.stringValue ?? "?"
        return DecodingError.typeMismatch(Any.self, .init(
            codingPath: codingPath,
            debugDescription: "the property '\(property)' of '\(commandName)' is not an @Option, @Flag, "
                + "@Argument or @OptionGroup; leave it out of the type's CodingKeys"))
    }

    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ArgumentKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw notAnArgument()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw notAnArgument()
    }
}

/// The keyed container of ``ArgumentDecoder``: every key decodes through a child decoder.
struct ArgumentKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ArgumentDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { [] }

    func contains(_: Key) -> Bool { true }

    func decodeNil(forKey _: Key) -> Bool { false }

    func decode<T: Decodable>(_: T.Type, forKey key: Key) throws -> T {
        try T(from: decoder.child(key))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy _: NestedKey.Type, forKey key: Key
    ) -> KeyedDecodingContainer<NestedKey> {
        decoder.child(key).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw decoder.child(key).notAnArgument()
    }

    func superDecoder() -> any Decoder { decoder }

    func superDecoder(forKey key: Key) -> any Decoder { decoder.child(key) }

    // Plain values are never argument properties.
    func decode(_: Bool.Type, forKey key: Key) throws -> Bool { throw decoder.child(key).notAnArgument() }
    func decode(_: String.Type, forKey key: Key) throws -> String { throw decoder.child(key).notAnArgument() }
    func decode(_: Double.Type, forKey key: Key) throws -> Double { throw decoder.child(key).notAnArgument() }
    func decode(_: Float.Type, forKey key: Key) throws -> Float { throw decoder.child(key).notAnArgument() }
    func decode(_: Int.Type, forKey key: Key) throws -> Int { throw decoder.child(key).notAnArgument() }
    func decode(_: Int8.Type, forKey key: Key) throws -> Int8 { throw decoder.child(key).notAnArgument() }
    func decode(_: Int16.Type, forKey key: Key) throws -> Int16 { throw decoder.child(key).notAnArgument() }
    func decode(_: Int32.Type, forKey key: Key) throws -> Int32 { throw decoder.child(key).notAnArgument() }
    func decode(_: Int64.Type, forKey key: Key) throws -> Int64 { throw decoder.child(key).notAnArgument() }
    func decode(_: UInt.Type, forKey key: Key) throws -> UInt { throw decoder.child(key).notAnArgument() }
    func decode(_: UInt8.Type, forKey key: Key) throws -> UInt8 { throw decoder.child(key).notAnArgument() }
    func decode(_: UInt16.Type, forKey key: Key) throws -> UInt16 { throw decoder.child(key).notAnArgument() }
    func decode(_: UInt32.Type, forKey key: Key) throws -> UInt32 { throw decoder.child(key).notAnArgument() }
    func decode(_: UInt64.Type, forKey key: Key) throws -> UInt64 { throw decoder.child(key).notAnArgument() }
}
