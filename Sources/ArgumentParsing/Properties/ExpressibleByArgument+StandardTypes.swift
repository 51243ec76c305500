// Conformances of the standard library's value types to ExpressibleByArgument.

extension String: ExpressibleByArgument {
    public init?(argument: String) {
        self = argument
    }
}

extension Int: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(argument)
    }
}

extension Int32: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(argument)
    }
}

extension Int64: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(argument)
    }
}

extension UInt: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(argument)
    }
}

extension UInt64: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(argument)
    }
}

extension Double: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(argument)
    }
}

extension Float: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(argument)
    }
}

extension Bool: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument.lowercased() {
        case "true", "yes", "1": self = true
        case "false", "no", "0": self = false
        default: return nil
        }
    }

    public static var allValueStrings: [String] { ["true", "false"] }
}
