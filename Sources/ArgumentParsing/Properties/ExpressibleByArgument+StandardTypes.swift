// Conformances of the standard library's value types to ExpressibleByArgument.

extension String: ExpressibleByArgument {
    /// The argument itself.
    public init?(argument: String) {
        self = argument
    }
}

extension Int: ExpressibleByArgument {
    /// A decimal integer, with an optional sign; `nil` when out of range.
    public init?(argument: String) {
        self.init(argument)
    }
}

extension Int32: ExpressibleByArgument {
    /// A decimal integer, with an optional sign; `nil` when out of range.
    public init?(argument: String) {
        self.init(argument)
    }
}

extension Int64: ExpressibleByArgument {
    /// A decimal integer, with an optional sign; `nil` when out of range.
    public init?(argument: String) {
        self.init(argument)
    }
}

extension UInt: ExpressibleByArgument {
    /// A decimal integer, with an optional sign; `nil` when out of range.
    public init?(argument: String) {
        self.init(argument)
    }
}

extension UInt64: ExpressibleByArgument {
    /// A decimal integer, with an optional sign; `nil` when out of range.
    public init?(argument: String) {
        self.init(argument)
    }
}

extension Double: ExpressibleByArgument {
    /// A decimal or hexadecimal floating-point number (`1.5`, `-2e3`).
    public init?(argument: String) {
        self.init(argument)
    }
}

extension Float: ExpressibleByArgument {
    /// A decimal or hexadecimal floating-point number (`1.5`, `-2e3`).
    public init?(argument: String) {
        self.init(argument)
    }
}

extension Bool: ExpressibleByArgument {
    /// `true`, `yes`, `1`, `false`, `no` or `0`, in any case.
    public init?(argument: String) {
        switch argument.lowercased() {
        case "true", "yes", "1": self = true
        case "false", "no", "0": self = false
        default: return nil
        }
    }

    /// `true` and `false`.
    public static var allValueStrings: [String] { ["true", "false"] }
}
