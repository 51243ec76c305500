/// The state of an argument property wrapper: a definition before parsing, a value after.
enum PropertyStorage<Value> {
    /// Created by `init()`: describes the argument; the key is filled in by discovery.
    case definition(ArgumentDefinition)
    /// Decoded from the command line, or assigned in code.
    case value(Value)

    /// The value, or the default when the command was created with `init()` and not parsed.
    ///
    /// Reading a required argument of an unparsed command is a programming error: create
    /// commands with `parse(_:)` (or assign the property first).
    func value(wrapper: String) -> Value {
        switch self {
        case .value(let value):
            return value
        case .definition(let definition):
            if let initial = definition.initial as? Value { return initial }
            preconditionFailure("\(wrapper) value read before parsing; create the command with parse(_:) or assign it first")
        }
    }

    /// The stored definition under a key, or nothing when the wrapper already holds a value.
    func definitions(for key: InputKey) -> [ArgumentDefinition] {
        guard case .definition(var definition) = self else { return [] }
        definition.key = key
        return [definition]
    }
}
